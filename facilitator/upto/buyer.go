package upto

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
}

// CreatePayment signs an upto payment of at most accepted.Amount for the
// buyer's key, as @x402/evm 2.27's UptoEvmScheme client does, and returns
// it as the PAYMENT-SIGNATURE header (Base64 JSON of a v2 PaymentPayload).
// accepted.Extra must carry facilitatorAddress.
func CreatePayment(key *ecdsa.PrivateKey, accepted x402.RequirementsV2, resource *x402.ResourceInfo, opts PaymentOptions) (string, error) {
	chainID, ok := x402.ParseCAIP2(accepted.Network)
	if !ok {
		return "", fmt.Errorf("network %q is not a CAIP-2 eip155:<chainId> id", accepted.Network)
	}
	fs, _ := accepted.Extra["facilitatorAddress"].(string)
	facilitator, ok := x402.ParseAddress(fs)
	if !ok {
		return "", errors.New("upto requirements without extra.facilitatorAddress")
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
	a := evm.Permit2Authorization{From: crypto.PubkeyToAddress(key.PublicKey), Token: token, Amount: amount, Spender: evm.UptoPermit2ProxyAddress,
		Nonce: nonce, Deadline: big.NewInt(now().Add(validFor).Unix()), To: payTo, Facilitator: facilitator, ValidAfter: validAfter}
	sig, err := evm.SignPermit2(key, evm.UptoPermit2, big.NewInt(chainID), a)
	if err != nil {
		return "", err
	}
	payload, err := json.Marshal(map[string]any{
		"signature": hexutil.Encode(sig),
		"permit2Authorization": map[string]any{
			"from":      a.From.Hex(),
			"permitted": map[string]any{"token": a.Token.Hex(), "amount": a.Amount.String()},
			"spender":   a.Spender.Hex(),
			"nonce":     a.Nonce.String(),
			"deadline":  a.Deadline.String(),
			"witness":   map[string]any{"to": a.To.Hex(), "facilitator": common.Address(a.Facilitator).Hex(), "validAfter": a.ValidAfter.String()},
		},
	})
	if err != nil {
		return "", err
	}
	return x402.EncodeBase64JSON(x402.PaymentPayloadV2{X402Version: x402.Version2, Resource: resource, Accepted: accepted, Payload: payload})
}
