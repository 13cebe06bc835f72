package engine

import (
	"context"
	"reflect"

	"github.com/ethereum/go-ethereum/common"
)

// attach joins e to the running core of its journal, chain and token, or
// starts one. joined reports that the core was running already.
func attach(e *Engine) (c *core, joined bool) {
	k := coreKey{journal: e.cfg.Journal, chainID: e.cfg.ChainID.String(), token: e.cfg.Token}
	// A journal that cannot be a map key (not comparable) gets a core of
	// its own.
	shareable := e.cfg.Journal != nil && reflect.TypeOf(e.cfg.Journal).Comparable()
	cores.Lock()
	defer cores.Unlock()
	if shareable {
		c = cores.m[k]
	}
	if c == nil {
		c = &core{key: k, shared: shareable, settling: newInflight(), payers: newLedger(), signers: map[common.Address]*signer{}, recovered: map[string]bool{}}
		c.ctx, c.cancel = context.WithCancel(context.Background())
		if shareable {
			cores.m[k] = c
		}
	} else {
		joined = true
	}
	c.mu.Lock()
	c.engines = append(c.engines, e)
	e.signers = e.signers[:0]
	var fresh []*signer
	for _, key := range e.cfg.Keys {
		s := newSigner(key, e.cfg.ChainID)
		if have := c.signers[s.addr]; have != nil {
			s = have
		} else {
			c.signers[s.addr] = s
			fresh = append(fresh, s)
		}
		e.signers = append(e.signers, s)
	}
	c.mu.Unlock()
	if !joined {
		c.watch = newWatcher(c, e)
	}
	for _, s := range fresh {
		c.wg.Add(1)
		go func() {
			defer c.wg.Done()
			s.loop(c.ctx, c)
		}()
	}
	if !joined {
		c.wg.Add(2)
		go func() {
			defer c.wg.Done()
			c.watch.run(c.ctx)
		}()
		go func() {
			defer c.wg.Done()
			c.watchGas(c.ctx)
		}()
	}
	return c, joined
}

// detach removes e from its core. The last engine to leave stops the core:
// its loops end, what is queued is refused as not sent, and settlements
// waiting for their blocks stay pending in the journal for the next start.
func (c *core) detach(e *Engine) {
	cores.Lock()
	defer cores.Unlock()
	c.mu.Lock()
	for i, x := range c.engines {
		if x == e {
			c.engines = append(c.engines[:i], c.engines[i+1:]...)
			break
		}
	}
	last := len(c.engines) == 0
	if last {
		c.last = e
	}
	c.mu.Unlock()
	if !last {
		return
	}
	if c.shared && cores.m[c.key] == c {
		delete(cores.m, c.key)
	}
	// Stopped under the registry's lock, so that an engine starting on the
	// same journal next recovers what this core leaves pending, not what
	// it is still finishing.
	c.cancel()
	c.wg.Wait()
}
