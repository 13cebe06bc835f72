package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/rpc"
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

// UseMatcher is a Spent whose use log is not specific to one
// authorization (Permit2 logs nothing of the nonces it uses, so upto's
// UseLog is the token's Transfer out of the payer): the engine reads the
// transaction of each such log and asks MatchUse whether it used (payer,
// nonce).
type UseMatcher interface {
	MatchUse(payer common.Address, nonce [32]byte, to *common.Address, input []byte) bool
}

// NonceSpace is the nonce space of a scheme's authorizations on this
// engine's network (Config.Spaces; "": EIP-3009's).
func (e *Engine) NonceSpace(scheme string) string { return e.spaceOf(scheme) }

// spaceOf is the nonce space of a scheme's authorizations (Config.Spaces
// of the scheme whose Spent spentOf answers; "": EIP-3009).
func (e *Engine) spaceOf(scheme string) string {
	if _, ok := e.cfg.Spents[scheme]; ok && scheme != "" {
		return e.cfg.Spaces[scheme]
	}
	return e.cfg.Spaces[""]
}

// spentOf is the Spent of a scheme (Config.Spents; Config.Spent for "").
func (e *Engine) spentOf(scheme string) Spent {
	if s, ok := e.cfg.Spents[scheme]; ok && scheme != "" {
		return s
	}
	return e.cfg.Spent
}

// spentIn is a Spent with the nonce space of its scheme's authorizations.
type spentIn struct {
	Spent
	space string
}

// allSpents lists Config.Spent and Config.Spents' others, once each, with
// their nonce spaces.
func (e *Engine) allSpents() []spentIn {
	out := []spentIn{{e.cfg.Spent, e.cfg.Spaces[""]}}
	for name, s := range e.cfg.Spents {
		if name != "" {
			out = append(out, spentIn{s, e.cfg.Spaces[name]})
		}
	}
	return out
}

