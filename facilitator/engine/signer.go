// signer.go is past 500 lines on purpose: a signer's send loop, its
// nonce counter (local or from a shared journal), its refusals and the
// gap fills after them are one state machine over the signer's nonces;
// broadcasting itself is in broadcast.go.

package engine

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"math/big"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"go.uber.org/zap"

	"github.com/caddy-x402/caddy-x402/facilitator/store"
)

// signer is one gas-paying key of a network. Its send loop hands out
// transaction nonces from a local counter (initialised from the pending
// nonce, resynchronised after a send error or a lost transaction), so many
// settlements ride in one block. Settlements that queue up while a batch is
// being sent go out together: one journal write for the whole group, then
// the transactions in nonce order.
type signer struct {
	key      *ecdsa.PrivateKey
	addr     common.Address
	txSigner types.Signer
	queue    chan *sendReq
	fills    chan fillReq // nonce gaps the watcher found, filled by the send loop

	// serial holds a signer to one settlement at a time, send to
	// confirmation: the baseline the pipelined engine is measured against.
	serial sync.Mutex
	resync atomic.Bool // set by the watcher when the chain disagrees
	noGas  atomic.Bool // the signer cannot pay for a settlement

	// Owned by the send loop.
	nonce uint64
	known bool
}

func newSigner(key *ecdsa.PrivateKey, chainID *big.Int) *signer {
	return &signer{
		key:      key,
		addr:     crypto.PubkeyToAddress(key.PublicKey),
		txSigner: types.LatestSignerForChainID(chainID),
		queue:    make(chan *sendReq, 1024),
		fills:    make(chan fillReq, maxGapFills),
	}
}

// sendReq asks the send loop to sign, journal and broadcast a settlement.
type sendReq struct {
	st        *settlement
	done      chan error
	attempts  int
	journaled bool // its record is in the journal as pending
	// jtx is the transaction the journal holds for it (journaled), which
	// a later signing on a fresh nonce does not replace there until its
	// own journal write succeeds.
	jtx *types.Transaction
	err error // why it is refused
}

// submit queues a settlement for sending and waits until it is broadcast
// (nil) or certainly not (a *NotSentError).
func (s *signer) submit(st *settlement) error {
	r := &sendReq{st: st, done: make(chan error, 1)}
	s.queue <- r
	return <-r.done
}

// Fees are the gas price parameters of a transaction: EIP-1559 when the
// chain has a base fee, legacy otherwise.
type Fees struct {
	// GasLimit is the transaction's gas limit.
	GasLimit uint64
	// TipCap and FeeCap are the EIP-1559 fees (nil on a legacy chain).
	TipCap *big.Int
	FeeCap *big.Int
	// GasPrice is the legacy gas price.
	GasPrice *big.Int
}

func (f *Fees) txData(nonce uint64, to *common.Address, data []byte, chainID *big.Int) types.TxData {
	if f.TipCap != nil {
		return &types.DynamicFeeTx{ChainID: chainID, Nonce: nonce, GasTipCap: f.TipCap, GasFeeCap: f.FeeCap, Gas: f.GasLimit, To: to, Data: data}
	}
	return &types.LegacyTx{Nonce: nonce, GasPrice: f.GasPrice, Gas: f.GasLimit, To: to, Data: data}
}

// capped limits the fees to multiple times first (zero multiple: 3).
func (f *Fees) capped(first *Fees, multiple uint64) *Fees {
	if first == nil {
		return f
	}
	if multiple == 0 {
		multiple = 3
	}
	limit := func(v, base *big.Int) *big.Int {
		if v == nil || base == nil {
			return v
		}
		m := new(big.Int).Mul(base, new(big.Int).SetUint64(multiple))
		if v.Cmp(m) > 0 {
			return m
		}
		return v
	}
	return &Fees{GasLimit: f.GasLimit, TipCap: limit(f.TipCap, first.TipCap), FeeCap: limit(f.FeeCap, first.FeeCap), GasPrice: limit(f.GasPrice, first.GasPrice)}
}

