package engine

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Settlement statuses in the journal.
const (
	StatusPending = "pending"
	StatusSettled = "settled"
	StatusFailed  = "failed"
)

// Record is one settlement in the journal: written before its transaction
// is broadcast, updated when it is mined or fails.
type Record struct {
	// ID identifies the authorization: network/from/nonce.
	ID string `json:"id"`
	// Network is the network's primary name.
	Network string `json:"network"`
	// RequestedNetwork is the network string the seller sent.
	RequestedNetwork string `json:"requestedNetwork,omitempty"`
	// The signed authorization, as hex and decimal strings.
	From        string `json:"from"`
	To          string `json:"to"`
	Value       string `json:"value"`
	ValidAfter  string `json:"validAfter"`
	ValidBefore string `json:"validBefore"`
	Nonce       string `json:"nonce"`
	Signature   string `json:"signature"`
	// Signer is the address that pays the gas.
	Signer string `json:"signer"`
	// TxNonce is the signer's transaction nonce.
	TxNonce uint64 `json:"txNonce"`
	// Txs are the signed transactions broadcast for this settlement, all
	// with TxNonce: the first, then fee-bumped replacements.
	Txs []JournalTx `json:"txs"`
	// Status is pending, settled or failed.
	Status string `json:"status"`
	// TxHash is the mined transaction (settled or reverted), if any.
	TxHash string `json:"txHash,omitempty"`
	// BlockNumber is the block that holds TxHash.
	BlockNumber uint64 `json:"blockNumber,omitempty"`
	// Error is the settle error text of a failed settlement.
	Error     string    `json:"error,omitempty"`
	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt"`
}

// JournalTx is one signed transaction of a settlement.
type JournalTx struct {
	Hash string `json:"hash"`
	// Raw is the signed transaction (0x hex), for rebroadcast.
	Raw    string    `json:"raw"`
	SentAt time.Time `json:"sentAt"`
	// Cancel marks the zero-value transfer to the signer that freed the
	// nonce of an expired authorization.
	Cancel bool `json:"cancel,omitempty"`
}

// LatestHash is the hash of the newest transaction.
func (r *Record) LatestHash() string {
	if len(r.Txs) == 0 {
		return ""
	}
	return r.Txs[len(r.Txs)-1].Hash
}

// Journal stores settlement records durably.
type Journal interface {
	// Put writes records atomically: all or none, on stable storage when it returns.
	Put(recs ...*Record) error
	// ByTx finds the record that holds a transaction hash (any attempt).
	ByTx(hash string) (*Record, error)
	// ByID finds a record by its ID (network/from/nonce, lower case).
	ByID(id string) (*Record, error)
	// Pending lists the records still pending.
	Pending() ([]*Record, error)
	// Close releases the journal.
	Close() error
}

// ErrNotFound is returned by ByTx and ByID for a record the journal does
// not hold.
var ErrNotFound = errors.New("settlement not found")

var (
	bucketSettlements = []byte("settlements")
	bucketTxs         = []byte("txs")
	bucketPending     = []byte("pending")
)

// journalMmapSize is the address space the bbolt journal maps at start
// (memory is used only as the file grows into it).
const journalMmapSize = 256 << 20

// boltJournal is the embedded default: one bbolt file, every Put one
// fsynced transaction.
type boltJournal struct{ db *bolt.DB }

