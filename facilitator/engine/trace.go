package engine

import (
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/caddy-x402/caddy-x402/internal/paytrace"
)

// The engine's spans of a settlement (docs/tracing.md). Its goroutines
// have no request context: the settle's span travels in the Job
// (Job.Trace), and these spans are its children in the payment's trace.
// A leaf: signer.go and watcher.go call these.
const (
	spanBroadcast   = "x402.broadcast"    // nonce, signature, journal and broadcast of the first transaction
	spanReceiptWait = "x402.receipt_wait" // from the broadcast to the outcome (fee replacements are its events)
)

// traceSent makes the broadcast's span of st, from start (the batch's
// nonce, signing and journal) to now, with an event when the batch was
// journaled; sendErr is a refusal of the broadcast. A sent settlement's
// receipt wait starts here.
func traceSent(st *settlement, start, journaled time.Time, sendErr error) {
	if !st.trace.On() {
		return
	}
	_, sp := paytrace.ChildFrom(st.trace, spanBroadcast, start)
	tx := st.current().Hash().Hex()
	sp.Set(paytrace.KeyTransaction, tx)
	sp.EventAt(journaled, "x402.journaled")
	sp.Fail("not_sent", sendErr)
	sp.End()
	if sendErr != nil {
		return
	}
	_, w := paytrace.Child(st.trace, spanReceiptWait)
	w.Set(paytrace.KeyTransaction, tx)
	st.mu.Lock()
	st.wait = w
	st.mu.Unlock()
}

// traceReplaced adds a fee replacement to st's receipt wait.
func traceReplaced(st *settlement, oldTx, newTx common.Hash) {
	st.mu.Lock()
	w := st.wait
	st.mu.Unlock()
	if w.On() {
		w.Event("x402.fee_replacement", "x402.old_transaction", oldTx.Hex(), paytrace.KeyTransaction, newTx.Hex())
	}
}

// traceFinished ends st's receipt wait with its outcome: the transaction
// that settled it, or the failure.
func traceFinished(st *settlement) {
	st.mu.Lock()
	w := st.wait
	st.wait = paytrace.Span{}
	st.mu.Unlock()
	if !w.On() {
		return
	}
	w.Set(paytrace.KeyTransaction, st.rec.TxHash)
	if st.rec.Error != "" {
		w.Refuse(st.rec.Status, st.rec.Error)
	}
	w.End()
}