// equal reports whether two fees are the same.
func (f *Fees) equal(o *Fees) bool {
	eq := func(a, b *big.Int) bool { return (a == nil) == (b == nil) && (a == nil || a.Cmp(b) == 0) }
	return f.GasLimit == o.GasLimit && eq(f.TipCap, o.TipCap) && eq(f.FeeCap, o.FeeCap) && eq(f.GasPrice, o.GasPrice)
}

// bumped returns the fees raised by a quarter, above the 10% that nodes
// require of a replacement.
func (f *Fees) bumped() *Fees {
	up := func(v *big.Int) *big.Int {
		if v == nil {
			return nil
		}
		b := new(big.Int).Mul(v, big.NewInt(125))
		b.Div(b, big.NewInt(100))
		if b.Cmp(v) <= 0 {
			b.Add(v, big.NewInt(1))
		}
		return b
	}
	return &Fees{GasLimit: f.GasLimit, TipCap: up(f.TipCap), FeeCap: up(f.FeeCap), GasPrice: up(f.GasPrice)}
}

// loop is the signer's send loop; it ends with ctx, failing what is queued.
// Each batch is sent with the settings and RPC pool of the core's active
// engine.
func (s *signer) loop(ctx context.Context, c *core) {
	for {
		select {
		case <-ctx.Done():
			for {
				select {
				case r := <-s.queue:
					r.done <- &NotSentError{Err: errors.New("the facilitator is shutting down")}
				default:
					return
				}
			}
		case f := <-s.fills:
			s.fillIfGap(ctx, c.active(), f)
		case r := <-s.queue:
			batch := []*sendReq{r}
		drain:
			for len(batch) < 256 {
				select {
				case r := <-s.queue:
					batch = append(batch, r)
				default:
					break drain
				}
			}
			s.sendBatch(ctx, c.active(), batch)
		}
	}
}

