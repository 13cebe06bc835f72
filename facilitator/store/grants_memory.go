package store

import (
	"sync"
	"time"
)

// memGrants are the grants and used nonces in memory, beside the memory
// redemption store.
type memGrants struct {
	mu     sync.Mutex
	grants map[string]Grant
	nonces map[string]time.Time
}

func newMemGrants() *memGrants {
	return &memGrants{grants: map[string]Grant{}, nonces: map[string]time.Time{}}
}

// Grants is the grant store that lives beside the memory redemptions.
func (s *memRedemptions) Grants() Grants { return s.grants }

func (g *memGrants) PutGrant(gr *Grant) (bool, error) {
	payer, err := gr.check()
	if err != nil {
		return false, err
	}
	k := grantKey(gr.Route, payer)
	g.mu.Lock()
	defer g.mu.Unlock()
	if cur, ok := g.grants[k]; ok && !cur.End.Before(gr.End) {
		return false, nil
	}
	c := *gr
	c.Payer = payer
	g.grants[k] = c
	return true, nil
}

func (g *memGrants) Grant(route, payer string) (*Grant, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	cur, ok := g.grants[grantKey(route, payer)]
	if !ok {
		return nil, nil
	}
	return &cur, nil
}

func (g *memGrants) UseNonce(nonce string, expires time.Time) (bool, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if _, ok := g.nonces[nonce]; ok {
		return false, nil
	}
	g.nonces[nonce] = expires
	return true, nil
}

func (g *memGrants) PruneGrants(t time.Time) (int, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	n := 0
	for k, gr := range g.grants {
		if gr.End.Before(t) {
			delete(g.grants, k)
			n++
		}
	}
	for k, exp := range g.nonces {
		if exp.Before(t) {
			delete(g.nonces, k)
			n++
		}
	}
	return n, nil
}
