package memory

import (
	"context"
	"sync"

	"github.com/caddy-x402/caddy-x402/facilitator/store"
)

// claims are the claims of one process.
type claims struct {
	mu   sync.Mutex
	held map[string]struct{}
}

// NewClaims returns claims that hold keys within this process, for
// the embedded (memory and bbolt) stores, which one process uses.
func NewClaims() store.Claims { return &claims{held: map[string]struct{}{}} }

func (c *claims) Claim(_ context.Context, key string) (store.ClaimResult, error) {
	if !c.take(key) {
		return store.HeldHere, nil
	}
	return store.Claimed, nil
}

// take holds key; false when it is held already.
func (c *claims) take(key string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.held[key]; ok {
		return false
	}
	c.held[key] = struct{}{}
	return true
}

func (c *claims) Release(key string) {
	c.mu.Lock()
	delete(c.held, key)
	c.mu.Unlock()
}