// OpenJournal opens (creating if needed) the bbolt journal at path. Only
// one process may hold it; a second one waits up to 5 s, then fails.
func OpenJournal(path string) (Journal, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("creating the journal's directory: %w", err)
	}
	opts := &bolt.Options{Timeout: 5 * time.Second}
	if runtime.GOOS != "windows" {
		// Map address space for a large journal up front: bbolt otherwise
		// remaps as the file grows, and each remap copies every node of the
		// writing transaction out of the old mapping. (On Windows the file
		// itself would be grown to this size.)
		opts.InitialMmapSize = journalMmapSize
	}
	db, err := bolt.Open(path, 0o600, opts)
	if err != nil {
		return nil, fmt.Errorf("opening the settlement journal %s: %w (is another facilitator using it?)", path, err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		for _, b := range [][]byte{bucketSettlements, bucketTxs, bucketPending} {
			if _, err := tx.CreateBucketIfNotExists(b); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("preparing the settlement journal %s: %w", path, err)
	}
	return &boltJournal{db: db}, nil
}

func (j *boltJournal) Put(recs ...*Record) error {
	return j.db.Update(func(tx *bolt.Tx) error {
		s, t, p := tx.Bucket(bucketSettlements), tx.Bucket(bucketTxs), tx.Bucket(bucketPending)
		for _, r := range recs {
			data, err := json.Marshal(r)
			if err != nil {
				return err
			}
			if err := s.Put([]byte(r.ID), data); err != nil {
				return err
			}
			for _, x := range r.Txs {
				if err := t.Put([]byte(strings.ToLower(x.Hash)), []byte(r.ID)); err != nil {
					return err
				}
			}
			if r.Status == StatusPending {
				err = p.Put([]byte(r.ID), nil)
			} else {
				err = p.Delete([]byte(r.ID))
			}
			if err != nil {
				return err
			}
		}
		return nil
	})
}

func (j *boltJournal) ByTx(hash string) (*Record, error) {
	var rec *Record
	err := j.db.View(func(tx *bolt.Tx) error {
		id := tx.Bucket(bucketTxs).Get([]byte(strings.ToLower(hash)))
		if id == nil {
			return ErrNotFound
		}
		data := tx.Bucket(bucketSettlements).Get(id)
		if data == nil {
			return ErrNotFound
		}
		rec = new(Record)
		return json.Unmarshal(data, rec)
	})
	return rec, err
}

func (j *boltJournal) ByID(id string) (*Record, error) {
	var rec *Record
	err := j.db.View(func(tx *bolt.Tx) error {
		data := tx.Bucket(bucketSettlements).Get([]byte(id))
		if data == nil {
			return ErrNotFound
		}
		rec = new(Record)
		return json.Unmarshal(data, rec)
	})
	return rec, err
}

func (j *boltJournal) Pending() ([]*Record, error) {
	var out []*Record
	err := j.db.View(func(tx *bolt.Tx) error {
		s := tx.Bucket(bucketSettlements)
		return tx.Bucket(bucketPending).ForEach(func(k, _ []byte) error {
			r := new(Record)
			if err := json.Unmarshal(s.Get(k), r); err != nil {
				return fmt.Errorf("journal record %s: %w", k, err)
			}
			out = append(out, r)
			return nil
		})
	})
	sortByNonce(out)
	return out, err
}

func (j *boltJournal) Close() error { return j.db.Close() }

// memJournal keeps records in memory: a facilitator without a journal path
// still answers settlement look-ups, but forgets them on restart.
type memJournal struct {
	mu   sync.Mutex
	recs map[string]Record
	txs  map[string]string
}

// NewMemoryJournal returns a journal that lives in memory only.
func NewMemoryJournal() Journal {
	return &memJournal{recs: map[string]Record{}, txs: map[string]string{}}
}

func (j *memJournal) Put(recs ...*Record) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	for _, r := range recs {
		c := *r
		c.Txs = append([]JournalTx(nil), r.Txs...)
		j.recs[r.ID] = c
		for _, x := range r.Txs {
			j.txs[strings.ToLower(x.Hash)] = r.ID
		}
	}
	return nil
}

func (j *memJournal) ByTx(hash string) (*Record, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	id, ok := j.txs[strings.ToLower(hash)]
	if !ok {
		return nil, ErrNotFound
	}
	r := j.recs[id]
	return &r, nil
}

func (j *memJournal) ByID(id string) (*Record, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	r, ok := j.recs[id]
	if !ok {
		return nil, ErrNotFound
	}
	r.Txs = append([]JournalTx(nil), r.Txs...)
	return &r, nil
}

func (j *memJournal) Pending() ([]*Record, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	var out []*Record
	for _, r := range j.recs {
		if r.Status == StatusPending {
			c := r
			out = append(out, &c)
		}
	}
	sortByNonce(out)
	return out, nil
}

func (j *memJournal) Close() error { return nil }

func sortByNonce(recs []*Record) {
	sort.Slice(recs, func(a, b int) bool {
		if recs[a].Signer != recs[b].Signer {
			return recs[a].Signer < recs[b].Signer
		}
		return recs[a].TxNonce < recs[b].TxNonce
	})
}
