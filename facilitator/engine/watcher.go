// watcher.go is past 500 lines on purpose: the poll loop (poll, ~250
// lines) reads heads, receipts and nonces for every pending settlement in
// one pass, and replace/fillGaps/sendAgain act on what that pass found;
// split across files they would call back and forth, and so would
// nonceTaken and reverted, which act on a settlement the poll found (spent
// or reverted) with the watcher's own methods. What the watcher calls lies
// below it: signer.go, claim.go, spent.go (asking Spent), revert.go,
// settlement.go, core.go; broadcasting is in broadcast.go.

package engine

import (
	"context"
	"encoding/json"
	"errors"
	"math/big"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/rpc"
	"go.uber.org/zap"

	"github.com/caddy-x402/caddy-x402/facilitator/store"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// watcher follows a network's broadcast settlements to their outcome. One
// loop per network polls the head while anything is pending, every
// interval, and faster when the next block is due (pollPace); on a new
// head it reads the receipts of the new blocks with one
// eth_getBlockReceipts each and the signers' nonces at the head, in one
// batch, so a settle answers soon after its block however many wait, at
// the cost of one call per block. Only a settlement mined
// outside the blocks read (its nonce is below its signer's, its receipt
// not among them), or every mined one on a node without
// eth_getBlockReceipts, has its receipt asked for on its own. A settlement not mined after replaceAfter blocks
// is sent again with the same nonce and a bumped fee, which also brings
// back one that a node dropped.
type watcher struct {
	c        *core
	interval time.Duration

	// blockReceipts is whether the node serves eth_getBlockReceipts
	// (blockReceiptsUnknown until the first answer).
	blockReceipts atomic.Int32

	mu       sync.Mutex
	pace     pollPace
	pending  map[*settlement]struct{}
	fresh    bool
	lastHead uint64
	readTo   uint64 // the newest block whose receipts were read; 0: none since nothing was pending
	memory   burstMemory
}

// newWatcher builds the watcher of a core; first is the engine that
// starts it, whose poll interval it keeps.
func newWatcher(c *core, first *Engine) *watcher {
	return &watcher{c: c, interval: first.cfg.PollInterval, pace: pollPace{interval: first.cfg.PollInterval}, pending: map[*settlement]struct{}{}}
}

// e is the engine whose settings and RPC pool the watcher uses: the core's
// active one.
func (w *watcher) e() *Engine { return w.c.active() }

// log is the active engine's logger, naming the network.
func (w *watcher) log() *zap.Logger {
	e := w.e()
	return e.logger.With(zap.String("network", e.cfg.Network))
}

// add follows a broadcast settlement.
func (w *watcher) add(st *settlement) {
	w.mu.Lock()
	w.pending[st] = struct{}{}
	w.fresh = true
	w.memory.added(1)
	w.mu.Unlock()
}

// count is the number of settlements waiting for their block.
func (w *watcher) count() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.pending)
}

func (w *watcher) run(ctx context.Context) {
	t := time.NewTimer(w.interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			w.poll(ctx)
		}
		w.mu.Lock()
		d := w.pace.next(time.Now())
		w.mu.Unlock()
		t.Reset(d)
	}
}

