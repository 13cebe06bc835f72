package engine

import (
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/caddy-x402/caddy-x402/facilitator/store"
	"github.com/caddy-x402/caddy-x402/internal/paytrace"
)

// settlement is one authorization on its way to the chain: its journal
// record, its signed transactions (the first, then fee-bumped
// replacements with the same nonce) and, once known, its outcome.
type settlement struct {
	key      authKey
	s        *signer
	calldata []byte
	create   bool           // calldata is creation code (Job.Create)
	to       common.Address // the contract called (Job.To, or the token)
	scheme   string         // the record's scheme, for its Spent
	fee      *Fees
	firstFee *Fees     // the first transaction's, for the fee ceiling
	deadline time.Time // the caller's, for the first broadcast; zero = none
	serial   bool      // it holds its signer's serial lock (a baseline)
	// sharedHold is set when Claim took the authorization in the shared
	// journal too, to be given back there with the outcome.
	sharedHold bool
	// payerHold is set when the settlement holds its payer (HoldPayer),
	// to be given back with the outcome (for a revert, by the Revert).
	payerHold bool
	// revert is set by the watcher when the transaction was mined and
	// reverted.
	revert *Revert
	// unclear is set while the newest transaction's broadcast may not
	// have reached a node (its answer was lost): the watcher looks the
	// transaction up by hash and sends the same one again if no node has
	// it.
	unclear atomic.Bool
	// trace is the caller's settle span (Job.Trace); wait the receipt
	// wait's span (under mu), from the broadcast to the outcome.
	trace paytrace.Carried
	wait  paytrace.Span

	mu       sync.Mutex
	rec      *store.Record
	txs      []*types.Transaction
	sentHead uint64 // head block when the newest transaction went out; 0 = not yet seen

	checkedHead uint64 // the head its receipts were last asked at (guarded by the watcher's mu)

	done chan struct{} // closed when the outcome is known
}

func newSettlement(e *Engine, job *Job, s *signer) *settlement {
	a := &job.Auth
	now := e.now()
	to := job.To
	if to == (common.Address{}) {
		to = e.cfg.Token
	}
	return &settlement{
		key: authKey{a.From, a.Nonce, e.spaceOf(job.Scheme)}, s: s, calldata: job.Calldata, create: job.Create, to: to, scheme: job.Scheme, fee: job.Fees, firstFee: job.Fees, serial: e.cfg.Serial,
		done: make(chan struct{}), trace: job.Trace,
		rec: &store.Record{
			ID:               RecordIDIn(e.cfg.Network, e.spaceOf(job.Scheme), a.From, a.Nonce),
			Network:          e.cfg.Network,
			Scheme:           job.Scheme,
			RequestedNetwork: job.Requested,
			Via:              job.Via,
			From:             a.From.Hex(),
			To:               a.To.Hex(),
			Value:            a.Value.String(),
			ValidAfter:       a.ValidAfter.String(),
			ValidBefore:      a.ValidBefore.String(),
			Nonce:            hexutil.Encode(a.Nonce[:]),
			Signature:        hexutil.Encode(job.Signature),
			Signer:           s.addr.Hex(),
			Status:           store.StatusPending,
			CreatedAt:        now,
			UpdatedAt:        now,
		},
	}
}

// setFirstTx records the transaction about to be broadcast first. A
// transaction signed earlier but never sent is replaced, not kept.
func (st *settlement) setFirstTx(tx *types.Transaction, now time.Time) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.txs = []*types.Transaction{tx}
	st.rec.TxNonce = tx.Nonce()
	st.rec.Txs = []store.JournalTx{journalTx(tx, now)}
	st.rec.UpdatedAt = now
}

// addTx records a replacement with the same nonce: fee-bumped, or the
// zero-value transfer that frees an expired authorization's nonce.
func (st *settlement) addTx(tx *types.Transaction, cancel bool, now time.Time) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.txs = append(st.txs, tx)
	jt := journalTx(tx, now)
	jt.Cancel = cancel
	st.rec.Txs = append(st.rec.Txs, jt)
	st.rec.UpdatedAt = now
}

// cancelling reports whether the newest transaction is a cancel.
func (st *settlement) cancelling() bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	return len(st.rec.Txs) > 0 && st.rec.Txs[len(st.rec.Txs)-1].Cancel
}

// isCancel reports whether h is one of the settlement's cancels.
func (st *settlement) isCancel(h common.Hash) bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	for _, jt := range st.rec.Txs {
		if jt.Cancel && common.HexToHash(jt.Hash) == h {
			return true
		}
	}
	return false
}

// has reports whether h is one of the settlement's transactions.
func (st *settlement) has(h common.Hash) bool {
	for _, x := range st.hashes() {
		if x == h {
			return true
		}
	}
	return false
}

func journalTx(tx *types.Transaction, now time.Time) store.JournalTx {
	raw, _ := tx.MarshalBinary()
	return store.JournalTx{Hash: tx.Hash().Hex(), Raw: hexutil.Encode(raw), SentAt: now}
}

// current is the newest transaction.
func (st *settlement) current() *types.Transaction {
	st.mu.Lock()
	defer st.mu.Unlock()
	if len(st.txs) == 0 {
		return nil
	}
	return st.txs[len(st.txs)-1]
}

// hashes lists every transaction hash of the settlement.
func (st *settlement) hashes() []common.Hash {
	st.mu.Lock()
	defer st.mu.Unlock()
	out := make([]common.Hash, len(st.txs))
	for i, tx := range st.txs {
		out[i] = tx.Hash()
	}
	return out
}

// finish sets the record's outcome.
func (st *settlement) finish(status, txHash string, block uint64, errText string, now time.Time) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.rec.Status = status
	st.rec.TxHash = txHash
	st.rec.BlockNumber = block
	st.rec.Error = errText
	st.rec.UpdatedAt = now
}

// snapshot is a copy of the record.
func (st *settlement) snapshot() *store.Record {
	st.mu.Lock()
	defer st.mu.Unlock()
	r := *st.rec
	r.Txs = append([]store.JournalTx(nil), st.rec.Txs...)
	return &r
}

// missedBlock reports whether the settlement's newest transaction was out
// before a block before head and is not known mined.
func (st *settlement) missedBlock(head uint64) bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.sentHead != 0 && head > st.sentHead
}

// movedAt is the block whose transfer moved the payer's money: a settled
// record's; 0 when nothing moved (failed, or not final).
func (st *settlement) movedAt() uint64 {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.rec.Status == store.StatusSettled {
		return st.rec.BlockNumber
	}
	return 0
}

// RecordID is the journal ID of an authorization on a network.
func RecordID(network string, from common.Address, nonce [32]byte) string {
	return RecordIDIn(network, "", from, nonce)
}

// RecordIDIn is the record ID of an authorization in a nonce space
// (Config.Spaces; "": EIP-3009, RecordID's form): network/from/space/nonce,
// so a Permit2 nonce never names an EIP-3009 settlement's record.
func RecordIDIn(network, space string, from common.Address, nonce [32]byte) string {
	if space != "" {
		return strings.ToLower(network + "/" + from.Hex() + "/" + space + "/" + hexutil.Encode(nonce[:]))
	}
	return strings.ToLower(network + "/" + from.Hex() + "/" + hexutil.Encode(nonce[:]))
}
