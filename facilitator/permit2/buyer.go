package permit2

import (
	"crypto/ecdsa"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/signer/core/apitypes"

	"github.com/caddy-x402/caddy-x402/facilitator/evm"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// PaymentOptions tune CreatePayment. Zero values are what @x402/evm 2.27's
// client does: validAfter 0, a deadline maxTimeoutSeconds from now, a
// random 256-bit nonce.
type PaymentOptions struct {
	// ValidFor sets the deadline from now; 0 means the requirements'
	// maxTimeoutSeconds.
	ValidFor time.Duration
	// ValidAfter is witness.validAfter (nil: 0).
	ValidAfter *big.Int
	// Nonce is the Permit2 nonce (nil: random).
	Nonce *big.Int
	// Now is the clock (nil: time.Now).
	Now func() time.Time
	// Extensions are the payment's extensions (EIP2612Extension's), or nil.
	Extensions map[string]any
}

// CreatePayment signs a payment through the x402 Permit2 proxy p, as
// @x402/evm 2.27's clients do (UptoEvmScheme for UptoProxy: at most
// accepted.Amount, accepted.Extra carrying facilitatorAddress;
// ExactEvmScheme for ExactProxy: requirements with
// extra.assetTransferMethod "permit2"), and returns it as the
// PAYMENT-SIGNATURE header (Base64 JSON of a v2 PaymentPayload). The
// schemes' own buyers call it: upto.CreatePayment,
// exact.CreatePermit2Payment.
func CreatePayment(key *ecdsa.PrivateKey, proxy Proxy, accepted x402.RequirementsV2, resource *x402.ResourceInfo, opts PaymentOptions) (string, error) {
	chainID, ok := x402.ParseCAIP2(accepted.Network)
	if !ok {
		return "", fmt.Errorf("network %q is not a CAIP-2 eip155:<chainId> id", accepted.Network)
	}
	var facilitator common.Address
	if proxy == UptoProxy {
		fs, _ := accepted.Extra["facilitatorAddress"].(string)
		if facilitator, ok = x402.ParseAddress(fs); !ok {
			return "", errors.New("upto requirements without extra.facilitatorAddress")
		}
	}
	token, okT := x402.ParseAddress(accepted.Asset)
	payTo, okP := x402.ParseAddress(accepted.PayTo)
	amount, ok := new(big.Int).SetString(accepted.Amount, 10)
	if !okT || !okP || !ok {
		return "", errors.New("upto requirements with a bad asset, payTo or amount")
	}
	now := time.Now
	if opts.Now != nil {
		now = opts.Now
	}
	validFor := opts.ValidFor
	if validFor == 0 {
		validFor = time.Duration(accepted.MaxTimeoutSeconds) * time.Second
	}
	nonce := opts.Nonce
	if nonce == nil {
		var b [32]byte
		if _, err := rand.Read(b[:]); err != nil {
			return "", err
		}
		nonce = new(big.Int).SetBytes(b[:])
	}
	validAfter := opts.ValidAfter
	if validAfter == nil {
		validAfter = new(big.Int)
	}
	a := Authorization{From: crypto.PubkeyToAddress(key.PublicKey), Token: token, Amount: amount, Spender: proxy.Address(),
		Nonce: nonce, Deadline: big.NewInt(now().Add(validFor).Unix()), To: payTo, Facilitator: facilitator, ValidAfter: validAfter}
	sig, err := Sign(key, proxy, big.NewInt(chainID), a)
	if err != nil {
		return "", err
	}
	witness := map[string]any{"to": a.To.Hex(), "validAfter": a.ValidAfter.String()}
	if proxy == UptoProxy {
		witness["facilitator"] = a.Facilitator.Hex()
	}
	payload, err := json.Marshal(map[string]any{
		"signature": hexutil.Encode(sig),
		"permit2Authorization": map[string]any{
			"from":      a.From.Hex(),
			"permitted": map[string]any{"token": a.Token.Hex(), "amount": a.Amount.String()},
			"spender":   a.Spender.Hex(),
			"nonce":     a.Nonce.String(),
			"deadline":  a.Deadline.String(),
			"witness":   witness,
		},
	})
	if err != nil {
		return "", err
	}
	return x402.EncodeBase64JSON(x402.PaymentPayloadV2{X402Version: x402.Version2, Resource: resource, Accepted: accepted, Payload: payload, Extensions: opts.Extensions})
}

// EIP2612Extension signs the buyer's EIP-2612 permit of token (EIP-712
// domain name and version, chainID) to Permit2 for value until deadline,
// with the token's nonces(owner) nonce, and returns the payment's
// extensions with it (eip2612GasSponsoring, as @x402/evm 2.27's client
// sends it): the facilitator submits it with the settle, so the buyer
// needs no approve transaction. value must be the payment's permitted
// amount.
func EIP2612Extension(key *ecdsa.PrivateKey, token common.Address, name, version string, chainID, nonce, value, deadline *big.Int) (map[string]any, error) {
	owner := crypto.PubkeyToAddress(key.PublicKey)
	td := apitypes.TypedData{
		Types: apitypes.Types{
			"EIP712Domain": evm.DomainTypes,
			"Permit": {{Name: "owner", Type: "address"}, {Name: "spender", Type: "address"}, {Name: "value", Type: "uint256"},
				{Name: "nonce", Type: "uint256"}, {Name: "deadline", Type: "uint256"}},
		},
		PrimaryType: "Permit",
		Domain:      evm.Domain{Name: name, Version: version, ChainID: chainID, VerifyingContract: token}.TypedDataDomain(),
		Message:     apitypes.TypedDataMessage{"owner": owner.Hex(), "spender": Address.Hex(), "value": value, "nonce": nonce, "deadline": deadline},
	}
	digest, _, err := apitypes.TypedDataAndHash(td)
	if err != nil {
		return nil, err
	}
	sig, err := crypto.Sign(digest, key)
	if err != nil {
		return nil, err
	}
	sig[64] += 27
	return map[string]any{x402.ExtEIP2612GasSponsoring: map[string]any{"info": map[string]any{
		"from": owner.Hex(), "asset": token.Hex(), "spender": Address.Hex(), "amount": value.String(),
		"nonce": nonce.String(), "deadline": deadline.String(), "signature": hexutil.Encode(sig), "version": "1",
	}}}, nil
}