func (w *watcher) poll(ctx context.Context) {
	w.mu.Lock()
	if len(w.pending) == 0 {
		w.readTo = 0 // the next settlement's block is at the head of its time
		w.pace.reset()
		w.mu.Unlock()
		w.memory.idle(time.Now())
		return
	}
	fresh, last := w.fresh, w.lastHead
	w.mu.Unlock()

	var head hexutil.Uint64
	if err := w.e().cfg.Pool.Call(ctx, &head, "eth_blockNumber"); err != nil {
		w.log().Debug("polling the head failed", zap.Error(err))
		return
	}
	w.mu.Lock()
	w.pace.saw(uint64(head), time.Now())
	w.mu.Unlock()
	if uint64(head) == last && !fresh {
		return
	}

	w.mu.Lock()
	w.fresh = false
	w.lastHead = uint64(head)
	// Every settlement is matched against the receipts of the blocks read
	// now; the ones not yet checked at this head (all of them at a new
	// head, the ones added since at the same head) are also looked up on
	// their own when their signer's nonce says they are mined.
	all := make([]*settlement, 0, len(w.pending))
	var sts []*settlement
	for st := range w.pending {
		all = append(all, st)
		if st.checkedHead < uint64(head) {
			sts = append(sts, st)
		}
	}
	from := w.readTo + 1
	if w.readTo == 0 || uint64(head) >= w.readTo+maxBlocksPerPoll {
		from = uint64(head) + 1 - min(uint64(head), maxBlocksPerPoll)
		if w.readTo == 0 {
			from = uint64(head)
		}
	}
	w.mu.Unlock()

	// One batch: the receipts of every block since the last one read (one
	// eth_getBlockReceipts each, where the node has it) and the nonce at
	// the head of each signer with settlements to check.
	var elems []rpc.BatchElem
	type blockRead struct {
		n  uint64
		at int
		rs *[]*receipt
	}
	var blocks []blockRead
	if w.blockReceipts.Load() != blockReceiptsMissing {
		for n := from; n <= uint64(head); n++ {
			br := blockRead{n: n, at: len(elems), rs: new([]*receipt)}
			elems = append(elems, rpc.BatchElem{Method: "eth_getBlockReceipts", Args: []any{hexutil.Uint64(n)}, Result: br.rs})
			blocks = append(blocks, br)
		}
	}
	type nonceRead struct {
		at    int
		nonce *hexutil.Uint64
	}
	nonces := map[*signer]nonceRead{}
	for _, st := range sts {
		if st.s == nil {
			continue
		}
		if _, ok := nonces[st.s]; !ok {
			nr := nonceRead{at: len(elems), nonce: new(hexutil.Uint64)}
			elems = append(elems, rpc.BatchElem{Method: "eth_getTransactionCount", Args: []any{st.s.addr, head}, Result: nr.nonce})
			nonces[st.s] = nr
		}
	}
	if err := w.fetch(ctx, elems); err != nil {
		w.log().Debug("fetching receipts failed", zap.Error(err))
		w.mu.Lock()
		w.fresh = true
		w.mu.Unlock()
		return
	}

	found := map[*settlement]*receipt{}
	byHash := make(map[common.Hash]*settlement, len(all))
	for _, st := range all {
		for _, h := range st.hashes() {
			byHash[h] = st
		}
	}
	readTo := from - 1
	for _, br := range blocks {
		el := elems[br.at]
		if el.Error != nil && isMethodMissing(el.Error) {
			if w.blockReceipts.Swap(blockReceiptsMissing) != blockReceiptsMissing {
				w.log().Info("the node does not serve eth_getBlockReceipts; receipts are read one transaction at a time", zap.Error(el.Error))
			}
		}
		if el.Error != nil || *br.rs == nil {
			break // not read (a node behind the head, an error): read again at the next poll
		}
		w.blockReceipts.Store(blockReceiptsServed)
		for _, r := range *br.rs {
			if r == nil {
				continue
			}
			if st, ok := byHash[r.TxHash]; ok {
				found[st] = r
			}
		}
		readTo = br.n
	}
	w.mu.Lock()
	w.readTo = max(w.readTo, readTo)
	if len(blocks) > 0 && w.readTo < uint64(head) {
		w.fresh = true
	}
	for _, st := range sts {
		st.checkedHead = uint64(head)
	}
	w.mu.Unlock()

	// Settlements mined in a block not read (earlier than the blocks read,
	// or on a node without eth_getBlockReceipts): a signer's nonce at the
	// head above a transaction's nonce says it is mined, so its receipts
	// are asked for, in batches. Where the nonce could not be read, every
	// settlement's receipts are.
	var refs []ref
	var receiptElems []rpc.BatchElem
	for _, st := range sts {
		if _, ok := found[st]; ok {
			continue
		}
		tx := st.current()
		if tx == nil {
			continue
		}
		if nr, ok := nonces[st.s]; ok && elems[nr.at].Error == nil && tx.Nonce() >= uint64(*nr.nonce) {
			continue // not mined yet
		}
		for _, h := range st.hashes() {
			r := new(*receipt)
			receiptElems = append(receiptElems, rpc.BatchElem{Method: "eth_getTransactionReceipt", Args: []any{h}, Result: r})
			refs = append(refs, ref{st, r})
		}
	}
	if len(receiptElems) > 0 {
		if err := w.fetch(ctx, receiptElems); err != nil {
			w.log().Debug("fetching receipts failed", zap.Error(err))
			w.mu.Lock()
			w.fresh = true
			for _, rf := range refs {
				rf.st.checkedHead = 0 // asked again at the next poll
			}
			w.mu.Unlock()
			receiptElems = nil
			refs = nil
		}
	}
	for i, rf := range refs {
		if receiptElems[i].Error == nil && *rf.r != nil {
			found[rf.st] = *rf.r
		}
	}

	var finished []*settlement
	for _, st := range all {
		if r, ok := found[st]; ok {
			w.resolve(ctx, st, r)
			finished = append(finished, st)
		}
	}
	// The outcomes are journaled and answered first, the first few on
	// their own (answered after a small journal write, not a full
	// block's); what remains is the follow-up of the settlements still
	// waiting.
	if len(finished) > 2*firstAnswers {
		w.done(finished[:firstAnswers]...)
		finished = finished[firstAnswers:]
	}
	w.done(finished...)

	// A transaction whose broadcast may not have reached a node is looked
	// up by hash. With a shared journal, so is one that missed a block:
	// several instances' batches on one key reach a node out of nonce
	// order, and a geth node drops future-nonce transactions past its
	// queue limit (64 per account by default) without a word; found
	// missing, it is sent again at once rather than after ReplaceAfter
	// blocks. One known mined by its signer's nonce is not looked up.
	shared := w.e().shared != nil
	type lookup struct {
		st *settlement
		tx *json.RawMessage
	}
	var lookups []lookup
	var lookupElems []rpc.BatchElem
	for _, st := range sts {
		if _, ok := found[st]; ok {
			continue
		}
		tx := st.current()
		if tx == nil || !(st.unclear.Load() || shared && st.missedBlock(uint64(head))) {
			continue
		}
		if nr, ok := nonces[st.s]; ok && elems[nr.at].Error == nil && tx.Nonce() < uint64(*nr.nonce) {
			continue
		}
		l := lookup{st: st, tx: new(json.RawMessage)}
		lookupElems = append(lookupElems, rpc.BatchElem{Method: "eth_getTransactionByHash", Args: []any{tx.Hash()}, Result: l.tx})
		lookups = append(lookups, l)
	}
	if len(lookupElems) > 0 {
		if err := w.fetch(ctx, lookupElems); err != nil {
			w.log().Debug("looking transactions up failed", zap.Error(err))
			lookups = nil
		}
	}
	var lost []*settlement
	for i, l := range lookups {
		if lookupElems[i].Error != nil {
			continue
		}
		if len(*l.tx) > 0 && string(*l.tx) != "null" {
			l.st.unclear.Store(false) // a node has it: followed as any other
			continue
		}
		lost = append(lost, l.st)
	}
	w.sendAgain(ctx, lost)

	var stuck []*settlement
	for _, st := range sts {
		if _, ok := found[st]; ok {
			continue
		}
		if shared && st.missedBlock(uint64(head)) {
			stuck = append(stuck, st)
		}
		st.mu.Lock()
		if st.sentHead == 0 {
			st.sentHead = uint64(head)
		}
		stale := uint64(head) >= st.sentHead+w.e().cfg.ReplaceAfter
		st.mu.Unlock()
		if stale {
			w.replace(ctx, st, uint64(head))
		}
	}
	if shared {
		w.fillGaps(ctx, stuck)
	}
}

