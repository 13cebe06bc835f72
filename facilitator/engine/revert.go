package engine

import (
	"math/big"
	"sync"

	"github.com/caddy-x402/caddy-x402/facilitator/store"
)

// Reverted settlements, and one settlement in flight per payer.
//
// A transaction that passed its simulation (the verify's eth_call, the
// settle's gas estimate) can still revert once mined: a payer whose
// balance moved in between, or a smart-contract wallet whose
// isValidSignature answers otherwise in a mined transaction than in a
// simulation. The gas is the facilitator's either way. The engine tells
// its Config.Reverted of every such revert, with the gas it cost, so that
// the facilitator can count it and refuse the payer for a while; and it
// holds a payer (HoldPayer) to one settlement in flight, for payers whose
// signatures only the chain can check.

// Revert is a settlement whose transaction was mined and reverted.
type Revert struct {
	// Record is the settlement's final record (TxHash and BlockNumber
	// name the reverted transaction).
	Record *store.Record
	// GasUsed is the gas the transaction used, and GasPrice what each unit
	// cost (the receipt's effectiveGasPrice; nil when the node gave none).
	GasUsed  uint64
	GasPrice *big.Int
	// AuthorizationUsed is true when the authorization was used on chain
	// anyway (by another transaction, first): the money moved, the revert
	// is no fault of the payer's.
	AuthorizationUsed bool
	// PayerHeld is true when the settlement held its payer (Job.PayerHeld).
	// The hold is then given back by Release, which the receiver of the
	// Revert must call once it has acted on it (so that the payer's next
	// settlement sees what it did); the engine does not give it back.
	PayerHeld bool

	release func()
	once    sync.Once
}

// Release gives back the payer's hold of a reverted settlement that held
// its payer (PayerHeld); otherwise, and after the first call, it does
// nothing.
func (r *Revert) Release() {
	if r.release != nil {
		r.once.Do(r.release)
	}
}

// revertOf is the Revert of a settlement whose transaction r reverted.
func revertOf(r *receipt, used bool) *Revert {
	rv := &Revert{GasUsed: uint64(r.GasUsed), AuthorizationUsed: used}
	if r.EffectiveGasPrice != nil {
		rv.GasPrice = r.EffectiveGasPrice.ToInt()
	}
	return rv
}