// sendBatch signs the group with consecutive nonces, journals it in one
// write, then broadcasts in nonce order. A transaction the node may have
// taken (accepted, a duplicate, or an answer lost on the way) is
// broadcast: its settlement follows that transaction and no other. One the
// node certainly refused frees its nonce: after a nonce clash the rest are
// signed again once with fresh nonces; otherwise it is refused, and the
// rest go on from its nonce, so no gap is left behind.
//
// A refusal is final before it is told: the refused records are written as
// failed ("not broadcast") in one journal write first, so that recovery
// never broadcasts what a caller was told was not sent.
func (s *signer) sendBatch(ctx context.Context, e *Engine, reqs []*sendReq) {
	var refused []*sendReq
	refuseAll := func(rs []*sendReq, err error) {
		for _, r := range rs {
			r.err = &NotSentError{Err: err}
			refused = append(refused, r)
		}
	}
	for len(reqs) > 0 {
		// A caller who has stopped waiting is refused before anything is
		// signed for it.
		live := reqs[:0:0]
		for _, r := range reqs {
			if d := r.st.deadline; !d.IsZero() && !time.Now().Before(d) {
				r.err = &NotSentError{Err: errors.New("the settle timeout ran out before the transaction was sent")}
				refused = append(refused, r)
				continue
			}
			live = append(live, r)
		}
		if reqs = live; len(reqs) == 0 {
			break
		}
		// The lease the batch is journaled under (shared journal).
		inst := ""
		if e.shared != nil {
			inst = e.shared.Instance()
		}
		started := time.Now() // the broadcast spans' start (trace.go)
		first, err := s.takeNonces(ctx, e, len(reqs))
		if err != nil {
			refuseAll(reqs, err)
			break
		}
		recs := make([]*store.Record, len(reqs))
		var signErr error
		for i, r := range reqs {
			to := &r.st.to
			if r.st.create {
				to = nil // a contract creation (an ERC-6492 deployment and its transfer)
			}
			tx, err := types.SignNewTx(s.key, s.txSigner, r.st.fee.txData(first+uint64(i), to, r.st.calldata, e.cfg.ChainID))
			if err != nil {
				signErr = err
				break
			}
			r.st.setFirstTx(tx, e.now())
			recs[i] = r.st.rec
		}
		if signErr != nil {
			refuseAll(reqs, signErr)
			break
		}
		if err := e.cfg.Journal.Put(recs...); err != nil {
			e.logger.Error("writing the settlement journal failed; nothing was broadcast", zap.Error(err))
			refuseAll(reqs, fmt.Errorf("writing the settlement journal: %w", err))
			unsent := make([]*types.Transaction, len(reqs))
			for i, r := range reqs {
				unsent[i] = r.st.current()
			}
			s.freeNonces(ctx, e, first, first+uint64(len(reqs)), unsent)
			break
		}
		journaled := time.Now()
		for _, r := range reqs {
			r.journaled, r.jtx = true, r.st.current()
		}
		if e.shared != nil {
			s.awaitTurn(ctx, e, first)
		}
		txs := make([]*types.Transaction, len(reqs))
		var deadline time.Time
		for i, r := range reqs {
			txs[i] = r.st.current()
			if d := r.st.deadline; !d.IsZero() && (deadline.IsZero() || d.Before(deadline)) {
				deadline = d
			}
		}
		results := e.broadcastAll(ctx, txs, deadline)
		firstRefused, lastTaken := -1, -1
		for i, res := range results {
			if res.res == sentNot && firstRefused < 0 {
				firstRefused = i
			}
			if res.res != sentNot {
				lastTaken = i
			}
		}
		sent := func(r *sendReq, res sendOutcome) {
			tx := r.st.current()
			if res.res == sentMaybe {
				r.st.unclear.Store(true)
				e.logger.Warn("the node may have taken the transaction (its answer was lost); the settlement follows that transaction only",
					zap.String("tx", tx.Hash().Hex()), zap.Error(res.err))
			}
			if res.res == sentOK {
				s.noGas.Store(false)
			}
			traceSent(r.st, started, journaled, nil)
			r.done <- nil
		}
		refuse := func(r *sendReq, res sendOutcome) {
			if res.class == sendNoFunds {
				s.noGas.Store(true)
			}
			r.err = &NotSentError{Err: res.err, NoGas: res.class == sendNoFunds}
			traceSent(r.st, started, journaled, res.err)
			refused = append(refused, r)
		}
		if e.shared != nil && firstRefused >= 0 && (e.shared.Instance() != inst || !e.shared.Live()) {
			// The lease ran out while this batch was out (the instance was
			// paused): another instance may have taken its journaled
			// transactions over and sent them, so a refusal ("nonce too
			// low") may be about that very transaction. Each is followed as
			// maybe sent, never signed again on another nonce.
			e.logger.Warn("this instance's lease ran out while its batch was being sent; the refused transactions are followed as they were journaled, not signed again",
				zap.Int("settlements", len(reqs)))
			for i, r := range reqs {
				res := results[i]
				if res.res == sentNot {
					res.res = sentMaybe
				}
				sent(r, res)
			}
			s.known = false
			break
		}
		var rest []*sendReq
		switch {
		case firstRefused < 0:
			for i, r := range reqs {
				sent(r, results[i])
			}
			s.nonce = txs[len(txs)-1].Nonce() + 1
		case lastTaken > firstRefused:
			// The node holds transactions above a refused one. Each refused
			// nonce below them is filled (unless it is taken already), so
			// that they can be mined; the refused settlements are refused,
			// or signed again once after a nonce clash.
			for i, r := range reqs {
				res := results[i]
				switch {
				case res.res != sentNot:
					sent(r, res)
				case i > lastTaken:
					rest = append(rest, r)
				case (res.class == sendNonceLow || res.class == sendReplaceLow) && r.attempts == 0:
					// The nonce is held by another transaction: no gap.
					e.logger.Warn("the node refused a settlement's nonce; signing it again on a fresh nonce", zap.Uint64("tx_nonce", txs[i].Nonce()), zap.Error(res.err))
					r.attempts++
					rest = append(rest, r)
				default:
					refuse(r, res)
					if res.class != sendNonceLow && res.class != sendReplaceLow {
						s.fillGap(ctx, e, txs[i])
					}
				}
			}
			s.nonce = txs[lastTaken].Nonce() + 1
			if len(rest) > 0 && rest[0].attempts > 0 {
				s.known = false
			}
		default:
			// Everything from firstRefused on was refused: those before it
			// are sent; the first refused one says what to do with the rest.
			for i := range firstRefused {
				sent(reqs[i], results[i])
			}
			r, res := reqs[firstRefused], results[firstRefused]
			switch res.class {
			case sendNonceLow, sendNonceHigh, sendUnderpriced, sendReplaceLow:
				// The counter disagrees with the node: read it again.
				s.known = false
				if r.attempts == 0 {
					e.logger.Warn("the node refused a settlement's nonce; signing it and the ones after it again on fresh nonces", zap.Uint64("tx_nonce", txs[firstRefused].Nonce()), zap.Error(res.err))
					r.attempts++
					rest = reqs[firstRefused:]
				}
			default:
				s.nonce = txs[firstRefused].Nonce() // certainly not taken: the nonce is free
			}
			if rest == nil {
				refuse(r, res)
				rest = reqs[firstRefused+1:]
			}
		}
		if e.shared != nil && firstRefused >= 0 {
			// The refused ones above the last taken: the unshared counter
			// takes their nonces again (those below it were filled above).
			s.freeRefused(ctx, e, txs[lastTaken+1:], results[lastTaken+1:], first+uint64(len(txs)))
		}
		reqs = rest
	}
	s.refuse(e, refused)
}