// firstAnswers is how many of the outcomes found at one poll, when there
// are more than twice as many, are journaled and answered before the
// others: a write of a few records takes a few milliseconds, of a full
// block's several hundred (on PostgreSQL, under load) tens of them.
const firstAnswers = 64

// ref is a receipt asked for, with its settlement.
type ref struct {
	st *settlement
	r  **receipt
}

// maxBlocksPerPoll bounds the blocks whose receipts one poll reads; a
// settlement mined in an older block is found by its signer's nonce.
const maxBlocksPerPoll = 16

// Whether the node serves eth_getBlockReceipts: not known yet, yes, or no
// (it answered that the method does not exist; receipts are then read one
// transaction at a time, for the process's life).
const (
	blockReceiptsUnknown int32 = iota
	blockReceiptsServed
	blockReceiptsMissing
)

// isMethodMissing reports whether a JSON-RPC error says that the node
// does not serve the method: -32601 (geth, Ethermint and most others), or
// the texts of providers that answer with another code.
func isMethodMissing(err error) bool {
	var re rpc.Error
	if errors.As(err, &re) && re.ErrorCode() == -32601 {
		return true
	}
	msg := strings.ToLower(err.Error())
	for _, s := range []string{"method not found", "does not exist/is not available", "not supported", "unsupported method", "method not allowed", "not whitelisted"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// maxGapFills bounds the fills asked for below one signer's settlements at
// one poll.
const maxGapFills = 256

// fillGaps, with a shared journal, looks below this instance's settlements
// that missed a block for nonces of their signer that the node holds no
// transaction at: nonces that an instance took and then died (or was
// paused) before it journaled or sent them, which stall every later
// transaction of the key, whichever instance sent it. Each is sent again
// from the journal when a settlement holds it, else filled with a
// zero-value transfer (fillIfGap, in the send loop, which checks again
// that the node has nothing there). Once per poll, one nonce read per
// signer; a live instance sends what it took within a fraction of a
// second (awaitTurn), long before its nonces count as gaps here.
func (w *watcher) fillGaps(ctx context.Context, stuck []*settlement) {
	lowest := map[*signer]*types.Transaction{}
	fees := map[*signer]*Fees{}
	for _, st := range stuck {
		tx := st.current()
		if st.s == nil || tx == nil {
			continue
		}
		if cur := lowest[st.s]; cur == nil || tx.Nonce() < cur.Nonce() {
			lowest[st.s] = tx
			st.mu.Lock()
			fees[st.s] = st.fee
			st.mu.Unlock()
		}
	}
	for s, tx := range lowest {
		var pending hexutil.Uint64
		if err := w.e().cfg.Pool.Call(ctx, &pending, "eth_getTransactionCount", s.addr, "pending"); err != nil {
			continue
		}
		for n := uint64(pending); n < tx.Nonce() && n < uint64(pending)+maxGapFills; n++ {
			if !w.follows(s, n) {
				s.requestFill(n, fees[s])
			}
		}
	}
}

// sendAgain broadcasts again, as they were signed, the newest
// transactions of settlements that no node has (the broadcast never
// arrived, or a node dropped them): in nonce order and in batches, so that
// each one sent fills the nonce below the next.
func (w *watcher) sendAgain(ctx context.Context, lost []*settlement) {
	if len(lost) == 0 {
		return
	}
	txs := make([]*types.Transaction, len(lost))
	for i, st := range lost {
		txs[i] = st.current()
	}
	order := make([]int, len(lost))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool { return txs[order[a]].Nonce() < txs[order[b]].Nonce() })
	sorted := make([]*types.Transaction, len(txs))
	for i, j := range order {
		sorted[i] = txs[j]
	}
	results := w.e().broadcastAll(ctx, sorted, time.Time{})
	log := w.log()
	for i, j := range order {
		st, res := lost[j], results[i]
		if res.res == sentOK {
			st.unclear.Store(false)
		}
		log.Warn("a transaction of a settlement is unknown to the node (its broadcast did not arrive, or the node dropped it); sent the same transaction again",
			zap.String("id", st.rec.ID), zap.String("tx", sorted[i].Hash().Hex()), zap.Uint64("tx_nonce", sorted[i].Nonce()), zap.Error(res.err))
	}
}

// receipt is the part of a transaction receipt the watcher reads.
type receipt struct {
	TxHash      common.Hash    `json:"transactionHash"`
	BlockNumber hexutil.Uint64 `json:"blockNumber"`
	Status      hexutil.Uint64 `json:"status"`
	// GasUsed and EffectiveGasPrice are what the transaction cost (a
	// revert's is counted: Revert).
	GasUsed           hexutil.Uint64 `json:"gasUsed"`
	EffectiveGasPrice *hexutil.Big   `json:"effectiveGasPrice"`
}

// maxReceiptBatch bounds the receipts asked for in one JSON-RPC batch;
// receiptFetchers is how many such batches are in flight at once.
const (
	maxReceiptBatch = 200
	receiptFetchers = 4
)

// fetch runs the receipt queries in chunks of maxReceiptBatch, a few at a
// time. Any chunk failing fails the fetch.
func (w *watcher) fetch(ctx context.Context, elems []rpc.BatchElem) error {
	var wg sync.WaitGroup
	errs := make(chan error, (len(elems)+maxReceiptBatch-1)/maxReceiptBatch)
	sem := make(chan struct{}, receiptFetchers)
	for lo := 0; lo < len(elems); lo += maxReceiptBatch {
		chunk := elems[lo:min(lo+maxReceiptBatch, len(elems))]
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			if err := w.e().cfg.Pool.Batch(ctx, chunk); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	return <-errs
}

// resolve settles a settlement's outcome from its receipt.
func (w *watcher) resolve(ctx context.Context, st *settlement, r *receipt) {
	if st.isCancel(r.TxHash) {
		// The zero-value transfer that freed an expired authorization's
		// nonce: nothing moved.
		st.finish(store.StatusFailed, "", 0, x402.ErrTextExpired, w.e().now())
		return
	}
	if uint64(r.Status) == types.ReceiptStatusSuccessful {
		st.finish(store.StatusSettled, r.TxHash.Hex(), uint64(r.BlockNumber), "", w.e().now())
	} else {
		msg := x402.ErrTextFailedOnChain
		used, err := w.e().used(ctx, st.key, st.scheme)
		if err == nil && used {
			msg = x402.ErrTextAlreadyUsed
		}
		st.finish(store.StatusFailed, r.TxHash.Hex(), uint64(r.BlockNumber), msg, w.e().now())
		st.revert = revertOf(r, err == nil && used)
	}
}

// done journals the outcomes in one write, then answers the waiting
// settles and releases the authorizations. With a shared journal that
// can (store.PutReleaser), the outcomes and the release of their holds
// there are one round trip and one transaction.
func (w *watcher) done(sts ...*settlement) {
	if len(sts) == 0 {
		return
	}
	recs := make([]*store.Record, len(sts))
	for i, st := range sts {
		recs[i] = st.rec
	}
	e := w.e()
	var err error
	pr, fold := e.shared.(store.PutReleaser)
	if fold {
		err = pr.PutRelease(recs, e.sharedReleases(sts))
	} else {
		err = e.cfg.Journal.Put(recs...)
	}
	if err != nil {
		w.log().Error("writing settlement outcomes to the journal failed; they will be reconciled on restart", zap.Int("settlements", len(sts)), zap.Error(err))
	}
	w.mu.Lock()
	for _, st := range sts {
		delete(w.pending, st)
	}
	w.mu.Unlock()
	if fold {
		e.releaseHere(sts)
	} else {
		e.release(sts)
	}
	w.reverted(sts)
	for _, st := range sts {
		if st.serial && st.s != nil {
			st.s.serial.Unlock()
		}
		traceFinished(st) // trace.go
		close(st.done)
	}
	logger := w.log()
	for _, st := range sts {
		log := logger.With(zap.String("id", st.rec.ID), zap.String("tx", st.rec.TxHash), zap.Uint64("block", st.rec.BlockNumber), st.trace.IDs())
		if st.rec.Status == store.StatusSettled {
			log.Info("payment settled", zap.String("value", st.rec.Value))
		} else {
			log.Warn("settlement failed", zap.String("error", st.rec.Error))
		}
	}
}

// replace acts on a settlement not mined for replaceAfter blocks.
//
//   - When the signer's nonce has moved past it with none of its
//     transactions mined, something else took the nonce: the token's
//     authorizationState and AuthorizationUsed log say whether and by which
//     transaction the authorization was used.
//   - When the authorization has expired (validBefore passed), the
//     transfer can only revert: the nonce is freed with a zero-value
//     transfer to the signer itself, so the signer never stalls, and the
//     settlement fails as expired once that is mined.
//   - Otherwise it is sent again with the same nonce and fees raised by a
//     quarter (which also brings back a transaction a node dropped), up to
//     the fee ceiling; at the ceiling the same transaction is sent again.
func (w *watcher) replace(ctx context.Context, st *settlement, head uint64) {
	tx := st.current()
	if st.s == nil || tx == nil {
		return
	}
	var latest hexutil.Uint64
	if err := w.e().cfg.Pool.Call(ctx, &latest, "eth_getTransactionCount", st.s.addr, "latest"); err != nil {
		return
	}
	if uint64(latest) > tx.Nonce() {
		w.nonceTaken(ctx, st, head)
		return
	}
	if uint64(latest) < tx.Nonce() && !w.follows(st.s, uint64(latest)) {
		// A nonce below it is not ours to wait for: a gap that no
		// transaction of this core fills (a refused send whose fill
		// was refused too). The send loop fills it, so that this one
		// and those after it can be mined.
		st.mu.Lock()
		fee := st.fee
		st.mu.Unlock()
		st.s.requestFill(uint64(latest), fee)
	}
	defer func() {
		st.mu.Lock()
		st.sentHead = head
		st.mu.Unlock()
	}()
	if st.cancelling() {
		_, _, err := w.e().broadcast(ctx, tx)
		w.log().Warn("the cancel of an expired settlement is not mined yet; sent again", zap.String("id", st.rec.ID), zap.String("tx", tx.Hash().Hex()), zap.Error(err))
		return
	}
	st.mu.Lock()
	fee := st.fee
	st.mu.Unlock()
	if vb, ok := new(big.Int).SetString(st.rec.ValidBefore, 10); ok && vb.Cmp(big.NewInt(w.e().now().Unix())) <= 0 {
		// Expired: free the nonce. The replacement must outbid the
		// transaction it replaces, ceiling or not.
		cancel, err := st.s.selfTransfer(tx.Nonce(), fee, w.e().cfg.ChainID)
		if err != nil {
			return
		}
		st.addTx(cancel, true, w.e().now())
		if err := w.e().cfg.Journal.Put(st.rec); err != nil {
			w.log().Error("journal write failed; not cancelling the expired transaction", zap.Error(err))
			return
		}
		_, _, err = w.e().broadcast(ctx, cancel)
		w.log().Warn("authorization expired before its transaction was mined; freeing the nonce with a zero-value transfer to the signer",
			zap.String("id", st.rec.ID), zap.String("old_tx", tx.Hash().Hex()), zap.String("cancel_tx", cancel.Hash().Hex()), zap.Uint64("tx_nonce", tx.Nonce()), zap.Error(err))
		return
	}
	next := fee.bumped().capped(st.firstFee, w.e().cfg.MaxFeeMultiple)
	if next.equal(fee) {
		_, _, err := w.e().broadcast(ctx, tx)
		w.log().Warn("settlement not mined in time and its fees are at the ceiling; sent the same transaction again",
			zap.String("id", st.rec.ID), zap.String("tx", tx.Hash().Hex()), zap.Error(err))
		return
	}
	repl, err := types.SignNewTx(st.s.key, st.s.txSigner, next.txData(tx.Nonce(), tx.To(), tx.Data(), w.e().cfg.ChainID))
	if err != nil {
		return
	}
	st.mu.Lock()
	st.fee = next
	st.mu.Unlock()
	st.addTx(repl, false, w.e().now())
	if err := w.e().cfg.Journal.Put(st.rec); err != nil {
		w.log().Error("journal write failed; not replacing the transaction", zap.Error(err))
		return
	}
	_, _, err = w.e().broadcast(ctx, repl)
	traceReplaced(st, tx.Hash(), repl.Hash())
	w.log().Warn("settlement not mined in time; sent again with a higher fee",
		zap.String("id", st.rec.ID), zap.String("old_tx", tx.Hash().Hex()), zap.String("new_tx", repl.Hash().Hex()),
		zap.Uint64("tx_nonce", tx.Nonce()), zap.Error(err))
}

// follows reports whether a settlement the watcher follows has a
// transaction from s at nonce.
func (w *watcher) follows(s *signer, nonce uint64) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	for st := range w.pending {
		if st.s == s && st.rec.TxNonce == nonce {
			return true
		}
	}
	return false
}

func (w *watcher) receiptOfAny(ctx context.Context, st *settlement) (*receipt, error) {
	for _, h := range st.hashes() {
		var r *receipt
		if err := w.e().cfg.Pool.Call(ctx, &r, "eth_getTransactionReceipt", h); err != nil {
			return nil, err
		}
		if r != nil {
			return r, nil
		}
	}
	return nil, nil
}

// nonceTaken concludes a settlement whose nonce is spent with none of its
// transactions found mined at the last poll.
func (w *watcher) nonceTaken(ctx context.Context, st *settlement, head uint64) {
	// Receipts once more, in case of a race with the block just read.
	if r, err := w.receiptOfAny(ctx, st); err == nil && r != nil {
		w.resolve(ctx, st, r)
		w.done(st)
		return
	}
	used, err := w.e().used(ctx, st.key, st.scheme)
	if err != nil {
		return // asked again at the next poll
	}
	msg := x402.ErrTextFailedOnChain
	if used {
		msg = x402.ErrTextAlreadyUsed
		// Which transaction used it: if one of ours, its receipt decides.
		if h, err := w.e().usedBy(ctx, st.key, st.scheme, head); err == nil && st.has(h) {
			var r *receipt
			if err := w.e().cfg.Pool.Call(ctx, &r, "eth_getTransactionReceipt", h); err == nil && r != nil {
				w.resolve(ctx, st, r)
				w.done(st)
				return
			}
		}
	}
	st.finish(store.StatusFailed, "", 0, msg, w.e().now())
	st.s.resync.Store(true)
	w.log().Warn("a settlement's nonce was taken by another transaction", zap.String("id", st.rec.ID), zap.Uint64("tx_nonce", st.rec.TxNonce), zap.Bool("authorization_used", used))
	w.done(st)
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
