package exact

import (
	"crypto/ecdsa"
	"crypto/rand"
	"errors"
	"fmt"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/caddy-x402/caddy-x402/facilitator/evm"
	"github.com/caddy-x402/caddy-x402/facilitator/network"
	"github.com/caddy-x402/caddy-x402/facilitator/permit2"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// PaymentOptions tunes CreatePayment. The zero value suits most buyers.
type PaymentOptions struct {
	// ChainID of the network. Nil means the built-in network named in the
	// requirements.
	ChainID *big.Int
	// Domain is the token's EIP-712 name and version. Nil means the
	// requirements' extra, then the built-in network's.
	Domain *x402.DomainInfo
	// Shape is the payload shape written (default ShapeCronos).
	Shape x402.PayloadShape
	// Now is the signing time; zero means time.Now().
	Now time.Time
	// ValidFor is how long the authorization stays valid; zero means the
	// requirements' maxTimeoutSeconds (at least 60 s).
	ValidFor time.Duration
	// Nonce is the authorization nonce; nil means 32 random bytes.
	Nonce *[32]byte
	// Extensions are the v2 PaymentPayload's extensions (CreatePaymentV2
	// only), such as x402.WithPaymentID's.
	Extensions map[string]any
	// Wallet, when set, is the payer: a smart-contract wallet that takes
	// the key's ECDSA signature of the EIP-712 digest as its own (EIP-1271
	// isValidSignature), such as the development chain's SmartWallet.
	// Nil means the key's own address.
	Wallet *common.Address
	// Deploy, with Wallet, wraps the signature for a wallet that is not
	// deployed yet (ERC-6492): the factory, and the call of it that
	// deploys the wallet.
	Deploy *WalletDeployment
}

// WalletDeployment is how a smart-contract wallet not deployed yet gets
// deployed: Calldata sent to Factory (ERC-6492).
type WalletDeployment struct {
	// Factory is the wallet factory's address.
	Factory common.Address
	// Calldata is the factory call that deploys the wallet.
	Calldata []byte
}

// CreatePayment signs an EIP-3009 authorization that pays exactly what the
// requirements ask, and returns it with its X-PAYMENT header value. It is
// what a buyer does with a 402 answer.
func CreatePayment(key *ecdsa.PrivateKey, req x402.PaymentRequirements, opts PaymentOptions) (string, *x402.Payment, error) {
	if req.Scheme != x402.SchemeExact {
		return "", nil, fmt.Errorf("unsupported scheme %q", req.Scheme)
	}
	value, err := x402.ParseAmount(req.MaxAmountRequired)
	if err != nil {
		return "", nil, fmt.Errorf("maxAmountRequired %q: %w", req.MaxAmountRequired, err)
	}
	if !x402.IsAddress(req.PayTo) || !x402.IsAddress(req.Asset) {
		return "", nil, errors.New("payTo and asset must be 0x-prefixed addresses")
	}
	builtin, isBuiltin := network.Builtin(req.Network)
	chainID := opts.ChainID
	if chainID == nil {
		id, known := x402.ChainIDOf(req.Network)
		if isBuiltin {
			id, known = builtin.ChainID, true
		}
		if !known {
			return "", nil, fmt.Errorf("network %q is not built in; give its chain ID", req.Network)
		}
		chainID = big.NewInt(id)
	}
	dom := opts.Domain
	if dom == nil {
		dom = req.Extra
	}
	if dom == nil && isBuiltin && builtin.EIP712Version != "" {
		dom = &x402.DomainInfo{Name: builtin.EIP712Name, Version: builtin.EIP712Version}
	}
	if dom == nil {
		return "", nil, fmt.Errorf("the token's EIP-712 name and version are unknown for network %q; give them", req.Network)
	}
	now := opts.Now
	if now.IsZero() {
		now = time.Now()
	}
	validFor := opts.ValidFor
	if validFor <= 0 {
		validFor = max(time.Duration(req.MaxTimeoutSeconds)*time.Second, time.Minute)
	}
	var nonce [32]byte
	if opts.Nonce != nil {
		nonce = *opts.Nonce
	} else if _, err := rand.Read(nonce[:]); err != nil {
		return "", nil, err
	}
	from := crypto.PubkeyToAddress(key.PublicKey)
	if opts.Wallet != nil {
		from = *opts.Wallet
	} else if opts.Deploy != nil {
		return "", nil, errors.New("a wallet deployment needs the wallet's address")
	}
	p := &x402.Payment{
		X402Version: x402.X402Version,
		Scheme:      x402.SchemeExact,
		Network:     req.Network,
		Asset:       req.Asset,
		Authorization: x402.Authorization{
			From:  from,
			To:    common.HexToAddress(req.PayTo),
			Value: value,
			// Ten minutes back tolerates clock skew between buyer and chain.
			ValidAfter:  big.NewInt(now.Add(-10 * time.Minute).Unix()),
			ValidBefore: big.NewInt(now.Add(validFor).Unix()),
			Nonce:       nonce,
		},
	}
	p.Value = value.String()
	domain := evm.Domain{Name: dom.Name, Version: dom.Version, ChainID: chainID, VerifyingContract: common.HexToAddress(req.Asset)}
	if p.Signature, err = SignAuthorization(key, domain, p.Authorization); err != nil {
		return "", nil, err
	}
	if opts.Deploy != nil {
		p.Signature = evm.WrapERC6492(opts.Deploy.Factory, opts.Deploy.Calldata, p.Signature)
	}
	header, err := x402.EncodePaymentHeader(p, opts.Shape)
	if err != nil {
		return "", nil, err
	}
	return header, p, nil
}

// CreatePaymentV2 signs an EIP-3009 authorization that pays what accepted
// (one entry of a v2 402's accepts) asks, and returns it with its
// PAYMENT-SIGNATURE header value. The chain id comes from the CAIP-2
// network unless opts gives it.
func CreatePaymentV2(key *ecdsa.PrivateKey, accepted x402.RequirementsV2, resource *x402.ResourceInfo, opts PaymentOptions) (string, *x402.Payment, error) {
	if opts.ChainID == nil {
		id, ok := x402.ParseCAIP2(accepted.Network)
		if !ok {
			return "", nil, fmt.Errorf("network %q is not a CAIP-2 eip155:<chainId> id", accepted.Network)
		}
		opts.ChainID = big.NewInt(id)
	}
	opts.Shape = x402.ShapeX402
	_, p, err := CreatePayment(key, accepted.V1(nil), opts)
	if err != nil {
		return "", nil, err
	}
	p.X402Version = x402.Version2
	p.Accepted = &accepted
	header, err := x402.EncodePaymentV2(p, accepted, resource, opts.Extensions)
	if err != nil {
		return "", nil, err
	}
	return header, p, nil
}

// CreatePermit2Payment signs an exact payment through Permit2 (for
// requirements with extra.assetTransferMethod "permit2"), as @x402/evm
// 2.27's ExactEvmScheme client does, and returns the PAYMENT-SIGNATURE
// header.
func CreatePermit2Payment(key *ecdsa.PrivateKey, accepted x402.RequirementsV2, resource *x402.ResourceInfo, opts permit2.PaymentOptions) (string, error) {
	return permit2.CreatePayment(key, permit2.ExactProxy, accepted, resource, opts)
}
