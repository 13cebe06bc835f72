package app

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/caddyserver/caddy/v2"
	"go.uber.org/zap"

	"github.com/caddy-x402/caddy-x402/facilitator/store"
	"github.com/caddy-x402/caddy-x402/facilitator/store/bolt"
	"github.com/caddy-x402/caddy-x402/facilitator/store/memory"
)

// Pruning of delivered records: every redeemPruneInterval, those whose
// authorization expired more than redeemPruneMargin ago.
const (
	redeemPruneInterval = time.Hour
	redeemPruneMargin   = time.Hour
)

// Deliveries is the store of delivery records (the redemption store) shared (through the usage pool) by every paywall
// route and config of the process, with the claims that hold an
// authorization (or a payment id) for one request at a time: in this
// process, or with the shared PostgreSQL store, across every instance.
type Deliveries struct {
	store  store.Redemptions
	claims store.Claims

	mu      sync.Mutex
	holders map[string]*AuthClaim // claimed authorization -> the request's claim, in this process

	coolOnce sync.Once
	cool     store.CoolOffs // the cooling-offs beside the records (CoolOffs)

	stop chan struct{} // closed by Destruct: ends the pruning loop
	done chan struct{} // closed when the pruning loop has ended
	// closeStore closes what the Deliveries own at Destruct.
	closeStore func() error
}

// NewDeliveries wraps a store of this process and starts pruning its
// delivered records.
func NewDeliveries(s store.Redemptions) *Deliveries {
	return NewSharedDeliveries(s, memory.NewClaims(), s.Close)
}

// NewSharedDeliveries wraps a store with the claims that go with it; close
// is called at Destruct.
func NewSharedDeliveries(s store.Redemptions, c store.Claims, close func() error) *Deliveries {
	rd := &Deliveries{store: s, claims: c, closeStore: close, holders: map[string]*AuthClaim{},
		stop: make(chan struct{}), done: make(chan struct{})}
	go rd.pruneLoop()
	return rd
}

// pruneLoop prunes the store at start and every redeemPruneInterval, so
// that it does not grow with every payment ever delivered.
func (rd *Deliveries) pruneLoop() {
	defer close(rd.done)
	t := time.NewTicker(redeemPruneInterval)
	defer t.Stop()
	for {
		n, err := rd.store.Prune(time.Now().Add(-redeemPruneMargin).Unix())
		switch {
		case err != nil:
			caddy.Log().Named("x402").Error("pruning delivered payments from the redemption store failed; it is tried again in an hour", zap.Error(err))
		case n > 0:
			caddy.Log().Named("x402").Info("pruned delivered payments whose authorizations expired from the redemption store", zap.Int("removed", n))
		}
		rd.pruneGrants()
		rd.pruneCoolOffs()
		select {
		case <-rd.stop:
			return
		case <-t.C:
		}
	}
}

// Acquire claims an authorization (or a payment id) for one request:
// Claimed, or HeldHere / HeldElsewhere when a request of this process or
// of another instance holds it. An error means the shared store could not
// be asked; nothing is held.
func (rd *Deliveries) Acquire(ctx context.Context, id string) (store.ClaimResult, error) {
	return rd.claims.Claim(ctx, id)
}

// AuthClaim is a request's claim on an authorization (AcquireAuth).
type AuthClaim struct {
	// Result is how the claim went: the request holds the authorization
	// only when it is Claimed.
	Result store.ClaimResult
	// Holder is, when another request of this process holds the
	// authorization (HeldHere), that request's authFingerprint ("" while
	// not known yet).
	Holder string

	rd       *Deliveries
	id, fp   string
	rec      *store.Redemption // read with the claim, when read
	read     bool
	released bool // the claim went with a record (PutReleasing); under rd.mu
}

// AcquireAuth is Acquire for an authorization, noting which one (fp, its
// authFingerprint) holds the claim in this process. An error means the
// shared store could not be asked; nothing is held. A claim taken is let
// go with Release, or with the record that ends it (PutReleasing).
func (rd *Deliveries) AcquireAuth(ctx context.Context, id, fp string) (*AuthClaim, error) {
	c := &AuthClaim{rd: rd, id: id, fp: fp}
	var err error
	if rc, ok := rd.claims.(store.RecordClaimer); ok {
		c.Result, c.rec, err = rc.ClaimRecord(ctx, id)
		c.read = true
	} else {
		c.Result, err = rd.claims.Claim(ctx, id)
	}
	if err != nil {
		return nil, err
	}
	rd.mu.Lock()
	defer rd.mu.Unlock()
	switch c.Result {
	case store.Claimed:
		rd.holders[id] = c
	case store.HeldHere:
		if h := rd.holders[id]; h != nil {
			c.Holder = h.fp
		}
	}
	return c, nil
}

// Record is the claimed authorization's record (nil when there is none)
// as it stands now that the claim is held: read with the claim when the
// claims can (store.RecordClaimer, the PostgreSQL store: one round trip
// for both), else from the store.
func (c *AuthClaim) Record() (*store.Redemption, error) {
	if c.read {
		return c.rec, nil
	}
	return c.rd.store.Get(c.id)
}

