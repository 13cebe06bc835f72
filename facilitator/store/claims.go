package store

import (
	"context"
	"sync"
)

// ClaimResult says how a claim went.
type ClaimResult int

const (
	// Claimed: the caller holds the key until it releases it.
	Claimed ClaimResult = iota
	// HeldHere: a request of this process holds the key.
	HeldHere
	// HeldElsewhere: another instance (sharing a PostgreSQL store) holds
	// the key; the caller may try again shortly. An instance that died
	// holding a key loses it when its lease runs out.
	HeldElsewhere
)

// Claims hold keys (an authorization, a payment id) for one request at a
// time: of this process, and with a shared store, of every instance.
type Claims interface {
	// Claim takes key for the caller. An error means the claim could not
	// be decided (a shared store out of reach): nothing is held.
	Claim(ctx context.Context, key string) (ClaimResult, error)
	// Release gives back a key taken with Claim.
	Release(key string)
}

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
