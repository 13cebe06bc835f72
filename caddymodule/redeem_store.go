package caddymodule

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/big"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"go.uber.org/zap"

	"github.com/caddy-x402/caddy-x402/facilitator"
	"github.com/caddy-x402/caddy-x402/facilitator/store"
)

// The redemption store lives in package store; these names keep the
// paywall's code short.
type redemption = store.Redemption

// Redemption states (store.Redeem*).
const (
	redeemSettling  = store.RedeemSettling
	redeemPending   = store.RedeemPending
	redeemPaid      = store.RedeemPaid
	redeemDelivered = store.RedeemDelivered
)

// setSettled records a settle answer in a record: its state, transaction
// and the answer itself.
func setSettled(rec *redemption, state string, sr *facilitator.SettleResponse) {
	data, _ := json.Marshal(sr) // a SettleResponse always marshals
	rec.State, rec.TxHash, rec.Settlement, rec.Updated = state, sr.TxHash, data, time.Now()
}

// settlementOf is the settle answer kept in a record; nil when there is
// none (or it cannot be read).
func settlementOf(rec *redemption) *facilitator.SettleResponse {
	if len(rec.Settlement) == 0 {
		return nil
	}
	sr := new(facilitator.SettleResponse)
	if json.Unmarshal(rec.Settlement, sr) != nil {
		return nil
	}
	return sr
}

// Pruning of delivered records: every redeemPruneInterval, those whose
// authorization expired more than redeemPruneMargin ago.
const (
	redeemPruneInterval = time.Hour
	redeemPruneMargin   = time.Hour
)

// redeemer is the store shared (through the usage pool) by every paywall
// route and config of the process, with the claims that hold an
// authorization (or a payment id) for one request at a time: in this
// process, or with the shared PostgreSQL store, across every instance.
type redeemer struct {
	store  store.Redemptions
	claims store.Claims

	mu      sync.Mutex
	holders map[string]string // claimed key -> the holder's authFingerprint, in this process

	stop chan struct{} // closed by Destruct: ends the pruning loop
	done chan struct{} // closed when the pruning loop has ended
	// closeStore closes what the redeemer owns at Destruct.
	closeStore func() error
}

// newRedeemer wraps a store of this process and starts pruning its
// delivered records.
func newRedeemer(s store.Redemptions) *redeemer {
	return newSharedRedeemer(s, store.NewLocalClaims(), s.Close)
}

// newSharedRedeemer wraps a store with the claims that go with it; close
// is called at Destruct.
func newSharedRedeemer(s store.Redemptions, c store.Claims, close func() error) *redeemer {
	rd := &redeemer{store: s, claims: c, closeStore: close, holders: map[string]string{},
		stop: make(chan struct{}), done: make(chan struct{})}
	go rd.pruneLoop()
	return rd
}

// pruneLoop prunes the store at start and every redeemPruneInterval, so
// that it does not grow with every payment ever delivered.
func (rd *redeemer) pruneLoop() {
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
		select {
		case <-rd.stop:
			return
		case <-t.C:
		}
	}
}

// acquire claims an authorization (or a payment id) for one request:
// Claimed, or HeldHere / HeldElsewhere when a request of this process or
// of another instance holds it. An error means the shared store could not
// be asked; nothing is held.
func (rd *redeemer) acquire(ctx context.Context, id string) (store.ClaimResult, error) {
	return rd.claims.Claim(ctx, id)
}

// acquireAuth is acquire for an authorization, noting which one (fp, its
// authFingerprint) holds the claim in this process; holder is, when a
// request of this process holds it, the holder's fingerprint ("" while
// not known yet).
func (rd *redeemer) acquireAuth(ctx context.Context, id, fp string) (res store.ClaimResult, holder string, err error) {
	res, err = rd.claims.Claim(ctx, id)
	rd.mu.Lock()
	defer rd.mu.Unlock()
	switch {
	case err != nil:
	case res == store.Claimed:
		rd.holders[id] = fp
	case res == store.HeldHere:
		holder = rd.holders[id]
	}
	return res, holder, err
}

func (rd *redeemer) release(id string) {
	rd.mu.Lock()
	delete(rd.holders, id)
	rd.mu.Unlock()
	rd.claims.Release(id)
}

// Destruct closes the store when the last config using it is gone.
func (rd *redeemer) Destruct() error {
	close(rd.stop)
	<-rd.done
	return rd.closeStore()
}

// authID is the key of an authorization: network, payer and nonce, in
// lower case (addresses compare case-insensitively).
func authID(network string, from common.Address, nonce [32]byte) string {
	return strings.ToLower(network + "/" + from.Hex() + "/" + hexutil.Encode(nonce[:]))
}

// authFingerprint tells one signed authorization from another with the
// same payer and nonce: a hash of all its fields and its signature,
// whatever the header's version or encoding.
func authFingerprint(p *facilitator.Payment) string {
	a := &p.Authorization
	s := sha256.New()
	for _, b := range [][]byte{a.From[:], a.To[:], a.Nonce[:], []byte(bigString(a.Value)), []byte(bigString(a.ValidAfter)),
		[]byte(bigString(a.ValidBefore)), p.Signature} {
		s.Write(b)
		s.Write([]byte{0})
	}
	return hex.EncodeToString(s.Sum(nil)[:16])
}

func bigString(v *big.Int) string {
	if v == nil {
		return ""
	}
	return v.String()
}

// provisionRedeemer gets the redemption store from the usage pool, opening
// it if no running config has it: the bbolt file at path, or, when path is
// "", a store in memory named by memName. It returns the pool key to
// release at cleanup.
func provisionRedeemer(path, memName string) (*redeemer, string, error) {
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
			return newRedeemer(store.NewMemoryRedemptions()), nil
		}
		s, err := store.OpenBoltRedemptions(path)
		if err != nil {
			return nil, err
		}
		return newRedeemer(s), nil
	})
	if err != nil {
		return nil, "", err
	}
	return val.(*redeemer), key, nil
}

// defaultRedemptionsPath is the redemption store's default file, in
// Caddy's data directory.
func defaultRedemptionsPath() string {
	return filepath.Join(caddy.AppDataDir(), "x402", "redemptions.db")
}

// pruneGrants removes the grants that ended and the sign-in nonces past
// their use, beside the redemption records.
func (rd *redeemer) pruneGrants() {
	g := store.GrantsOf(rd.store)
	if g == nil {
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
