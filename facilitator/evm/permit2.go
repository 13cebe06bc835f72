package evm

import (
	"crypto/ecdsa"
	"errors"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/math"
	"github.com/ethereum/go-ethereum/signer/core/apitypes"
)

// Canonical addresses of the Permit2 contracts x402 uses, the same on every
// chain that has them (deployed through the CREATE2 deployer
// 0x4e59b44847b379578588920cA78FbF26c0B4956C).
var (
	// Permit2Address is Uniswap's Permit2.
	Permit2Address = common.HexToAddress("0x000000000022D473030F116dDEE9F6B43aC78BA3")
	// ExactPermit2ProxyAddress is x402ExactPermit2Proxy, the spender of an
	// exact payment through Permit2.
	ExactPermit2ProxyAddress = common.HexToAddress("0x402085c248EeA27D92E8b30b2C58ed07f9E20001")
	// UptoPermit2ProxyAddress is x402UptoPermit2Proxy, the spender of an
	// upto payment.
	UptoPermit2ProxyAddress = common.HexToAddress("0x4020A4f3b7b90ccA423B9fabCc0CE57C6C240002")
)

// Permit2Proxy is the x402 proxy a Permit2 payment is for; it decides the
// witness the buyer signs.
type Permit2Proxy int

const (
	// ExactPermit2 is x402ExactPermit2Proxy: the whole permitted amount
	// moves; witness Witness(address to,uint256 validAfter).
	ExactPermit2 Permit2Proxy = iota + 1
	// UptoPermit2 is x402UptoPermit2Proxy: at most the permitted amount
	// moves, settled by the witness's facilitator only; witness
	// Witness(address to,address facilitator,uint256 validAfter).
	UptoPermit2
)

// The witness type strings the proxies pass to Permit2's
// permitWitnessTransferFrom (their WITNESS_TYPE_STRING): the end of the
// PermitWitnessTransferFrom type, then the referenced types in EIP-712
// order.
const (
	ExactWitnessTypeString = "Witness witness)TokenPermissions(address token,uint256 amount)Witness(address to,uint256 validAfter)"
	UptoWitnessTypeString  = "Witness witness)TokenPermissions(address token,uint256 amount)Witness(address to,address facilitator,uint256 validAfter)"
)

// String names the proxy as the x402 schemes do.
func (p Permit2Proxy) String() string {
	switch p {
	case ExactPermit2:
		return "exact"
	case UptoPermit2:
		return "upto"
	}
	return fmt.Sprintf("Permit2Proxy(%d)", int(p))
}

// Address is the proxy's canonical address, the spender the buyer signs.
func (p Permit2Proxy) Address() common.Address {
	if p == UptoPermit2 {
		return UptoPermit2ProxyAddress
	}
	if p == ExactPermit2 {
		return ExactPermit2ProxyAddress
	}
	return common.Address{}
}

// WitnessTypeString is the proxy's WITNESS_TYPE_STRING.
func (p Permit2Proxy) WitnessTypeString() string {
	if p == UptoPermit2 {
		return UptoWitnessTypeString
	}
	if p == ExactPermit2 {
		return ExactWitnessTypeString
	}
	return ""
}

// Permit2Authorization is what a buyer signs for a payment through a
// Permit2 proxy: Permit2's PermitWitnessTransferFrom with the proxy's
// witness (the payload's permit2Authorization in x402).
type Permit2Authorization struct {
	// From is the owner of the tokens, the signer.
	From common.Address
	// Token and Amount are permitted.token and permitted.amount: for upto
	// the maximum, for exact the price.
	Token  common.Address
	Amount *big.Int
	// Spender is the proxy that may spend the permit.
	Spender common.Address
	// Nonce is a Permit2 unordered nonce (word nonce>>8, bit nonce&0xff).
	Nonce *big.Int
	// Deadline is the last Unix second the permit can be spent in.
	Deadline *big.Int
	// To is witness.to, the payee.
	To common.Address
	// Facilitator is witness.facilitator (upto only; zero for exact): the
	// one address that may settle.
	Facilitator common.Address
	// ValidAfter is witness.validAfter: no settle before this Unix second.
	ValidAfter *big.Int
}

// permit2Types are the EIP-712 types of a witness transfer for each proxy,
// as the x402 clients declare them.
func permit2Types(p Permit2Proxy) apitypes.Types {
	witness := []apitypes.Type{{Name: "to", Type: "address"}}
	if p == UptoPermit2 {
		witness = append(witness, apitypes.Type{Name: "facilitator", Type: "address"})
	}
	witness = append(witness, apitypes.Type{Name: "validAfter", Type: "uint256"})
	return apitypes.Types{
		"EIP712Domain": {
			{Name: "name", Type: "string"},
			{Name: "chainId", Type: "uint256"},
			{Name: "verifyingContract", Type: "address"},
		},
		"PermitWitnessTransferFrom": {
			{Name: "permitted", Type: "TokenPermissions"},
			{Name: "spender", Type: "address"},
			{Name: "nonce", Type: "uint256"},
			{Name: "deadline", Type: "uint256"},
			{Name: "witness", Type: "Witness"},
		},
		"TokenPermissions": {
			{Name: "token", Type: "address"},
			{Name: "amount", Type: "uint256"},
		},
		"Witness": witness,
	}
}

