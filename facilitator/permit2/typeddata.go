package permit2

import (
	"crypto/ecdsa"
	"errors"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/math"
	"github.com/ethereum/go-ethereum/signer/core/apitypes"

	"github.com/caddy-x402/caddy-x402/facilitator/evm"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// Canonical addresses of the Permit2 contracts x402 uses, the same on every
// chain that has them (deployed through the CREATE2 deployer
// 0x4e59b44847b379578588920cA78FbF26c0B4956C).
var (
	// Address is Uniswap's Permit2.
	Address = common.HexToAddress("0x000000000022D473030F116dDEE9F6B43aC78BA3")
	// ExactProxyAddress is x402ExactPermit2Proxy, the spender of an
	// exact payment through Permit2.
	ExactProxyAddress = common.HexToAddress("0x402085c248EeA27D92E8b30b2C58ed07f9E20001")
	// UptoProxyAddress is x402UptoPermit2Proxy, the spender of an
	// upto payment.
	UptoProxyAddress = common.HexToAddress("0x4020A4f3b7b90ccA423B9fabCc0CE57C6C240002")
)

// Proxy is the x402 proxy a Permit2 payment is for; it decides the
// witness the buyer signs.
type Proxy int

const (
	// ExactProxy is x402ExactPermit2Proxy: the whole permitted amount
	// moves; witness Witness(address to,uint256 validAfter).
	ExactProxy Proxy = iota + 1
	// UptoProxy is x402UptoPermit2Proxy: at most the permitted amount
	// moves, settled by the witness's facilitator only; witness
	// Witness(address to,address facilitator,uint256 validAfter).
	UptoProxy
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
func (p Proxy) String() string {
	switch p {
	case ExactProxy:
		return x402.SchemeExact
	case UptoProxy:
		return x402.SchemeUpto
	}
	return fmt.Sprintf("Proxy(%d)", int(p))
}

// Address is the proxy's canonical address, the spender the buyer signs.
func (p Proxy) Address() common.Address {
	if p == UptoProxy {
		return UptoProxyAddress
	}
	if p == ExactProxy {
		return ExactProxyAddress
	}
	return common.Address{}
}

// WitnessTypeString is the proxy's WITNESS_TYPE_STRING.
func (p Proxy) WitnessTypeString() string {
	if p == UptoProxy {
		return UptoWitnessTypeString
	}
	if p == ExactProxy {
		return ExactWitnessTypeString
	}
	return ""
}

// Authorization is what a buyer signs for a payment through a
// Permit2 proxy: Permit2's PermitWitnessTransferFrom with the proxy's
// witness (the payload's permit2Authorization in x402).
type Authorization struct {
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
func permit2Types(p Proxy) apitypes.Types {
	witness := []apitypes.Type{{Name: "to", Type: "address"}}
	if p == UptoProxy {
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
func (a *Authorization) check(p Proxy) error {
	if p != ExactProxy && p != UptoProxy {
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
	if p == ExactProxy && a.Facilitator != (common.Address{}) {
		return errors.New("an exact Permit2 witness has no facilitator")
	}
	return nil
}

// TypedData is the EIP-712 typed data of a Permit2 witness transfer
// through proxy p on chain chainID, as the x402 clients ask a wallet to sign
// it: domain {name "Permit2", chainId, verifyingContract Address}
// (no version), primary type PermitWitnessTransferFrom.
func TypedData(p Proxy, chainID *big.Int, a Authorization) (apitypes.TypedData, error) {
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
			VerifyingContract: Address.Hex(),
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

func witnessMessage(p Proxy, a Authorization) apitypes.TypedDataMessage {
	w := apitypes.TypedDataMessage{"to": a.To.Hex(), "validAfter": a.ValidAfter}
	if p == UptoProxy {
		w["facilitator"] = a.Facilitator.Hex()
	}
	return w
}

// Digest is the EIP-712 hash the buyer signs and Permit2 recovers
// the signer from.
func Digest(p Proxy, chainID *big.Int, a Authorization) (common.Hash, error) {
	td, err := TypedData(p, chainID, a)
	if err != nil {
		return common.Hash{}, err
	}
	digest, _, err := apitypes.TypedDataAndHash(td)
	if err != nil {
		return common.Hash{}, fmt.Errorf("hashing Permit2 typed data: %w", err)
	}
	return common.BytesToHash(digest), nil
}

// WitnessHash is the witness argument the proxy passes to Permit2:
// the EIP-712 struct hash of the Witness.
func WitnessHash(p Proxy, a Authorization) (common.Hash, error) {
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

// DomainSeparator is Permit2's DOMAIN_SEPARATOR() on chain chainID.
func DomainSeparator(chainID *big.Int) (common.Hash, error) {
	td, err := TypedData(ExactProxy, chainID, Authorization{Amount: new(big.Int), Nonce: new(big.Int), Deadline: new(big.Int), ValidAfter: new(big.Int)})
	if err != nil {
		return common.Hash{}, err
	}
	sep, err := td.HashStruct("EIP712Domain", td.Domain.Map())
	if err != nil {
		return common.Hash{}, fmt.Errorf("hashing the Permit2 domain: %w", err)
	}
	return common.BytesToHash(sep), nil
}

// Sign signs a Permit2 witness transfer with the buyer's key and
// returns the 65-byte r||s||v signature with v as 27 or 28, as wallets (and
// the x402 clients) produce it.
func Sign(key *ecdsa.PrivateKey, p Proxy, chainID *big.Int, a Authorization) ([]byte, error) {
	digest, err := Digest(p, chainID, a)
	if err != nil {
		return nil, err
	}
	return evm.SignDigest(key, digest)
}
