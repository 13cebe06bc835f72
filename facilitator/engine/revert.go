package engine

import (
	"context"
	"math/big"
	"sync"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

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

// payerHoldNonce is the authorization nonce under which a payer's one
// settlement in flight is held (HoldPayer): a hold like an
// authorization's, in this process and in the shared journal, so that it
// holds across instances and goes with a dead instance's lease. A buyer
// who signs an authorization with this very nonce can only delay its own
// payments.
var payerHoldNonce = [32]byte(crypto.Keccak256([]byte("caddy-x402: one settlement in flight per payer")))

// HoldPayer holds the payer for one settlement: false when another
// settlement of the payer holds it (in this process or, with a shared
// journal, at another instance). An error means the shared journal could
// not be asked; nothing is held then. A payer held for a Job that is
// submitted (Job.PayerHeld) is given back with the settlement's outcome
// (for a revert, by Revert.Release); otherwise the caller gives it back
// with ReleasePayer.
func (e *Engine) HoldPayer(ctx context.Context, from common.Address) (bool, error) {
	return e.Claim(ctx, from, payerHoldNonce)
}

// ReleasePayer gives back a payer held with HoldPayer whose settlement
// was not submitted.
func (e *Engine) ReleasePayer(from common.Address) {
	e.Release(from, payerHoldNonce)
}

// revertOf is the Revert of a settlement whose transaction r reverted.
func revertOf(r *receipt, used bool) *Revert {
	rv := &Revert{GasUsed: uint64(r.GasUsed), AuthorizationUsed: used}
	if r.EffectiveGasPrice != nil {
		rv.GasPrice = r.EffectiveGasPrice.ToInt()
	}
	return rv
}

// reverted tells the active engine's Config.Reverted of the reverted
// settlements among sts, once their outcomes are journaled. A settlement
// that held its payer hands the hold over to the Revert (without a
// receiver, it is given back at once).
func (w *watcher) reverted(sts []*settlement) {
	e := w.e()
	for _, st := range sts {
		rv := st.revert
		if rv == nil {
			continue
		}
		rv.Record = st.snapshot()
		if st.payerHold {
			from := st.key.from
			rv.PayerHeld, rv.release = true, func() { e.ReleasePayer(from) }
		}
		if e.cfg.Reverted == nil {
			rv.Release()
			continue
		}
		e.cfg.Reverted(rv)
	}
}
