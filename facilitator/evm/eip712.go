package evm

import (
	"errors"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/math"
	"github.com/ethereum/go-ethereum/signer/core/apitypes"
)

// Domain is a token's EIP-712 domain. A signature binds all four fields, so
// a payment for one chain or token is worthless on another.
type Domain struct {
	Name              string
	Version           string
	ChainID           *big.Int
	VerifyingContract common.Address
}

// DomainTypes is the EIP712Domain type of a Domain (name, version,
// chainId, verifyingContract), for the typed data of any message signed
// under it.
var DomainTypes = []apitypes.Type{
	{Name: "name", Type: "string"},
	{Name: "version", Type: "string"},
	{Name: "chainId", Type: "uint256"},
	{Name: "verifyingContract", Type: "address"},
}

// TypedDataDomain is d as go-ethereum's typed-data domain.
func (d Domain) TypedDataDomain() apitypes.TypedDataDomain {
	return apitypes.TypedDataDomain{
		Name:              d.Name,
		Version:           d.Version,
		ChainId:           (*math.HexOrDecimal256)(d.ChainID),
		VerifyingContract: d.VerifyingContract.Hex(),
	}
}

// DomainSeparator is d's EIP-712 domain separator, as a token's
// DOMAIN_SEPARATOR() gives it.
func DomainSeparator(d Domain) (common.Hash, error) {
	if d.ChainID == nil {
		return common.Hash{}, errors.New("EIP-712 domain without chain ID")
	}
	td := apitypes.TypedData{Types: apitypes.Types{"EIP712Domain": DomainTypes}, Domain: d.TypedDataDomain()}
	sep, err := td.HashStruct("EIP712Domain", td.Domain.Map())
	if err != nil {
		return common.Hash{}, fmt.Errorf("hashing the EIP-712 domain: %w", err)
	}
	return common.BytesToHash(sep), nil
}
