package offerreceipt

import (
	"errors"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/common/math"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/signer/core/apitypes"
)

// The EIP-712 domains: name and version fixed by the spec, chainId 1
// whatever network the payment is on (§3.2), no verifying contract. The
// charge domain is this package's addition (see the package doc).
const (
	offerDomain   = "x402 offer"
	receiptDomain = "x402 receipt"
	chargeDomain  = "x402 charge"
)

var domainTypes = []apitypes.Type{
	{Name: "name", Type: "string"},
	{Name: "version", Type: "string"},
	{Name: "chainId", Type: "uint256"},
}

// offerTypes is the spec's Offer (§4.3), in its order.
var offerTypes = []apitypes.Type{
	{Name: "version", Type: "uint256"},
	{Name: "resourceUrl", Type: "string"},
	{Name: "scheme", Type: "string"},
	{Name: "network", Type: "string"},
	{Name: "asset", Type: "string"},
	{Name: "payTo", Type: "string"},
	{Name: "amount", Type: "string"},
	{Name: "validUntil", Type: "uint256"},
}

// receiptTypes is the spec's Receipt (§5.3), in its order.
var receiptTypes = []apitypes.Type{
	{Name: "version", Type: "uint256"},
	{Name: "network", Type: "string"},
	{Name: "resourceUrl", Type: "string"},
	{Name: "payer", Type: "string"},
	{Name: "issuedAt", Type: "uint256"},
	{Name: "transaction", Type: "string"},
}

// chargeTypes is the Charge this package signs beside an EIP-712 receipt:
// the receipt's fields (so it stands alone), then what was charged.
var chargeTypes = append(append([]apitypes.Type(nil), receiptTypes...),
	apitypes.Type{Name: "scheme", Type: "string"},
	apitypes.Type{Name: "asset", Type: "string"},
	apitypes.Type{Name: "payTo", Type: "string"},
	apitypes.Type{Name: "amount", Type: "string"},
	apitypes.Type{Name: "maxAmount", Type: "string"},
	apitypes.Type{Name: "usage", Type: "string"},
	apitypes.Type{Name: "channel", Type: "string"},
	apitypes.Type{Name: "chargedCumulative", Type: "string"},
)

// typedHash is the EIP-712 digest of msg as primary under the domain
// named domain (version "1", chainId 1).
func typedHash(domain, primary string, fields []apitypes.Type, msg apitypes.TypedDataMessage) ([]byte, error) {
	td := apitypes.TypedData{
		Types:       apitypes.Types{"EIP712Domain": domainTypes, primary: fields},
		PrimaryType: primary,
		Domain:      apitypes.TypedDataDomain{Name: domain, Version: "1", ChainId: math.NewHexOrDecimal256(1)},
		Message:     msg,
	}
	hash, _, err := apitypes.TypedDataAndHash(td)
	if err != nil {
		return nil, fmt.Errorf("hashing the %s typed data: %w", primary, err)
	}
	return hash, nil
}

// signTyped signs an EIP-712 digest: 65 bytes r||s||v with v 27 or 28, as
// wallets and viem give it, 0x-hex.
func (k *Key) signTyped(hash []byte) (string, error) {
	sig, err := crypto.Sign(hash, k.priv)
	if err != nil {
		return "", fmt.Errorf("signing the typed data: %w", err)
	}
	sig[64] += 27
	return hexutil.Encode(sig), nil
}

// recoverTyped is the address that signed hash with sig (0x-hex, 65
// bytes, v 27/28 or 0/1).
func recoverTyped(hash []byte, sig string) (common.Address, error) {
	raw, err := hexutil.Decode(sig)
	if err != nil {
		return common.Address{}, fmt.Errorf("signature is not 0x-hex: %w", err)
	}
	if len(raw) != 65 {
		return common.Address{}, fmt.Errorf("signature is %d bytes, EIP-712 signs 65", len(raw))
	}
	raw = append([]byte(nil), raw...)
	if raw[64] >= 27 {
		raw[64] -= 27
	}
	if raw[64] > 1 {
		return common.Address{}, errors.New("signature has an invalid recovery id")
	}
	pub, err := crypto.SigToPub(hash, raw)
	if err != nil {
		return common.Address{}, fmt.Errorf("recovering the signer: %w", err)
	}
	return crypto.PubkeyToAddress(*pub), nil
}

func u256(n int64) *math.HexOrDecimal256 { return (*math.HexOrDecimal256)(big.NewInt(n)) }