// takeNonces gives the next n transaction nonces of the signer: from its
// own counter (initialised from the node's pending nonce, read again after
// a resync), or, with a shared journal, from the journal, which hands each
// nonce of the key to one instance (the node's pending nonce, when read,
// is the floor).
func (s *signer) takeNonces(ctx context.Context, e *Engine, n int) (uint64, error) {
	if s.resync.Swap(false) {
		s.known = false
	}
	var floor uint64
	if !s.known {
		var pending hexutil.Uint64
		if err := e.cfg.Pool.Call(ctx, &pending, "eth_getTransactionCount", s.addr, "pending"); err != nil {
			return 0, fmt.Errorf("reading the signer's nonce: %w", err)
		}
		s.nonce, s.known, floor = uint64(pending), true, uint64(pending)
	}
	if e.shared == nil {
		return s.nonce, nil
	}
	first, err := e.shared.Nonces(ctx, e.cfg.ChainID.String(), s.addr.Hex(), floor, n)
	if err != nil {
		s.known = false // the floor was not applied: read it again next time
		return 0, fmt.Errorf("taking the signer's nonces from the shared store: %w", err)
	}
	return first, nil
}

// Waiting for the nonces below a batch taken from a shared journal.
const (
	turnWait = 300 * time.Millisecond
	turnPoll = 5 * time.Millisecond
)

// awaitTurn waits, with a shared journal, until the node holds the
// signer's transactions below first (its pending nonce has reached it),
// for at most turnWait: another instance took those nonces just before and
// is sending them. Sent first, this batch's transactions would wait in
// the node's queue of future nonces, which a geth node caps (64 per
// account by default, the rest dropped) and an Ethermint node does not
// keep at all. Past the wait (that instance may have died, or the node
// may lag) the batch goes anyway; the watcher sends lost ones again.
func (s *signer) awaitTurn(ctx context.Context, e *Engine, first uint64) {
	deadline := time.Now().Add(turnWait)
	for {
		var pending hexutil.Uint64
		if err := e.cfg.Pool.Call(ctx, &pending, "eth_getTransactionCount", s.addr, "pending"); err != nil || uint64(pending) >= first {
			return
		}
		if time.Now().After(deadline) {
			e.logger.Debug("the signer's nonces below this batch are not at the node yet; sending it anyway",
				zap.String("signer", s.addr.Hex()), zap.Uint64("node_pending", uint64(pending)), zap.Uint64("first", first))
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(turnPoll):
		}
	}
}

// freeRefused frees, with a shared journal, the nonces at the end of a
// batch that the node refused and that no transaction holds: the refused
// ones other than for a nonce clash (whose nonce another transaction
// holds). end is the end of the batch's nonces.
func (s *signer) freeRefused(ctx context.Context, e *Engine, txs []*types.Transaction, results []sendOutcome, end uint64) {
	var holes []*types.Transaction
	for i, res := range results {
		if res.res == sentNot && res.class != sendNonceLow && res.class != sendReplaceLow {
			holes = append(holes, txs[i])
		}
	}
	if len(holes) == 0 {
		return
	}
	s.freeNonces(ctx, e, holes[0].Nonce(), end, holes)
}

