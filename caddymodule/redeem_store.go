package caddymodule

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	bolt "go.etcd.io/bbolt"
	"go.uber.org/zap"

	"github.com/caddy-x402/caddy-x402/facilitator"
)

// Redemption states. A record is written before anything it stands for
// happens, so that after a crash the next retry finds out what did.
const (
	// redeemSettling: settle was (or is about to be) called; whether money
	// moved is not known yet.
	redeemSettling = "settling"
	// redeemPending: the transaction was broadcast (TxHash) and was not in
	// a block when the buyer was answered.
	redeemPending = "pending"
	// redeemPaid: the money moved; the upstream has not answered yet.
	redeemPaid = "paid"
	// redeemDelivered: the upstream's answer began; the authorization is
	// spent for good.
	redeemDelivered = "delivered"
)

// redemption is what the paywall knows about one authorization: which
// route it pays for and how far it got.
type redemption struct {
	// Route identifies the paywall route and resource the authorization
	// was first presented at (routeKey); only that route may redeem it.
	Route string `json:"route"`
	// State is one of the redeem* states.
	State string `json:"state"`
	// TxHash is the settlement's transaction, once known.
	TxHash string `json:"txHash,omitempty"`
	// Settlement is the settle answer, once paid.
	Settlement *facilitator.SettleResponse `json:"settlement,omitempty"`
	// ValidBefore is the authorization's expiry (Unix seconds).
	ValidBefore string `json:"validBefore,omitempty"`
	// PaymentID is the store key (paymentIDKey) of the payment-identifier
	// id the payment was sent with, "" for none. While the record exists,
	// the id is bound to this authorization: the store maps the key to
	// the record, and another payload with the same id is refused (409).
	PaymentID string `json:"paymentId,omitempty"`
	// Fingerprint is the payload's fingerprint (Payment.Fingerprint) when
	// PaymentID is set: a request with the same id and this fingerprint
	// is the same payment sent again.
	Fingerprint string `json:"fingerprint,omitempty"`
	// Updated is when the record was last written.
	Updated time.Time `json:"updated"`
}

// redemptionStore keeps redemptions by authorization (network, payer and
// nonce), and the payment ids bound to them.
type redemptionStore interface {
	get(id string) (*redemption, error)
	// put writes a record and, when it has a PaymentID, binds that id to
	// it in the same transaction (errPaymentIDTaken if the id is bound to
	// another authorization).
	put(id string, r *redemption) error
	// del removes a record and the binding of its payment id.
	del(id string) error
	// byPaymentID returns the authorization a payment id is bound to and
	// its record, or "" and nil.
	byPaymentID(key string) (string, *redemption, error)
	// prune removes the delivered records whose authorization expired
	// (validBefore) before the given Unix time, with their payment ids,
	// and says how many.
	prune(expiredBefore int64) (int, error)
	close() error
}

// errPaymentIDTaken refuses to bind a payment id that is bound to another
// authorization. The paywall checks the id before it writes, holding it,
// so this is a safeguard.
var errPaymentIDTaken = errors.New("the payment identifier is bound to another payment")

// prunable reports whether a record may go: it was delivered, and its
// authorization expired before the given Unix time. Such an authorization
// can never be settled again nor pass verify (the token refuses it after
// validBefore), so without its record a replay is still refused. Records
// of payments not yet delivered stay: their buyer may retry at any time.
func (r *redemption) prunable(expiredBefore int64) bool {
	if r.State != redeemDelivered {
		return false
	}
	vb, err := strconv.ParseInt(r.ValidBefore, 10, 64)
	return err == nil && vb < expiredBefore
}

// Pruning of delivered records: every redeemPruneInterval, those whose
// authorization expired more than redeemPruneMargin ago.
const (
	redeemPruneInterval = time.Hour
	redeemPruneMargin   = time.Hour
)

// redeemer is the store shared (through the usage pool) by every paywall
// route and config of the process, with the set of authorizations a
// request is busy with.
type redeemer struct {
	store redemptionStore

	mu   sync.Mutex
	busy map[string]struct{}

	stop chan struct{} // closed by Destruct: ends the pruning loop
	done chan struct{} // closed when the pruning loop has ended
}

