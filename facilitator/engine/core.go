package engine

import (
	"context"
	"sync"

	"github.com/ethereum/go-ethereum/common"

	"github.com/caddy-x402/caddy-x402/facilitator/store"
)

// One engine per signer key.
//
// The state that belongs to the chain rather than to a configuration lives
// in a core: the signers' send loops with their nonce counters, the watcher
// that follows broadcast transactions, and the holds that keep one
// authorization in one transaction. There is one core per journal, chain
// and token in the process. An Engine is a configuration attached to its
// core: when a configuration is replaced (a Caddy reload builds the new one
// before it closes the old), the new engine joins the running core and
// settlements in flight carry on under the same nonce counters, the same
// watcher and the same holds. The core runs with the newest attached
// engine's settings and RPC pool, and stops when the last engine closes.
//
// Two cores share a signer key only when two journals are configured for
// it, which an operator must not do (the caller reports it).

// coreKey identifies a core: the journal (by identity), the chain and the
// token.
type coreKey struct {
	journal store.Journal
	chainID string
	token   common.Address
}

// cores are the running cores of the process.
var cores = struct {
	sync.Mutex
	m map[coreKey]*core
}{m: map[coreKey]*core{}}

// core is the shared settlement state of one journal, chain and token.
type core struct {
	key      coreKey
	shared   bool // registered in cores
	settling *inflight
	payers   *ledger // per-payer reservations (reserve.go)
	watch    *watcher

	mu      sync.Mutex
	engines []*Engine                  // attached, oldest first
	last    *Engine                    // the last to close
	signers map[common.Address]*signer // every key any attached engine has had
	// recovered are the network names whose journal records the core
	// has recovered (Engine.Recover): once per name for the core's life.
	recovered map[string]bool

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// active is the engine whose settings and RPC pool the core runs with: the
// newest one attached (the last to close, once all have closed).
func (c *core) active() *Engine {
	c.mu.Lock()
	defer c.mu.Unlock()
	if n := len(c.engines); n > 0 {
		return c.engines[n-1]
	}
	return c.last
}

// firstRecovery reports whether the journal's records of network are yet
// to be recovered in this core, and marks them as recovered.
func (c *core) firstRecovery(network string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.recovered[network] {
		return false
	}
	c.recovered[network] = true
	return true
}

// allSigners lists the core's signers.
func (c *core) allSigners() []*signer {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]*signer, 0, len(c.signers))
	for _, s := range c.signers {
		out = append(out, s)
	}
	return out
}

func (e *Engine) signerByAddress(a common.Address) *signer {
	for _, s := range e.signers {
		if s.addr == a {
			return s
		}
	}
	return nil
}
