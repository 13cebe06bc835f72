package network

import (
	"context"
	"errors"
	"math/big"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/caddy-x402/caddy-x402/facilitator/evm"
)

// QuoteTTL is how long gas prices read for one settle serve the others.
const QuoteTTL = time.Second

// FeeQuote is a network's gas prices at a moment.
type FeeQuote struct {
	Tip, BaseFee *big.Int // EIP-1559 (BaseFee nil on a legacy chain)
	GasPrice     *big.Int // legacy
	Err          error    // why there are none
	At           time.Time
}

// FeeQuotes caches the gas prices of a network. One settle at a time reads
// them, in its own batch; the settles that come while there is no good
// quote and a read is on its way wait for that read rather than make their
// own (on a cold start, a burst of settles makes one read, not one each).
type FeeQuotes struct {
	mu sync.Mutex
	q  *FeeQuote
	// reading is closed when the read on its way is put; nil when none is.
	reading chan struct{}
}

// Get returns the quote to use: a good one (fresh, or while a read of a
// newer one is on its way). Else fetch is true when the caller is to read
// a new one (and put it, whatever came of it), or wait is the read on its
// way, whose quote Await gives.
func (c *FeeQuotes) Get() (q *FeeQuote, fetch bool, wait <-chan struct{}) {
	c.mu.Lock()
	defer c.mu.Unlock()
	good := c.q != nil && c.q.Err == nil
	if good && (time.Since(c.q.At) < QuoteTTL || c.reading != nil) {
		return c.q, false, nil
	}
	if c.reading != nil {
		return nil, false, c.reading
	}
	c.reading = make(chan struct{})
	return c.q, true, nil
}

// Put ends the caller's read with its quote (nil or failed when the read
// failed: a good quote read before stays).
func (c *FeeQuotes) Put(q *FeeQuote) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if q != nil && (q.Err == nil || c.q == nil || c.q.Err != nil) {
		c.q = q
	}
	if c.reading != nil {
		close(c.reading)
		c.reading = nil
	}
}

// Await waits, within ctx, for the read wait (from Get) and returns the
// quote it brought. When it brought none (it failed, or its settle gave
// up), the gas prices are read once more, by this settle or by another
// that waits then, and that read's outcome is the answer. Nil when ctx
// ends first or the read fails.
func (c *FeeQuotes) Await(ctx context.Context, wait <-chan struct{}, pool *evm.Pool) *FeeQuote {
	if !waitFor(ctx, wait) {
		return nil
	}
	q, fetch, next := c.Get()
	switch {
	case fetch:
		fr := NewFeeRead()
		err := pool.BatchShared(ctx, fr.Elems)
		if err == nil {
			q = fr.Quote(fr.Elems)
		}
		c.Put(q)
		if err != nil {
			return nil
		}
		return q
	case next == nil:
		return q
	}
	if !waitFor(ctx, next) {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.q
}

// waitFor waits for ch to close; false when ctx ends first.
func waitFor(ctx context.Context, ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	case <-ctx.Done():
		return false
	}
}

// FeeRead is the batch elements that read the gas prices.
type FeeRead struct {
	Elems   []rpc.BatchElem
	tip, gp hexutil.Big
	head    struct {
		BaseFee *hexutil.Big `json:"baseFeePerGas"`
	}
}

// NewFeeRead makes the elements of one read of the gas prices, to be
// sent in a batch.
func NewFeeRead() *FeeRead {
	r := &FeeRead{}
	r.Elems = []rpc.BatchElem{
		{Method: "eth_maxPriorityFeePerGas", Result: &r.tip},
		{Method: "eth_gasPrice", Result: &r.gp},
		{Method: "eth_getBlockByNumber", Args: []any{"latest", false}, Result: &r.head},
	}
	return r
}

// Quote reads the answered elements (the batch's copies of r.Elems).
func (r *FeeRead) Quote(el []rpc.BatchElem) *FeeQuote {
	q := &FeeQuote{At: time.Now()}
	switch {
	case el[2].Error == nil && r.head.BaseFee != nil:
		q.BaseFee, q.Tip = r.head.BaseFee.ToInt(), big.NewInt(0)
		if el[0].Error == nil {
			q.Tip = r.tip.ToInt()
		}
	case el[1].Error == nil:
		q.GasPrice = r.gp.ToInt()
	default:
		q.Err = errors.Join(el[1].Error, el[2].Error)
	}
	return q
}