// freeNonces frees nonces taken from the shared journal and left without
// a transaction, holes (signed, never broadcast), the last ending at end:
// given back when they are all the nonces up to end and no later one was
// handed out since, else each is filled with a zero-value transfer, so
// that no gap stalls the key's later transactions, whichever instance
// sent them.
func (s *signer) freeNonces(ctx context.Context, e *Engine, from, end uint64, holes []*types.Transaction) {
	if e.shared == nil {
		return
	}
	if uint64(len(holes)) == end-from && holes[0].Nonce() == from {
		if ok, err := e.shared.GiveBack(ctx, e.cfg.ChainID.String(), s.addr.Hex(), from, end); err == nil && ok {
			return
		}
	}
	for _, tx := range holes {
		s.fillGap(ctx, e, tx)
	}
}

// mayFill reports whether the signer may send a transaction that is not
// journaled (a fill): always, unless a shared journal says this instance's
// lease does not hold (another instance may have taken its work over).
func (s *signer) mayFill(e *Engine, nonce uint64) bool {
	if e.shared == nil || e.shared.Live() {
		return true
	}
	e.logger.Warn("not filling a nonce gap: this instance's lease in the shared store does not hold, so another instance may follow the key's transactions",
		zap.String("signer", s.addr.Hex()), zap.Uint64("tx_nonce", nonce))
	return false
}

// refuse finalises refused settlements as not broadcast in one journal
// write, then answers them. When that write fails, what was journaled as
// pending could be broadcast at the next start, so it is not refused: it
// is handed to the watcher as sent, which sends it (or a replacement) and
// answers with its outcome.
func (s *signer) refuse(e *Engine, refused []*sendReq) {
	if len(refused) == 0 {
		return
	}
	var recs []*store.Record
	for _, r := range refused {
		if r.journaled {
			r.st.finish(store.StatusFailed, "", 0, "not broadcast: "+r.err.Error(), e.now())
			recs = append(recs, r.st.rec)
		}
	}
	if len(recs) > 0 {
		if err := e.cfg.Journal.Put(recs...); err != nil {
			e.logger.Error("recording refused settlements failed; they stay pending and are sent after all", zap.Error(err))
			for _, r := range refused {
				if r.journaled {
					// Followed as the journal holds it: a transaction
					// signed since on a fresh nonce was never journaled,
					// so it is never sent.
					if r.jtx != nil && r.st.current() != r.jtx {
						r.st.setFirstTx(r.jtx, e.now())
					}
					r.st.finish(store.StatusPending, "", 0, "", e.now())
					r.done <- nil
				} else {
					r.done <- r.err
				}
			}
			return
		}
	}
	for _, r := range refused {
		r.done <- r.err
	}
}

// fillGap fills a nonce the node does not hold, below transactions it
// does hold, with a zero-value transfer to the signer itself, so that
// those can be mined.
func (s *signer) fillGap(ctx context.Context, e *Engine, refused *types.Transaction) {
	if !s.mayFill(e, refused.Nonce()) {
		return
	}
	// A quarter above the refused fees, in case the node refused them as
	// too low.
	tx, err := s.selfTransfer(refused.Nonce(), feesOf(refused), e.cfg.ChainID)
	if err == nil {
		_, _, err = e.broadcast(ctx, tx)
	}
	if err != nil {
		s.known = false
		e.logger.Error("could not fill a nonce gap; the signer's later transactions wait for it",
			zap.String("signer", s.addr.Hex()), zap.Uint64("tx_nonce", refused.Nonce()), zap.Error(err))
		return
	}
	e.logger.Warn("filled the nonce of a refused settlement with a zero-value transfer to the signer",
		zap.String("signer", s.addr.Hex()), zap.Uint64("tx_nonce", refused.Nonce()), zap.String("tx", tx.Hash().Hex()))
}

// selfTransfer signs a zero-value transfer from the signer to itself at
// nonce, paying a quarter more than above (the fees of the transaction it
// replaces or unblocks): what fills or frees a nonce. It costs 21,000 gas.
func (s *signer) selfTransfer(nonce uint64, above *Fees, chainID *big.Int) (*types.Transaction, error) {
	fee := above.bumped()
	fee.GasLimit = 21000
	return types.SignNewTx(s.key, s.txSigner, fee.txData(nonce, &s.addr, nil, chainID))
}

