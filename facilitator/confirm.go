package facilitator

import (
	"context"
	"time"

	"sync"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/rpc"
	"go.uber.org/zap"
)

// confirmer notices when transactions land in blocks. One loop per network
// polls the head every interval while anything waits, and on a new head
// (or a new waiter) asks for every waiting receipt in one batch, so a
// settle answers within one poll interval of its block, however many wait.
type confirmer struct {
	rpc      *rpcPool
	interval time.Duration
	logger   *zap.Logger

	mu       sync.Mutex
	waiters  map[common.Hash][]chan *types.Receipt
	fresh    bool   // a waiter arrived since the last receipt query
	lastHead uint64 // head at the last receipt query
}

func newConfirmer(pool *rpcPool, interval time.Duration, logger *zap.Logger) *confirmer {
	return &confirmer{rpc: pool, interval: interval, logger: logger, waiters: map[common.Hash][]chan *types.Receipt{}}
}

// wait blocks until the transaction's receipt is seen or ctx ends.
func (c *confirmer) wait(ctx context.Context, hash common.Hash) (*types.Receipt, error) {
	ch := make(chan *types.Receipt, 1)
	c.mu.Lock()
	c.waiters[hash] = append(c.waiters[hash], ch)
	c.fresh = true
	c.mu.Unlock()
	select {
	case r := <-ch:
		return r, nil
	case <-ctx.Done():
		c.mu.Lock()
		list := c.waiters[hash]
		for i, w := range list {
			if w == ch {
				list = append(list[:i], list[i+1:]...)
				break
			}
		}
		if len(list) == 0 {
			delete(c.waiters, hash)
		} else {
			c.waiters[hash] = list
		}
		c.mu.Unlock()
		// The receipt may have been delivered while ctx ended.
		select {
		case r := <-ch:
			return r, nil
		default:
		}
		return nil, ctx.Err()
	}
}

// pending is the number of transactions waited for.
func (c *confirmer) pending() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.waiters)
}

func (c *confirmer) run(ctx context.Context) {
	t := time.NewTicker(c.interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			c.poll(ctx)
		}
	}
}

func (c *confirmer) poll(ctx context.Context) {
	c.mu.Lock()
	if len(c.waiters) == 0 {
		c.mu.Unlock()
		return
	}
	fresh := c.fresh
	last := c.lastHead
	c.mu.Unlock()

	var head hexutil.Uint64
	if err := c.rpc.call(ctx, &head, "eth_blockNumber"); err != nil {
		c.logger.Debug("polling the head failed", zap.Error(err))
		return
	}
	if uint64(head) == last && !fresh {
		return
	}

	c.mu.Lock()
	c.fresh = false
	hashes := make([]common.Hash, 0, len(c.waiters))
	for h := range c.waiters {
		hashes = append(hashes, h)
	}
	c.mu.Unlock()

	receipts := make([]*types.Receipt, len(hashes))
	elems := make([]rpc.BatchElem, len(hashes))
	for i, h := range hashes {
		elems[i] = rpc.BatchElem{Method: "eth_getTransactionReceipt", Args: []any{h}, Result: &receipts[i]}
	}
	if err := c.rpc.batch(ctx, elems); err != nil {
		c.logger.Debug("fetching receipts failed", zap.Error(err))
		c.mu.Lock()
		c.fresh = true
		c.mu.Unlock()
		return
	}

	c.mu.Lock()
	defer c.mu.Unlock()
	c.lastHead = uint64(head)
	for i, h := range hashes {
		if elems[i].Error != nil || receipts[i] == nil {
			continue
		}
		for _, ch := range c.waiters[h] {
			ch <- receipts[i]
		}
		delete(c.waiters, h)
	}
}