// Release lets go of the claim, unless it went with a record
// (PutReleasing) or was not taken.
func (c *AuthClaim) Release() {
	rd := c.rd
	rd.mu.Lock()
	if c.Result != store.Claimed || c.released || rd.holders[c.id] != c {
		rd.mu.Unlock()
		return
	}
	delete(rd.holders, c.id)
	c.released = true
	rd.mu.Unlock()
	rd.claims.Release(c.id)
}

// PutReleasing writes the record of an authorization that a request of
// this process holds (AcquireAuth) and, when the store can
// (store.ReleasingPutter, the PostgreSQL store), lets its claim go in the
// same round trip and transaction: for the record after which the claim
// guards nothing (delivered: every copy is refused from the record). The
// request's Release does nothing then. Otherwise it is Put.
func (rd *Deliveries) PutReleasing(id string, rec *store.Redemption) error {
	rp, ok := rd.store.(store.ReleasingPutter)
	rd.mu.Lock()
	c := rd.holders[id]
	rd.mu.Unlock()
	if !ok || c == nil {
		return rd.store.Put(id, rec)
	}
	released, err := rp.PutReleasing(id, rec)
	if released {
		rd.mu.Lock()
		if rd.holders[id] == c {
			delete(rd.holders, id)
		}
		c.released = true
		rd.mu.Unlock()
	}
	return err
}

// Release lets go of a claim of Acquire.
func (rd *Deliveries) Release(id string) {
	rd.claims.Release(id)
}

// Destruct closes the store when the last config using it is gone.
func (rd *Deliveries) Destruct() error {
	close(rd.stop)
	<-rd.done
	return rd.closeStore()
}

// pruneGrants removes the grants that ended and the sign-in nonces past
// their use, beside the redemption records.
func (rd *Deliveries) pruneGrants() {
	g, ok := rd.store.(store.Grants)
	if !ok {
		return
	}
	n, err := g.PruneGrants(time.Now())
	switch {
	case err != nil:
		caddy.Log().Named("x402").Error("pruning ended access grants failed; it is tried again in an hour", zap.Error(err))
	case n > 0:
		caddy.Log().Named("x402").Info("pruned ended access grants and used sign-in nonces", zap.Int("removed", n))
	}
}

// pruneCoolOffs removes the cooling-offs that ended, beside the
// redemption records.
func (rd *Deliveries) pruneCoolOffs() {
	n, err := rd.CoolOffs().PruneCoolOffs(time.Now())
	switch {
	case err != nil:
		caddy.Log().Named("x402").Error("pruning ended cooling-offs failed; it is tried again in an hour", zap.Error(err))
	case n > 0:
		caddy.Log().Named("x402").Info("pruned ended cooling-offs", zap.Int("removed", n))
	}
}

// OpenDeliveries gets the delivery records from the usage pool, opening
// them if no running config has them: the bbolt file at path, or, when
// path is "", a store in memory named by memName. release lets go of them
// (the last holder closes them).
func OpenDeliveries(path, memName string) (d *Deliveries, release func() error, err error) {
	d, key, err := openDeliveries(path, memName)
	if err != nil {
		return nil, nil, err
	}
	return d, func() error { _, err := pool.Delete(key); return err }, nil
}

// openDeliveries is OpenDeliveries returning the pool key to release at
// cleanup.
func openDeliveries(path, memName string) (*Deliveries, string, error) {
	key := "redemptions:memory:" + memName
	if path != "" {
		abs, err := filepath.Abs(path)
		if err != nil {
			return nil, "", fmt.Errorf("redemption store %q: %w", path, err)
		}
		path, key = abs, "redemptions:"+abs
	}
	val, _, err := pool.LoadOrNew(key, func() (caddy.Destructor, error) {
		if path == "" {
			return NewDeliveries(memory.NewRedemptions()), nil
		}
		s, err := bolt.OpenRedemptions(path)
		if err != nil {
			return nil, err
		}
		return NewDeliveries(s), nil
	})
	if err != nil {
		return nil, "", err
	}
	return val.(*Deliveries), key, nil
}

// DefaultRedemptionsPath is the redemption store's default file, in
// Caddy's data directory.
func DefaultRedemptionsPath() string {
	return filepath.Join(caddy.AppDataDir(), "x402", "redemptions.db")
}

// PaymentIDKey is the key a payment id is bound under in the store
// (Redemption.PaymentID): scoped to its payer, so that one wallet's ids
// can neither collide with nor block another's.
func PaymentIDKey(payer, id string) string { return strings.ToLower(payer) + "/" + id }

// Store is the records themselves.
func (rd *Deliveries) Store() store.Redemptions { return rd.store }

// CoolOffs is the cooling-offs kept beside the records (shared by every
// instance on a PostgreSQL store): the payers a paywall refuses settle
// after for a while, because an upto settle of theirs after its answer
// failed. A store that keeps none gets its own, in memory.
func (rd *Deliveries) CoolOffs() store.CoolOffs {
	rd.coolOnce.Do(func() {
		var ok bool
		if rd.cool, ok = rd.store.(store.CoolOffs); !ok {
			rd.cool = memory.NewCoolOffs()
		}
	})
	return rd.cool
}