func uint256OK(v *big.Int) bool { return v != nil && v.Sign() >= 0 && v.BitLen() <= 256 }

// check refuses what cannot be signed or settled: an unknown proxy, a
// number missing or outside uint256, a facilitator in an exact witness.
func (a *Permit2Authorization) check(p Permit2Proxy) error {
	if p != ExactPermit2 && p != UptoPermit2 {
		return fmt.Errorf("unknown Permit2 proxy %d", int(p))
	}
	for _, f := range []struct {
		name string
		v    *big.Int
	}{{"amount", a.Amount}, {"nonce", a.Nonce}, {"deadline", a.Deadline}, {"validAfter", a.ValidAfter}} {
		if !uint256OK(f.v) {
			return fmt.Errorf("Permit2 authorization %s missing or out of the uint256 range", f.name)
		}
	}
	if p == ExactPermit2 && a.Facilitator != (common.Address{}) {
		return errors.New("an exact Permit2 witness has no facilitator")
	}
	return nil
}

// Permit2TypedData is the EIP-712 typed data of a Permit2 witness transfer
// through proxy p on chain chainID, as the x402 clients ask a wallet to sign
// it: domain {name "Permit2", chainId, verifyingContract Permit2Address}
// (no version), primary type PermitWitnessTransferFrom.
func Permit2TypedData(p Permit2Proxy, chainID *big.Int, a Permit2Authorization) (apitypes.TypedData, error) {
	if err := a.check(p); err != nil {
		return apitypes.TypedData{}, err
	}
	if chainID == nil || chainID.Sign() <= 0 {
		return apitypes.TypedData{}, errors.New("Permit2 domain without a chain ID")
	}
	return apitypes.TypedData{
		Types:       permit2Types(p),
		PrimaryType: "PermitWitnessTransferFrom",
		Domain: apitypes.TypedDataDomain{
			Name:              "Permit2",
			ChainId:           (*math.HexOrDecimal256)(chainID),
			VerifyingContract: Permit2Address.Hex(),
		},
		Message: apitypes.TypedDataMessage{
			// Nested structs must be plain maps for go-ethereum's encoder.
			"permitted": map[string]any{"token": a.Token.Hex(), "amount": a.Amount},
			"spender":   a.Spender.Hex(),
			"nonce":     a.Nonce,
			"deadline":  a.Deadline,
			"witness":   map[string]any(witnessMessage(p, a)),
		},
	}, nil
}

func witnessMessage(p Permit2Proxy, a Permit2Authorization) apitypes.TypedDataMessage {
	w := apitypes.TypedDataMessage{"to": a.To.Hex(), "validAfter": a.ValidAfter}
	if p == UptoPermit2 {
		w["facilitator"] = a.Facilitator.Hex()
	}
	return w
}

// Permit2Digest is the EIP-712 hash the buyer signs and Permit2 recovers
// the signer from.
func Permit2Digest(p Permit2Proxy, chainID *big.Int, a Permit2Authorization) (common.Hash, error) {
	td, err := Permit2TypedData(p, chainID, a)
	if err != nil {
		return common.Hash{}, err
	}
	digest, _, err := apitypes.TypedDataAndHash(td)
	if err != nil {
		return common.Hash{}, fmt.Errorf("hashing Permit2 typed data: %w", err)
	}
	return common.BytesToHash(digest), nil
}

// Permit2WitnessHash is the witness argument the proxy passes to Permit2:
// the EIP-712 struct hash of the Witness.
func Permit2WitnessHash(p Permit2Proxy, a Permit2Authorization) (common.Hash, error) {
	if err := a.check(p); err != nil {
		return common.Hash{}, err
	}
	// The domain takes no part in a struct hash, but go-ethereum refuses
	// typed data without one.
	td := apitypes.TypedData{Types: permit2Types(p), Domain: apitypes.TypedDataDomain{Name: "Permit2"}}
	h, err := td.HashStruct("Witness", witnessMessage(p, a))
	if err != nil {
		return common.Hash{}, fmt.Errorf("hashing the Permit2 witness: %w", err)
	}
	return common.BytesToHash(h), nil
}

// Permit2DomainSeparator is Permit2's DOMAIN_SEPARATOR() on chain chainID.
func Permit2DomainSeparator(chainID *big.Int) (common.Hash, error) {
	td, err := Permit2TypedData(ExactPermit2, chainID, Permit2Authorization{Amount: new(big.Int), Nonce: new(big.Int), Deadline: new(big.Int), ValidAfter: new(big.Int)})
	if err != nil {
		return common.Hash{}, err
	}
	sep, err := td.HashStruct("EIP712Domain", td.Domain.Map())
	if err != nil {
		return common.Hash{}, fmt.Errorf("hashing the Permit2 domain: %w", err)
	}
	return common.BytesToHash(sep), nil
}

// SignPermit2 signs a Permit2 witness transfer with the buyer's key and
// returns the 65-byte r||s||v signature with v as 27 or 28, as wallets (and
// the x402 clients) produce it.
func SignPermit2(key *ecdsa.PrivateKey, p Permit2Proxy, chainID *big.Int, a Permit2Authorization) ([]byte, error) {
	digest, err := Permit2Digest(p, chainID, a)
	if err != nil {
		return nil, err
	}
	return SignDigest(key, digest)
}