// newRedeemer wraps a store and starts pruning its delivered records.
func newRedeemer(s redemptionStore) *redeemer {
	rd := &redeemer{store: s, busy: map[string]struct{}{}, stop: make(chan struct{}), done: make(chan struct{})}
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
		n, err := rd.store.prune(time.Now().Add(-redeemPruneMargin).Unix())
		switch {
		case err != nil:
			caddy.Log().Named("x402").Error("pruning delivered payments from the redemption store failed; it is tried again in an hour", zap.Error(err))
		case n > 0:
			caddy.Log().Named("x402").Info("pruned delivered payments whose authorizations expired from the redemption store", zap.Int("removed", n))
		}
		select {
		case <-rd.stop:
			return
		case <-t.C:
		}
	}
}

// acquire claims an authorization for one request; false means another
// request of this process holds it.
func (rd *redeemer) acquire(id string) bool {
	rd.mu.Lock()
	defer rd.mu.Unlock()
	if _, ok := rd.busy[id]; ok {
		return false
	}
	rd.busy[id] = struct{}{}
	return true
}

func (rd *redeemer) release(id string) {
	rd.mu.Lock()
	delete(rd.busy, id)
	rd.mu.Unlock()
}

// Destruct closes the store when the last config using it is gone.
func (rd *redeemer) Destruct() error {
	close(rd.stop)
	<-rd.done
	return rd.store.close()
}

// authID is the key of an authorization: network, payer and nonce, in
// lower case (addresses compare case-insensitively).
func authID(network string, from common.Address, nonce [32]byte) string {
	return strings.ToLower(network + "/" + from.Hex() + "/" + hexutil.Encode(nonce[:]))
}

// Buckets of the redemption store file: the records by authorization, and
// the payment ids (paymentIDKey) to the authorization they are bound to.
var (
	bucketRedemptions = []byte("redemptions")
	bucketPaymentIDs  = []byte("payment-ids")
)

// boltRedemptions is the durable store: one bbolt file.
type boltRedemptions struct{ db *bolt.DB }

// openRedemptions opens (creating if needed) the bbolt store at path.
func openRedemptions(path string) (*boltRedemptions, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("creating the redemption store's directory: %w", err)
	}
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: 5 * time.Second})
	if err != nil {
		return nil, fmt.Errorf("opening the redemption store %s: %w (is another Caddy using it?)", path, err)
	}
	if err := db.Update(func(tx *bolt.Tx) error {
		if _, err := tx.CreateBucketIfNotExists(bucketRedemptions); err != nil {
			return err
		}
		_, err := tx.CreateBucketIfNotExists(bucketPaymentIDs)
		return err
	}); err != nil {
		db.Close()
		return nil, fmt.Errorf("preparing the redemption store %s: %w", path, err)
	}
	return &boltRedemptions{db: db}, nil
}

func (b *boltRedemptions) get(id string) (*redemption, error) {
	var out *redemption
	err := b.db.View(func(tx *bolt.Tx) error {
		var err error
		out, err = boltRecord(tx, id)
		return err
	})
	return out, err
}

// boltRecord reads one record in a transaction; nil when there is none.
func boltRecord(tx *bolt.Tx, id string) (*redemption, error) {
	v := tx.Bucket(bucketRedemptions).Get([]byte(id))
	if v == nil {
		return nil, nil
	}
	out := new(redemption)
	return out, json.Unmarshal(v, out)
}

// put and del go through bbolt's Batch, so that concurrent requests share
// one fsync.
func (b *boltRedemptions) put(id string, r *redemption) error {
	data, err := json.Marshal(r)
	if err != nil {
		return err
	}
	return b.db.Batch(func(tx *bolt.Tx) error {
		if r.PaymentID != "" {
			ids := tx.Bucket(bucketPaymentIDs)
			if cur := ids.Get([]byte(r.PaymentID)); cur != nil && string(cur) != id {
				return errPaymentIDTaken
			}
			if err := ids.Put([]byte(r.PaymentID), []byte(id)); err != nil {
				return err
			}
		}
		return tx.Bucket(bucketRedemptions).Put([]byte(id), data)
	})
}

func (b *boltRedemptions) del(id string) error {
	return b.db.Batch(func(tx *bolt.Tx) error {
		return boltDelete(tx, []byte(id))
	})
}

