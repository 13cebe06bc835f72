package memory

import (
	"sync"
	"time"

	"github.com/caddy-x402/caddy-x402/facilitator/store"
)

// grants are the grants and used nonces in memory, beside the memory
// redemption store.
type grants struct {
	mu     sync.Mutex
	grants map[string]store.Grant
	nonces map[string]time.Time
}

func newGrants() *grants {
	return &grants{grants: map[string]store.Grant{}, nonces: map[string]time.Time{}}
}

func (g *grants) PutGrant(gr *store.Grant) (bool, error) {
	payer, err := gr.Check()
	if err != nil {
		return false, err
	}
	k := store.GrantKey(gr.Route, payer)
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

func (g *grants) Grant(route, payer string) (*store.Grant, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	cur, ok := g.grants[store.GrantKey(route, payer)]
	if !ok {
		return nil, nil
	}
	return &cur, nil
}

func (g *grants) UseNonce(nonce string, expires time.Time) (bool, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if _, ok := g.nonces[nonce]; ok {
		return false, nil
	}
	g.nonces[nonce] = expires
	return true, nil
}

func (g *grants) PruneGrants(t time.Time) (int, error) {
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
