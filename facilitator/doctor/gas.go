package doctor

import (
	"context"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/rpc"
)

// MinGasUnits is the gas a signer must be able to pay for at the current
// gas price to count as funded: one transfer with room to spare.
const MinGasUnits = 150_000

// LowSettlements is how many settlements' gas a signer should hold: under
// it CheckGas warns.
const LowSettlements = 100

// Gas is the gas price and the signers' balances, read together.
type Gas struct {
	// Price is eth_gasPrice.
	Price *big.Int
	// Balances are the signers' balances in wei, in order; nil where the
	// chain refused the read (Errs).
	Balances []*big.Int
	Errs     []error
}

// ReadGas reads the gas price and the signers' balances in one batch. An
// error means no gas price (the balances say nothing without it).
func ReadGas(ctx context.Context, b Batcher, signers []common.Address) (*Gas, error) {
	var price hexutil.Big
	bals := make([]hexutil.Big, len(signers))
	elems := []rpc.BatchElem{{Method: "eth_gasPrice", Result: &price}}
	for i, s := range signers {
		elems = append(elems, rpc.BatchElem{Method: "eth_getBalance", Args: []any{s, "latest"}, Result: &bals[i]})
	}
	if err := b.Batch(ctx, elems); err != nil {
		return nil, err
	}
	if elems[0].Error != nil {
		return nil, fmt.Errorf("eth_gasPrice: %w", elems[0].Error)
	}
	g := &Gas{Price: (*big.Int)(&price), Balances: make([]*big.Int, len(signers)), Errs: make([]error, len(signers))}
	for i := range signers {
		if g.Errs[i] = elems[i+1].Error; g.Errs[i] == nil {
			g.Balances[i] = (*big.Int)(&bals[i])
		}
	}
	return g, nil
}

// Need is the balance one settlement needs: MinGasUnits at the price.
func (g *Gas) Need() *big.Int { return new(big.Int).Mul(g.Price, big.NewInt(MinGasUnits)) }

// CanSettle says whether signer i can pay for one settlement; known is
// false when its balance was not read.
func (g *Gas) CanSettle(i int) (ok, known bool) {
	if g.Balances[i] == nil {
		return false, false
	}
	return g.Balances[i].Cmp(g.Need()) >= 0, true
}

// CheckGas gives one finding per signer: Missing when it cannot pay for
// one settlement and no other signer can (Warning when one can: its
// settlements are skipped), Warning under LowSettlements settlements,
// else OK; each with its balance. g and err
// are ReadGas's.
func CheckGas(network string, signers []common.Address, g *Gas, err error) []Finding {
	out := make([]Finding, len(signers))
	for i, s := range signers {
		f := Finding{Network: network, Scheme: AllSchemes, Check: KindSigner, Subject: "signer " + s.Hex(), Address: s.Hex()}
		if err != nil || g.Balances[i] == nil {
			e := err
			if e == nil {
				e = g.Errs[i]
			}
			f.Status, f.Detail, f.Fix = Unknown, "the chain did not answer its balance: "+e.Error(), "check the RPC endpoint and run again"
			out[i] = f
			continue
		}
		need := g.Need()
		bal := g.Balances[i]
		f.Balance, f.Need = bal.String(), need.String()
		low := new(big.Int).Mul(need, big.NewInt(LowSettlements))
		switch ok, _ := g.CanSettle(i); {
		case !ok:
			f.Status = Missing
			f.Detail = fmt.Sprintf("balance %s wei, under the %s wei one settlement needs (%d gas at %s wei)", bal, need, MinGasUnits, g.Price)
			f.Fix = fmt.Sprintf("send the chain's native coin to %s: at least %s wei, better %s wei (%d settlements)", s.Hex(), need, low, LowSettlements)
		case bal.Cmp(low) < 0:
			f.Status = Warning
			f.Detail = fmt.Sprintf("balance %s wei, enough for %s settlements at %s wei of gas price", bal, new(big.Int).Quo(bal, need), g.Price)
			f.Fix = fmt.Sprintf("top up %s to %s wei (%d settlements)", s.Hex(), low, LowSettlements)
		default:
			f.Status = OK
			f.Detail = fmt.Sprintf("balance %s wei, enough for %s settlements", bal, new(big.Int).Quo(bal, need))
		}
		out[i] = f
	}
	// One funded signer settles for the network: the others are skipped
	// until funded, a warning.
	for _, f := range out {
		if f.Status == OK || f.Status == Warning {
			for i := range out {
				if out[i].Status == Missing {
					out[i].Status = Warning
					out[i].Detail += "; the other signers settle meanwhile"
				}
			}
			break
		}
	}
	return out
}

// CheckSignerKeys is the finding of a network's signer keys when a scheme
// needs one (scheme, or AllSchemes for settling at all): Missing without.
func CheckSignerKeys(network, scheme string, n int) Finding {
	f := Finding{Network: network, Scheme: scheme, Check: KindSignerKey, Subject: "signer keys", Status: OK, Detail: fmt.Sprintf("%d signer key(s)", n)}
	if n == 0 {
		f.Status = Missing
		f.Detail = "the network has no signer key: it can verify payments but not settle them"
		f.Fix = "give the network a signer_key {env.NAME} (a funded key of this chain)"
	}
	return f
}