// used reads on chain whether an authorization of a scheme is used
// (its Spent, at the latest block).
func (e *Engine) used(ctx context.Context, k authKey, scheme string) (bool, error) {
	elems, read := e.spentOf(scheme).UsedCalls(0, k.from, [][32]byte{k.nonce})
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

// usedByLookback is how many blocks back usedBy searches: one chunk of a
// scan (findUse), enough for a settlement the watcher just saw.
const usedByLookback = useLogChunk

// ErrNoUseLog: the chain has no log of the authorization's use (the
// Spent's UseLog; for a UseMatcher, none whose transaction MatchUse
// takes) within the blocks searched: UsedBySchemes's error for an
// authorization used on chain whose transaction is not found (match it
// with errors.Is).
var ErrNoUseLog = errors.New("no AuthorizationUsed log found")

// UsedBy reads whether an authorization is used on chain and, when it is,
// finds the transaction that used it from the log of its use (Spent,
// EIP-3009: the token's AuthorizationUsed), scanning back from the head over the look-up window
// (Config.UseLogWindow; see findUse). An authorization used whose log is
// not found within the window is an error, as is a chain that cannot be
// reached.
func (e *Engine) UsedBy(ctx context.Context, from common.Address, nonce [32]byte) (used bool, tx common.Hash, err error) {
	return e.UsedBySchemes(ctx, "", from, nonce)
}

// UsedBySchemes is UsedBy for an authorization of the given scheme ("":
// Config.Spent's).
func (e *Engine) UsedBySchemes(ctx context.Context, scheme string, from common.Address, nonce [32]byte) (used bool, tx common.Hash, err error) {
	k := authKey{from: from, nonce: nonce, space: e.spaceOf(scheme)}
	if used, err = e.used(ctx, k, scheme); err != nil || !used {
		return used, common.Hash{}, err
	}
	tx, err = e.findUse(ctx, k, scheme)
	if err != nil {
		return true, common.Hash{}, fmt.Errorf("authorization used on chain, but its transaction is not found: %w", err)
	}
	return true, tx, nil
}

// usedBy finds the transaction that used an authorization, from the log
// of its use, in the last usedByLookback blocks.
func (e *Engine) usedBy(ctx context.Context, k authKey, scheme string, head uint64) (common.Hash, error) {
	from := uint64(0)
	if head > usedByLookback {
		from = head - usedByLookback
	}
	var logs []useLog
	sp := e.spentOf(scheme)
	addr, topics := sp.UseLog(k.from, k.nonce)
	q := map[string]any{
		"address":   addr,
		"fromBlock": hexutil.Uint64(from),
		"toBlock":   "latest",
		"topics":    topics,
	}
	if err := e.cfg.Pool.Call(ctx, &logs, "eth_getLogs", q); err != nil {
		return common.Hash{}, err
	}
	if m, ok := sp.(UseMatcher); ok {
		h, found, err := e.matchUse(ctx, m, k, logs)
		if err != nil {
			return common.Hash{}, err
		}
		if !found {
			return common.Hash{}, ErrNoUseLog
		}
		return h, nil
	}
	if len(logs) == 0 {
		return common.Hash{}, ErrNoUseLog
	}
	return logs[0].TxHash, nil
}

// matchUse reads the transactions of logs (newest first, one batch) and
// finds the one that used k (UseMatcher).
func (e *Engine) matchUse(ctx context.Context, m UseMatcher, k authKey, logs []useLog) (common.Hash, bool, error) {
	var hashes []common.Hash
	for i := len(logs) - 1; i >= 0; i-- {
		if !logs[i].Removed && !slices.Contains(hashes, logs[i].TxHash) {
			hashes = append(hashes, logs[i].TxHash)
		}
	}
	if len(hashes) == 0 {
		return common.Hash{}, false, nil
	}
	txs := make([]*struct {
		To    *common.Address `json:"to"`
		Input hexutil.Bytes   `json:"input"`
	}, len(hashes))
	elems := make([]rpc.BatchElem, len(hashes))
	for i, h := range hashes {
		elems[i] = rpc.BatchElem{Method: "eth_getTransactionByHash", Args: []any{h}, Result: &txs[i]}
	}
	if err := e.cfg.Pool.Batch(ctx, elems); err != nil {
		return common.Hash{}, false, err
	}
	for i, el := range elems {
		if el.Error != nil {
			return common.Hash{}, false, fmt.Errorf("reading transaction %s: %w", hashes[i].Hex(), el.Error)
		}
		if txs[i] != nil && m.MatchUse(k.from, k.nonce, txs[i].To, txs[i].Input) {
			return hashes[i], true, nil
		}
	}
	return common.Hash{}, false, nil
}

// The transaction that used an authorization is found by the log of its
// use (Spent.UseLog; EIP-3009: the token's AuthorizationUsed(authorizer,
// nonce), whose two arguments are both indexed): eth_getLogs with its
// address and topics, over useLogChunk
// blocks at a time, backwards from the head, stopping at the first chunk
// that holds the log, or once a chunk begins before the look-up window
// (Config.UseLogWindow, the journal retention), or at block 0. Each chunk
// is one JSON-RPC batch of two calls: the logs of the chunk and the header
// of its first block, whose timestamp says whether the window is covered.
//
// The cost of a full window: window / (useLogChunk × block time) round
// trips, plus one for the head. 30 days at Cronos's 0.4 s blocks (6.48
// million blocks) is 649 round trips of 2 calls (1,297 calls); a
// settlement a few minutes old is found in the first.

// useLogChunk is the block range of one eth_getLogs. 10,000 is what
// Ethermint nodes, Cronos's among them, accept by default (json-rpc
// block-range-cap = 10000; a wider range is refused, not truncated) and
// what hosted providers commonly allow for a filtered query; with an
// address and three topics the answer is at most one log, so a chunk costs
// the node a bloom-filter pass over its headers, not a large answer.
const useLogChunk = 10_000

// scanMinBlockTime bounds a scan's chunks whatever the chain's pace: at
// most window / (useLogChunk × scanMinBlockTime) chunks, so a chain whose
// timestamps stand still (or a node that lies about them) cannot make a
// scan read the whole chain. Half of Cronos's 0.4 s leaves room.
const scanMinBlockTime = 200 * time.Millisecond

// DefaultUseLogWindow is the look-up window when Config.UseLogWindow is 0:
// 30 days, the default journal retention.
const DefaultUseLogWindow = 30 * 24 * time.Hour

// useLogWindow is the window a scan covers.
func (e *Engine) useLogWindow() time.Duration {
	if e.cfg.UseLogWindow > 0 {
		return e.cfg.UseLogWindow
	}
	return DefaultUseLogWindow
}

// maxScanChunks is the most chunks one scan reads for a window.
func maxScanChunks(window time.Duration) int {
	per := time.Duration(useLogChunk) * scanMinBlockTime
	return max(1, int((window+per-1)/per))
}

// blockHead is the part of a block header a scan reads.
type blockHead struct {
	Number hexutil.Uint64 `json:"number"`
	Time   hexutil.Uint64 `json:"timestamp"`
}

// useLog is the part of a use log a scan reads.
type useLog struct {
	TxHash  common.Hash `json:"transactionHash"`
	Removed bool        `json:"removed"`
}

// useLogFilter is the eth_getLogs filter for an authorization's use in
// blocks from..to.
func (e *Engine) useLogFilter(sp Spent, k authKey, from, to uint64) map[string]any {
	addr, topics := sp.UseLog(k.from, k.nonce)
	return map[string]any{
		"address":   addr,
		"fromBlock": hexutil.Uint64(from),
		"toBlock":   hexutil.Uint64(to),
		"topics":    topics,
	}
}

// scanResult says how far a scan went, for its error.
type scanResult struct {
	chunks int    // round trips of chunks read
	oldest uint64 // the lowest block read
}

// findUse scans for the transaction that used an authorization (see the
// top of this file). A use not found in the window is ErrNoUseLog; a chain
// that cannot be reached (or a context that ends) is another error.
func (e *Engine) findUse(ctx context.Context, k authKey, scheme string) (common.Hash, error) {
	sp := e.spentOf(scheme)
	m, _ := sp.(UseMatcher)
	var head *blockHead
	if err := e.cfg.Pool.Call(ctx, &head, "eth_getBlockByNumber", "latest", false); err != nil {
		return common.Hash{}, err
	}
	if head == nil {
		return common.Hash{}, errors.New("the node has no latest block")
	}
	window := e.useLogWindow()
	// The window is measured on the chain's clock: the head's timestamp
	// minus the window.
	cutoff := int64(head.Time) - int64(window/time.Second)
	limit := maxScanChunks(window)
	var res scanResult
	hi := uint64(head.Number)
	for res.chunks < limit {
		lo := hi - min(hi, useLogChunk-1)
		var logs []useLog
		var low *blockHead
		elems := []rpc.BatchElem{
			{Method: "eth_getLogs", Args: []any{e.useLogFilter(sp, k, lo, hi)}, Result: &logs},
			{Method: "eth_getBlockByNumber", Args: []any{hexutil.Uint64(lo), false}, Result: &low},
		}
		if err := e.cfg.Pool.Batch(ctx, elems); err != nil {
			return common.Hash{}, err
		}
		if err := errors.Join(elems[0].Error, elems[1].Error); err != nil {
			return common.Hash{}, fmt.Errorf("reading blocks %d to %d: %w", lo, hi, err)
		}
		res.chunks, res.oldest = res.chunks+1, lo
		if m != nil {
			h, found, err := e.matchUse(ctx, m, k, logs)
			if err != nil {
				return common.Hash{}, err
			}
			if found {
				return h, nil
			}
			logs = nil
		}
		for i := len(logs) - 1; i >= 0; i-- {
			if !logs[i].Removed {
				return logs[i].TxHash, nil
			}
		}
		if lo == 0 || low == nil || int64(low.Time) < cutoff {
			return common.Hash{}, fmt.Errorf("%w in blocks %d to %d (the look-up window of %s, %d round trips)", ErrNoUseLog, lo, uint64(head.Number), window, res.chunks)
		}
		hi = lo - 1
	}
	return common.Hash{}, fmt.Errorf("%w in blocks %d to %d (%d round trips, the most one look-up reads for a window of %s)", ErrNoUseLog, res.oldest, uint64(head.Number), res.chunks, window)
}
