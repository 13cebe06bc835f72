package doctor_test

import (
	"errors"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/caddy-x402/caddy-x402/facilitator/doctor"
	"github.com/caddy-x402/caddy-x402/facilitator/evm"
)

// TestCheckDomain: each field that differs is named with what the token
// says and what the configuration says; an empty configured field is the
// token's; a separator no field explains is named with both hashes.
func TestCheckDomain(t *testing.T) {
	token := common.HexToAddress("0xc01efAaF7C5C61bEbFAeb358E1161b537b8bC0e0")
	other := common.HexToAddress("0x1111111111111111111111111111111111111111")
	chain := big.NewInt(338)
	d := evm.Domain{Name: "Bridged USDC (Stargate)", Version: "1", ChainID: chain, VerifyingContract: token}
	sep, err := evm.DomainSeparator(d)
	if err != nil {
		t.Fatal(err)
	}
	fiat := func() *doctor.TokenDomain {
		return &doctor.TokenDomain{HasCode: true, ChainID: chain, Name: d.Name, Version: d.Version, Separator: sep}
	}
	type want struct {
		status                 doctor.Status
		subject, token, config string
	}
	for _, tc := range []struct {
		name string
		cfg  evm.Domain
		td   func() *doctor.TokenDomain
		want []want
	}{
		{"matches", d, fiat, []want{{doctor.OK, "domain", "", ""}}},
		{"read from the token", evm.Domain{ChainID: chain, VerifyingContract: token}, fiat, []want{{doctor.OK, "domain", "", ""}}},
		{"version differs", evm.Domain{Name: d.Name, Version: "2", ChainID: chain, VerifyingContract: token}, fiat,
			[]want{{doctor.Missing, "version", "1", "2"}}},
		{"name and version differ", evm.Domain{Name: "USD Coin", Version: "2", ChainID: chain, VerifyingContract: token}, fiat,
			[]want{{doctor.Missing, "name", "Bridged USDC (Stargate)", "USD Coin"}, {doctor.Missing, "version", "1", "2"}}},
		{"chain differs", evm.Domain{Name: d.Name, Version: "1", ChainID: big.NewInt(25), VerifyingContract: token}, fiat,
			[]want{{doctor.Missing, "chainId", "338", "25"}}},
		{"EIP-5267 names another contract", d, func() *doctor.TokenDomain {
			td := fiat()
			td.EIP5267 = &evm.Domain{Name: d.Name, Version: "1", ChainID: chain, VerifyingContract: other}
			return td
		}, []want{{doctor.Missing, "verifyingContract", other.Hex(), token.Hex()}}},
		{"EIP-5267's version wins over version()", d, func() *doctor.TokenDomain {
			td := fiat()
			td.EIP5267 = &evm.Domain{Name: d.Name, Version: "2", ChainID: chain, VerifyingContract: token}
			return td
		}, []want{{doctor.Missing, "version", "2", "1"}}},
		{"no version() and none configured", evm.Domain{Name: d.Name, ChainID: chain, VerifyingContract: token}, func() *doctor.TokenDomain {
			td := fiat()
			td.Version, td.VersionErr = "", errors.New("execution reverted")
			return td
		}, []want{{doctor.Missing, "version", "", ""}}},
		{"separator differs", d, func() *doctor.TokenDomain {
			td := fiat()
			td.Separator = common.HexToHash("0x01")
			return td
		}, []want{{doctor.Missing, "domain", common.HexToHash("0x01").Hex(), sep.Hex()}}},
		{"separator unreadable", d, func() *doctor.TokenDomain {
			td := fiat()
			td.SeparatorErr = errors.New("execution reverted")
			return td
		}, []want{{doctor.Warning, "domain", "", ""}}},
		{"no token", d, func() *doctor.TokenDomain { return &doctor.TokenDomain{ChainID: chain} },
			[]want{{doctor.Missing, "token " + token.Hex(), "", ""}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := doctor.CheckDomain("cronos-testnet", tc.cfg, tc.td())
			if len(got) != len(tc.want) {
				t.Fatalf("findings %+v, want %d", got, len(tc.want))
			}
			for i, w := range tc.want {
				g := got[i]
				if g.Status != w.status || g.Subject != w.subject || g.Token != w.token || g.Config != w.config || g.Scheme != doctor.AllSchemes {
					t.Errorf("finding %d = %+v, want %+v", i, g, w)
				}
				if g.Status != doctor.OK && g.Fix == "" {
					t.Errorf("finding %d has no fix: %+v", i, g)
				}
			}
		})
	}
}

// TestCheckGas: a signer under one settlement's gas is missing (a warning
// when another signer settles), under LowSettlements a warning, each with
// its balance.
func TestCheckGas(t *testing.T) {
	a := common.HexToAddress("0xa")
	b := common.HexToAddress("0xb")
	price := big.NewInt(1000) // one settlement needs 150,000,000 wei
	need := new(big.Int).Mul(price, big.NewInt(doctor.MinGasUnits))
	mul := func(n int64) *big.Int { return new(big.Int).Mul(need, big.NewInt(n)) }
	for _, tc := range []struct {
		name string
		bals []*big.Int
		want []doctor.Status
	}{
		{"funded", []*big.Int{mul(doctor.LowSettlements)}, []doctor.Status{doctor.OK}},
		{"low", []*big.Int{mul(doctor.LowSettlements - 1)}, []doctor.Status{doctor.Warning}},
		{"one settlement exactly", []*big.Int{need}, []doctor.Status{doctor.Warning}},
		{"empty", []*big.Int{big.NewInt(0)}, []doctor.Status{doctor.Missing}},
		{"just under one settlement", []*big.Int{new(big.Int).Sub(need, big.NewInt(1))}, []doctor.Status{doctor.Missing}},
		{"empty beside a funded one", []*big.Int{big.NewInt(0), mul(200)}, []doctor.Status{doctor.Warning, doctor.OK}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			signers := []common.Address{a, b}[:len(tc.bals)]
			g := &doctor.Gas{Price: price, Balances: tc.bals, Errs: make([]error, len(tc.bals))}
			got := doctor.CheckGas("n", signers, g, nil)
			for i, f := range got {
				if f.Status != tc.want[i] || f.Balance != tc.bals[i].String() || f.Need != need.String() || f.Address != signers[i].Hex() {
					t.Errorf("finding %d = %+v, want %s with balance %s", i, f, tc.want[i], tc.bals[i])
				}
			}
		})
	}
}
