package evm

import (
	"context"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/rpc"
)

// Shared batches: the reads of many concurrent settles and verifies (a
// few elements each) go to the node in a few JSON-RPC batches instead of
// one HTTP round trip (and, in a burst, one new connection) each.
const (
	// maxGatherElems bounds the elements of one shared batch.
	maxGatherElems = 128
	// maxGatherInFlight is how many shared batches are sent at once.
	// While that many are on their way, new calls queue up and go
	// together in the next one; a call that finds a sender free goes at
	// once, so an idle facilitator adds no delay.
	maxGatherInFlight = 4
)

// gatherer queues the calls of Pool.BatchShared.
type gatherer struct {
	mu       sync.Mutex
	queue    []*gatherCall
	inFlight int
}

type gatherCall struct {
	ctx   context.Context
	elems []rpc.BatchElem
	done  chan error // buffered: the sender never waits for the caller
}

// BatchShared is Batch, with the elements sent in one JSON-RPC batch together
// with those of other BatchShared calls made at the same moment. Per-element
// errors are left in each element's Error; an error of the shared round
// trip is every caller's error.
//
// BatchShared returns when the batch is answered or ctx ends. After an error
// (ctx's included) the elements and their results may still be written
// until the shared batch is over: the caller must not read or reuse them.
func (p *Pool) BatchShared(ctx context.Context, elems []rpc.BatchElem) error {
	if len(elems) == 0 {
		return nil
	}
	sp := traceReads(ctx, len(elems)) // trace.go
	defer sp.End()
	if len(elems) >= maxGatherElems {
		return p.Batch(ctx, elems)
	}
	c := &gatherCall{ctx: ctx, elems: elems, done: make(chan error, 1)}
	g := &p.gather
	g.mu.Lock()
	g.queue = append(g.queue, c)
	start := g.inFlight < maxGatherInFlight
	if start {
		g.inFlight++
	}
	g.mu.Unlock()
	if start {
		go p.sendGathered()
	}
	select {
	case err := <-c.done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// sendGathered sends what is queued, in batches of up to maxGatherElems
// elements, until the queue is empty.
func (p *Pool) sendGathered() {
	g := &p.gather
	for {
		g.mu.Lock()
		var calls []*gatherCall
		n := 0
		for len(g.queue) > 0 && (len(calls) == 0 || n+len(g.queue[0].elems) <= maxGatherElems) {
			c := g.queue[0]
			g.queue[0] = nil
			g.queue = g.queue[1:]
			if c.ctx.Err() != nil {
				c.done <- c.ctx.Err()
				continue
			}
			calls = append(calls, c)
			n += len(c.elems)
		}
		if len(calls) == 0 {
			g.inFlight--
			g.queue = nil // let the backing array go
			g.mu.Unlock()
			return
		}
		g.mu.Unlock()
		p.sendCalls(calls, n)
	}
}

// sendCalls sends the calls' elements in one batch, within the latest of
// their deadlines (none if any has none), and answers each call.
func (p *Pool) sendCalls(calls []*gatherCall, n int) {
	elems := make([]rpc.BatchElem, 0, n)
	var deadline time.Time
	unbounded := false
	for _, c := range calls {
		elems = append(elems, c.elems...)
		if d, ok := c.ctx.Deadline(); !ok {
			unbounded = true
		} else if d.After(deadline) {
			deadline = d
		}
	}
	ctx, cancel := context.Background(), context.CancelFunc(func() {})
	if !unbounded {
		ctx, cancel = context.WithDeadline(ctx, deadline)
	}
	err := p.Batch(ctx, elems)
	cancel()
	i := 0
	for _, c := range calls {
		for j := range c.elems {
			c.elems[j].Error = elems[i].Error
			i++
		}
		c.done <- err
	}
}
