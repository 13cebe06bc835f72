package bolt

import (
	"errors"
	"sync"

	"go.etcd.io/bbolt"
)

// group commits concurrent writes in groups: a write that finds no
// commit running commits at once, alone (no wait, unlike bbolt's Batch,
// which holds a lone write for its MaxBatchDelay, 10 ms); the writes that
// arrive while a commit runs wait and are committed together by one of
// them next, in one transaction and one fsync. So a lone paid request
// pays one commit, and many at once share one.
type group struct {
	db      *bbolt.DB
	mu      sync.Mutex
	queue   []*groupCall
	running bool
}

// groupCall is one write waiting in a group.
type groupCall struct {
	fn   func(*bbolt.Tx) error
	err  error
	wake chan bool // true: lead the next commit; false: committed (err)
}

// errGroupFn marks a group's transaction rolled back by one of its writes.
var errGroupFn = errors.New("a write of the group failed")

// run runs fn in a write transaction, committed with the writes queued
// beside it. fn may run more than once (alone, after a group failed).
func (g *group) run(fn func(*bbolt.Tx) error) error {
	c := &groupCall{fn: fn, wake: make(chan bool, 1)}
	g.mu.Lock()
	g.queue = append(g.queue, c)
	lead := !g.running
	g.running = true
	g.mu.Unlock()
	if !lead && !<-c.wake {
		return c.err
	}
	// Lead: commit every write queued now (this one among them), then hand
	// the lead to the first write that queued meanwhile.
	g.mu.Lock()
	calls := g.queue
	g.queue = nil
	g.mu.Unlock()
	g.commit(calls)
	g.mu.Lock()
	if len(g.queue) > 0 {
		g.queue[0].wake <- true
	} else {
		g.running = false
	}
	g.mu.Unlock()
	for _, o := range calls {
		if o != c {
			o.wake <- false
		}
	}
	return c.err
}

// commit runs calls in one transaction; when one of them fails, the
// transaction is rolled back and each runs again in a transaction of its
// own, so that one write's error is not another's.
func (g *group) commit(calls []*groupCall) {
	err := g.db.Update(func(tx *bbolt.Tx) error {
		for _, c := range calls {
			if err := c.fn(tx); err != nil {
				c.err = err
				return errGroupFn
			}
		}
		return nil
	})
	if err == nil || len(calls) == 1 {
		for _, c := range calls {
			if errors.Is(err, errGroupFn) {
				continue // c.err set
			}
			c.err = err
		}
		return
	}
	for _, c := range calls {
		c.err = g.db.Update(c.fn)
	}
}
