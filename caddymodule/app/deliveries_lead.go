package app

import (
	"context"

	"github.com/caddy-x402/caddy-x402/facilitator/store"
)

// Lead takes or keeps a role (key) for this instance across every
// instance sharing the store (store.Leader): true when this instance
// holds it. With a store of one process (memory, bbolt) the process is
// the only instance and always leads.
func (rd *Deliveries) Lead(ctx context.Context, key string) (bool, error) {
	if l, ok := rd.claims.(store.Leader); ok {
		return l.Lead(ctx, key)
	}
	return true, nil
}

// Resign gives a role of Lead up, so that another instance takes it at
// once.
func (rd *Deliveries) Resign(ctx context.Context, key string) error {
	if l, ok := rd.claims.(store.Leader); ok {
		return l.Resign(ctx, key)
	}
	return nil
}

// Shared reports whether several instances share the store (a role
// then goes to one of them).
func (rd *Deliveries) Shared() bool {
	_, ok := rd.claims.(store.Leader)
	return ok
}