// boltDelete removes a record and the binding of its payment id, if the
// binding is the record's.
func boltDelete(tx *bolt.Tx, id []byte) error {
	bk := tx.Bucket(bucketRedemptions)
	if v := bk.Get(id); v != nil {
		var r redemption
		if json.Unmarshal(v, &r) == nil && r.PaymentID != "" {
			ids := tx.Bucket(bucketPaymentIDs)
			if cur := ids.Get([]byte(r.PaymentID)); string(cur) == string(id) {
				if err := ids.Delete([]byte(r.PaymentID)); err != nil {
					return err
				}
			}
		}
	}
	return bk.Delete(id)
}

func (b *boltRedemptions) byPaymentID(key string) (string, *redemption, error) {
	var (
		id  string
		out *redemption
	)
	err := b.db.View(func(tx *bolt.Tx) error {
		v := tx.Bucket(bucketPaymentIDs).Get([]byte(key))
		if v == nil {
			return nil
		}
		id = string(v)
		var err error
		out, err = boltRecord(tx, id)
		return err
	})
	return id, out, err
}

func (b *boltRedemptions) prune(expiredBefore int64) (int, error) {
	n := 0
	err := b.db.Update(func(tx *bolt.Tx) error {
		bk := tx.Bucket(bucketRedemptions)
		var gone [][]byte
		err := bk.ForEach(func(k, v []byte) error {
			var r redemption
			if json.Unmarshal(v, &r) == nil && r.prunable(expiredBefore) {
				gone = append(gone, append([]byte(nil), k...))
			}
			return nil
		})
		if err != nil {
			return err
		}
		for _, k := range gone {
			if err := boltDelete(tx, k); err != nil {
				return err
			}
		}
		n = len(gone)
		return nil
	})
	return n, err
}

func (b *boltRedemptions) close() error { return b.db.Close() }

// memRedemptions is the store in memory, for a devnet (whose chain does
// not outlive the process either).
type memRedemptions struct {
	mu  sync.Mutex
	m   map[string][]byte // records by authorization
	ids map[string]string // payment id key -> authorization
}

func newMemRedemptions() *memRedemptions {
	return &memRedemptions{m: map[string][]byte{}, ids: map[string]string{}}
}

func (s *memRedemptions) get(id string) (*redemption, error) {
	s.mu.Lock()
	v, ok := s.m[id]
	s.mu.Unlock()
	if !ok {
		return nil, nil
	}
	out := new(redemption)
	return out, json.Unmarshal(v, out)
}

func (s *memRedemptions) put(id string, r *redemption) error {
	data, err := json.Marshal(r)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if r.PaymentID != "" {
		if cur, ok := s.ids[r.PaymentID]; ok && cur != id {
			return errPaymentIDTaken
		}
		s.ids[r.PaymentID] = id
	}
	s.m[id] = data
	return nil
}

func (s *memRedemptions) del(id string) error {
	s.mu.Lock()
	s.remove(id)
	s.mu.Unlock()
	return nil
}

// remove deletes a record and the binding of its payment id, if the
// binding is the record's. The caller holds mu.
func (s *memRedemptions) remove(id string) {
	var r redemption
	if v, ok := s.m[id]; ok && json.Unmarshal(v, &r) == nil && r.PaymentID != "" && s.ids[r.PaymentID] == id {
		delete(s.ids, r.PaymentID)
	}
	delete(s.m, id)
}

func (s *memRedemptions) byPaymentID(key string) (string, *redemption, error) {
	s.mu.Lock()
	id, ok := s.ids[key]
	v := s.m[id]
	s.mu.Unlock()
	if !ok {
		return "", nil, nil
	}
	if v == nil {
		return id, nil, nil
	}
	out := new(redemption)
	return id, out, json.Unmarshal(v, out)
}

func (s *memRedemptions) prune(expiredBefore int64) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for id, v := range s.m {
		var r redemption
		if json.Unmarshal(v, &r) == nil && r.prunable(expiredBefore) {
			s.remove(id)
			n++
		}
	}
	return n, nil
}

func (s *memRedemptions) close() error { return nil }

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
			return newRedeemer(newMemRedemptions()), nil
		}
		s, err := openRedemptions(path)
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
