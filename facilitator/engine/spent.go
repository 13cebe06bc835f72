package engine

import (
	"context"
	"errors"
	"fmt"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/rpc"
	"go.uber.org/zap"

	"github.com/caddy-x402/caddy-x402/facilitator/store"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// Spent is what the engine asks a payment scheme about its authorizations
// on chain, instead of calling a token itself: whether one is used, and by
// which log its use is found (EIP-3009: authorizationState and the
// AuthorizationUsed log, in package facilitator).
type Spent interface {
	// UsedCalls returns the batch elements that read, at block (0 means
	// the latest), whether each of payer's nonces is used, and a function
	// that reads their results once the batch is answered (the caller
	// checks the elements' errors).
	UsedCalls(block uint64, payer common.Address, nonces [][32]byte) ([]rpc.BatchElem, func() ([]bool, error))
	// UseLog is the eth_getLogs address and topics of the log that marks
	// (payer, nonce) used, so that the transaction that used it is found.
	UseLog(payer common.Address, nonce [32]byte) (common.Address, []any)
}

// used reads on chain whether an authorization is used (Spent, at the
// latest block).
func (e *Engine) used(ctx context.Context, k authKey) (bool, error) {
	elems, read := e.cfg.Spent.UsedCalls(0, k.from, [][32]byte{k.nonce})
	el := elems[0]
	if err := e.cfg.Pool.Call(ctx, el.Result, el.Method, el.Args...); err != nil {
		return false, err
	}
	used, err := read()
	if err != nil {
		return false, err
	}
	return used[0], nil
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
	used, err := w.e().used(ctx, st.key)
	if err != nil {
		return // asked again at the next poll
	}
	msg := x402.ErrTextFailedOnChain
	if used {
		msg = x402.ErrTextAlreadyUsed
		// Which transaction used it: if one of ours, its receipt decides.
		if h, err := w.e().usedBy(ctx, st.key, head); err == nil && st.has(h) {
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

// usedByLookback is how many blocks back usedBy searches: one chunk of a
// scan (findUse), enough for a settlement the watcher just saw.
const usedByLookback = useLogChunk

// errNoUseLog: the chain has no log of the authorization's use (the
// Spent's UseLog) within the blocks searched.
var errNoUseLog = errors.New("no AuthorizationUsed log found")

// UsedBy reads whether an authorization is used on chain and, when it is,
// finds the transaction that used it from the log of its use (Spent,
// EIP-3009: the token's AuthorizationUsed), scanning back from the head over the look-up window
// (Config.UseLogWindow; see findUse). An authorization used whose log is
// not found within the window is an error, as is a chain that cannot be
// reached.
func (e *Engine) UsedBy(ctx context.Context, from common.Address, nonce [32]byte) (used bool, tx common.Hash, err error) {
	k := authKey{from: from, nonce: nonce}
	if used, err = e.used(ctx, k); err != nil || !used {
		return used, common.Hash{}, err
	}
	tx, err = e.findUse(ctx, k)
	if err != nil {
		return true, common.Hash{}, fmt.Errorf("authorization used on chain, but its transaction is not found: %w", err)
	}
	return true, tx, nil
}

// usedBy finds the transaction that used an authorization, from the log
// of its use, in the last usedByLookback blocks.
func (e *Engine) usedBy(ctx context.Context, k authKey, head uint64) (common.Hash, error) {
	from := uint64(0)
	if head > usedByLookback {
		from = head - usedByLookback
	}
	var logs []struct {
		TxHash common.Hash `json:"transactionHash"`
	}
	addr, topics := e.cfg.Spent.UseLog(k.from, k.nonce)
	q := map[string]any{
		"address":   addr,
		"fromBlock": hexutil.Uint64(from),
		"toBlock":   "latest",
		"topics":    topics,
	}
	if err := e.cfg.Pool.Call(ctx, &logs, "eth_getLogs", q); err != nil {
		return common.Hash{}, err
	}
	if len(logs) == 0 {
		return common.Hash{}, errNoUseLog
	}
	return logs[0].TxHash, nil
}
