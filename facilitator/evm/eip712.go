package evm

import (
	"crypto/ecdsa"
	"errors"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/math"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/signer/core/apitypes"

	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// Domain is a token's EIP-712 domain. A signature binds all four fields, so
// a payment for one chain or token is worthless on another.
type Domain struct {
	Name              string
	Version           string
	ChainID           *big.Int
	VerifyingContract common.Address
}

// eip712Types are the typed-data types of an EIP-3009 transfer.
var eip712Types = apitypes.Types{
	"EIP712Domain": {
		{Name: "name", Type: "string"},
		{Name: "version", Type: "string"},
		{Name: "chainId", Type: "uint256"},
		{Name: "verifyingContract", Type: "address"},
	},
	"TransferWithAuthorization": {
		{Name: "from", Type: "address"},
		{Name: "to", Type: "address"},
		{Name: "value", Type: "uint256"},
		{Name: "validAfter", Type: "uint256"},
		{Name: "validBefore", Type: "uint256"},
		{Name: "nonce", Type: "bytes32"},
	},
}

const primaryType = "TransferWithAuthorization"

// TypedData returns the EIP-712 typed data of an authorization, as a wallet
// would be asked to sign it (eth_signTypedData_v4).
func TypedData(d Domain, a x402.Authorization) apitypes.TypedData {
	return apitypes.TypedData{
		Types:       eip712Types,
		PrimaryType: primaryType,
		Domain: apitypes.TypedDataDomain{
			Name:              d.Name,
			Version:           d.Version,
			ChainId:           (*math.HexOrDecimal256)(d.ChainID),
			VerifyingContract: d.VerifyingContract.Hex(),
		},
		Message: apitypes.TypedDataMessage{
			"from":        a.From.Hex(),
			"to":          a.To.Hex(),
			"value":       a.Value,
			"validAfter":  a.ValidAfter,
			"validBefore": a.ValidBefore,
			"nonce":       a.Nonce[:],
		},
	}
}

// Hasher computes EIP-712 digests of authorizations for one domain. The
// domain separator and the type hash are computed once by go-ethereum's
// typed-data code; the message is ABI-encoded with go-ethereum's ABI
// encoder, which is what EIP-712 encodeData is for these static types.
type Hasher struct {
	prefix []byte // 0x19 0x01 ‖ domainSeparator
}

var typeHash = common.BytesToHash((&apitypes.TypedData{Types: eip712Types}).TypeHash(primaryType))

// NewHasher prepares the digests of one domain.
func NewHasher(d Domain) (*Hasher, error) {
	if d.ChainID == nil {
		return nil, errors.New("EIP-712 domain without chain ID")
	}
	td := TypedData(d, x402.Authorization{})
	sep, err := td.HashStruct("EIP712Domain", td.Domain.Map())
	if err != nil {
		return nil, fmt.Errorf("hashing the EIP-712 domain: %w", err)
	}
	return &Hasher{prefix: append([]byte{0x19, 0x01}, sep...)}, nil
}

// Separator is the domain separator, as the token's DOMAIN_SEPARATOR()
// gives it.
func (h *Hasher) Separator() common.Hash { return common.BytesToHash(h.prefix[2:]) }

// Digest is the EIP-712 hash the buyer signs. EIP-712 encodeData of these
// static fields is their 32-byte ABI words in order, written here into one
// buffer (what go-ethereum's ABI encoder gives, without its allocations:
// verify runs this on every request) and hashed with go-ethereum's keccak.
func (h *Hasher) Digest(a *x402.Authorization) (common.Hash, error) {
	// One buffer for both hashes' input: 0x19 0x01 ‖ separator ‖ structHash,
	// then the encoded struct.
	buf := new([2 + 32 + 32 + 7*32]byte)
	msg, enc := buf[:66], buf[66:]
	copy(enc[:32], typeHash[:])
	copy(enc[32+12:64], a.From[:])
	copy(enc[64+12:96], a.To[:])
	for i, v := range [3]*big.Int{a.Value, a.ValidAfter, a.ValidBefore} {
		if v == nil || v.Sign() < 0 || v.BitLen() > 256 {
			return common.Hash{}, errors.New("authorization value or validity out of the uint256 range")
		}
		v.FillBytes(enc[96+32*i : 128+32*i])
	}
	copy(enc[192:], a.Nonce[:])
	copy(msg, h.prefix)
	structHash := crypto.Keccak256Hash(enc)
	copy(msg[34:], structHash[:])
	return crypto.Keccak256Hash(msg), nil
}

// Recover returns the address that signed the authorization.
func (h *Hasher) Recover(a *x402.Authorization, sig []byte) (common.Address, error) {
	if len(sig) != crypto.SignatureLength {
		return common.Address{}, errors.New("signature is not 65 bytes")
	}
	d, err := h.Digest(a)
	if err != nil {
		return common.Address{}, err
	}
	rsv := make([]byte, crypto.SignatureLength)
	copy(rsv, sig)
	if rsv[64] >= 27 {
		rsv[64] -= 27
	}
	// Reject malleable (high-s) and malformed signatures, as the token does.
	r, s := new(big.Int).SetBytes(rsv[:32]), new(big.Int).SetBytes(rsv[32:64])
	if !crypto.ValidateSignatureValues(rsv[64], r, s, true) {
		return common.Address{}, errors.New("signature values out of range")
	}
	pub, err := crypto.Ecrecover(d[:], rsv)
	if err != nil {
		return common.Address{}, err
	}
	return common.BytesToAddress(crypto.Keccak256(pub[1:])[12:]), nil
}

// Digest returns the EIP-712 hash of an authorization under a domain.
func Digest(d Domain, a x402.Authorization) (common.Hash, error) {
	h, err := NewHasher(d)
	if err != nil {
		return common.Hash{}, err
	}
	return h.Digest(&a)
}

// SignAuthorization signs an authorization with the buyer's key and returns
// the 65-byte signature with v as 27 or 28, as wallets produce it.
func SignAuthorization(key *ecdsa.PrivateKey, d Domain, a x402.Authorization) ([]byte, error) {
	digest, err := Digest(d, a)
	if err != nil {
		return nil, err
	}
	sig, err := crypto.Sign(digest[:], key)
	if err != nil {
		return nil, err
	}
	sig[64] += 27
	return sig, nil
}
