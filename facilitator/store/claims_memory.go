package store

import (
	"context"
	"sync"
)

// localClaims are the claims of one process.
type localClaims struct {
	mu   sync.Mutex
	held map[string]struct{}
}

// NewLocalClaims returns claims that hold keys within this process, for
// the embedded (memory and bbolt) stores, which one process uses.
func NewLocalClaims() Claims { return &localClaims{held: map[string]struct{}{}} }

func (c *localClaims) Claim(_ context.Context, key string) (ClaimResult, error) {
	if !c.take(key) {
		return HeldHere, nil
	}
	return Claimed, nil
}

// take holds key; false when it is held already.
func (c *localClaims) take(key string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.held[key]; ok {
		return false
	}
	c.held[key] = struct{}{}
	return true
}

func (c *localClaims) Release(key string) {
	c.mu.Lock()
	delete(c.held, key)
	c.mu.Unlock()
}
