package evm

import (
	"crypto/ecdsa"
	"errors"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/accounts/abi"
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

var structArgs = func() abi.Arguments {
	mk := func(t string) abi.Argument {
		typ, err := abi.NewType(t, "", nil)
		if err != nil {
			panic(err)
		}
		return abi.Argument{Type: typ}
	}
	return abi.Arguments{mk("bytes32"), mk("address"), mk("address"), mk("uint256"), mk("uint256"), mk("uint256"), mk("bytes32")}
}()

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

// Digest is the EIP-712 hash the buyer signs.
func (h *Hasher) Digest(a *x402.Authorization) (common.Hash, error) {
	enc, err := structArgs.Pack(typeHash, a.From, a.To, a.Value, a.ValidAfter, a.ValidBefore, a.Nonce)
	if err != nil {
		return common.Hash{}, err
	}
	structHash := crypto.Keccak256(enc)
	return crypto.Keccak256Hash(h.prefix, structHash), nil
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