// fillReq asks the send loop to fill nonce with a zero-value transfer if
// the node still has no transaction there; fee is the fee of a stuck
// transaction above it.
type fillReq struct {
	nonce uint64
	fee   *Fees
}

// requestFill asks the send loop to fill a nonce gap; a request that finds
// the loop's queue of them full is dropped (the watcher asks again).
func (s *signer) requestFill(nonce uint64, fee *Fees) {
	select {
	case s.fills <- fillReq{nonce, fee}:
	default:
	}
}

// fillIfGap fills a nonce below the signer's transactions that no node
// holds (its own fill, an earlier one, was refused too, so the ones above
// it cannot be mined), unless the node's pending nonce shows that a
// transaction took it meanwhile. It runs in the send loop, so no
// settlement is being signed at the same time.
func (s *signer) fillIfGap(ctx context.Context, e *Engine, f fillReq) {
	if !s.mayFill(e, f.nonce) {
		return
	}
	var pending hexutil.Uint64
	if err := e.cfg.Pool.Call(ctx, &pending, "eth_getTransactionCount", s.addr, "pending"); err != nil || uint64(pending) != f.nonce {
		return
	}
	if e.shared != nil {
		// With a shared journal the gap may be another instance's
		// transaction that the node lost (a node drops future-nonce
		// transactions past its queue limit): it is sent again as it was
		// signed, never replaced by a fill.
		if resent, err := s.resendJournaled(ctx, e, f.nonce); resent || err != nil {
			return
		}
	}
	tx, err := s.selfTransfer(f.nonce, f.fee, e.cfg.ChainID)
	if err != nil {
		return
	}
	res, _, err := e.broadcast(ctx, tx)
	if res == sentNot {
		e.logger.Error("could not fill a nonce gap below the signer's waiting transactions; tried again at the next check",
			zap.String("signer", s.addr.Hex()), zap.Uint64("tx_nonce", f.nonce), zap.Error(err))
		return
	}
	e.logger.Warn("filled a nonce gap below the signer's waiting transactions with a zero-value transfer to the signer",
		zap.String("signer", s.addr.Hex()), zap.Uint64("tx_nonce", f.nonce), zap.String("tx", tx.Hash().Hex()))
}

// resendJournaled sends again the newest transaction of the shared
// journal's pending settlement at the signer's nonce on this chain, if
// there is one; an error means the journal could not be asked (the gap is
// then left for the next check).
func (s *signer) resendJournaled(ctx context.Context, e *Engine, nonce uint64) (bool, error) {
	recs, err := e.shared.PendingAt(ctx, s.addr.Hex(), nonce)
	if err != nil {
		e.logger.Warn("could not ask the shared journal about a nonce gap; asked again at the next check", zap.Uint64("tx_nonce", nonce), zap.Error(err))
		return false, err
	}
	for _, rec := range recs {
		if len(rec.Txs) == 0 {
			continue
		}
		raw, err := hexutil.Decode(rec.Txs[len(rec.Txs)-1].Raw)
		tx := new(types.Transaction)
		if err != nil || tx.UnmarshalBinary(raw) != nil || tx.ChainId().Cmp(e.cfg.ChainID) != 0 {
			continue
		}
		_, _, err = e.broadcast(ctx, tx)
		e.logger.Warn("a nonce gap below the signer's waiting transactions holds a journaled settlement (the node lost it); sent its transaction again",
			zap.String("signer", s.addr.Hex()), zap.Uint64("tx_nonce", nonce), zap.String("id", rec.ID), zap.String("tx", tx.Hash().Hex()), zap.NamedError("broadcast", err))
		return true, nil
	}
	return false, nil
}

// feesOf reads back the fee parameters of a signed transaction.
func feesOf(tx *types.Transaction) *Fees {
	if tx.Type() == types.LegacyTxType {
		return &Fees{GasLimit: tx.Gas(), GasPrice: tx.GasPrice()}
	}
	return &Fees{GasLimit: tx.Gas(), TipCap: tx.GasTipCap(), FeeCap: tx.GasFeeCap()}
}
