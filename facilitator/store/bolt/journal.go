package bolt

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"go.etcd.io/bbolt"

	"github.com/caddy-x402/caddy-x402/facilitator/store"
)

var (
	bucketSettlements = []byte("settlements")
	bucketTxs         = []byte("txs")
	bucketPending     = []byte("pending")
)

// journalMmapSize is the address space the bbolt journal maps at start
// (memory is used only as the file grows into it).
const journalMmapSize = 256 << 20

// journal is the embedded default: one bbolt file, every Put one
// fsynced transaction. The discovery catalog and the payers' cooling-offs
// live in the same file (one file can be opened once, so they share its
// handle): the journal is a store.Catalog and a store.CoolOffs.
type journal struct {
	db *bbolt.DB
	*catalog
	*coolOffs
}

// The capabilities kept beside the journal.
var (
	_ store.Catalog  = (*journal)(nil)
	_ store.CoolOffs = (*journal)(nil)
)

// OpenJournal opens (creating if needed) the bbolt journal at path. Only
// one process may hold it; a second one waits up to 5 s, then fails.
func OpenJournal(path string) (store.Journal, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("creating the journal's directory: %w", err)
	}
	opts := &bbolt.Options{Timeout: 5 * time.Second}
	if runtime.GOOS != "windows" {
		// Map address space for a large journal up front: bbolt otherwise
		// remaps as the file grows, and each remap copies every node of the
		// writing transaction out of the old mapping. (On Windows the file
		// itself would be grown to this size.)
		opts.InitialMmapSize = journalMmapSize
	}
	db, err := bbolt.Open(path, 0o600, opts)
	if err != nil {
		return nil, fmt.Errorf("opening the settlement journal %s: %w (is another facilitator using it?)", path, err)
	}
	err = db.Update(func(tx *bbolt.Tx) error {
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
	return &journal{db: db, catalog: &catalog{db: db}, coolOffs: &coolOffs{db: db}}, nil
}

func (j *journal) Put(recs ...*store.Record) error {
	return j.db.Update(func(tx *bbolt.Tx) error {
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
			if r.Status == store.StatusPending {
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

func (j *journal) ByTx(hash string) (*store.Record, error) {
	var rec *store.Record
	err := j.db.View(func(tx *bbolt.Tx) error {
		id := tx.Bucket(bucketTxs).Get([]byte(strings.ToLower(hash)))
		if id == nil {
			return store.ErrNotFound
		}
		data := tx.Bucket(bucketSettlements).Get(id)
		if data == nil {
			return store.ErrNotFound
		}
		rec = new(store.Record)
		return json.Unmarshal(data, rec)
	})
	return rec, err
}

func (j *journal) ByID(id string) (*store.Record, error) {
	var rec *store.Record
	err := j.db.View(func(tx *bbolt.Tx) error {
		data := tx.Bucket(bucketSettlements).Get([]byte(id))
		if data == nil {
			return store.ErrNotFound
		}
		rec = new(store.Record)
		return json.Unmarshal(data, rec)
	})
	return rec, err
}

func (j *journal) Pending() ([]*store.Record, error) {
	var out []*store.Record
	err := j.db.View(func(tx *bbolt.Tx) error {
		s := tx.Bucket(bucketSettlements)
		return tx.Bucket(bucketPending).ForEach(func(k, _ []byte) error {
			r := new(store.Record)
			if err := json.Unmarshal(s.Get(k), r); err != nil {
				return fmt.Errorf("journal record %s: %w", k, err)
			}
			out = append(out, r)
			return nil
		})
	})
	store.SortByNonce(out)
	return out, err
}

func (j *journal) Close() error { return j.db.Close() }

// Compact implements Compacter. The file does not shrink: bbolt reuses the
// freed pages for new records, so it stops growing.
func (j *journal) Compact(cutoff time.Time) (int, error) {
	n := 0
	err := j.db.Update(func(tx *bbolt.Tx) error {
		s, t := tx.Bucket(bucketSettlements), tx.Bucket(bucketTxs)
		var drop []*store.Record
		err := s.ForEach(func(k, v []byte) error {
			r := new(store.Record)
			if err := json.Unmarshal(v, r); err != nil {
				return fmt.Errorf("journal record %s: %w", k, err)
			}
			if store.Compactable(r, cutoff) && tx.Bucket(bucketPending).Get(k) == nil {
				drop = append(drop, r)
			}
			return nil
		})
		if err != nil {
			return err
		}
		for _, r := range drop {
			for _, x := range r.Txs {
				if err := t.Delete([]byte(strings.ToLower(x.Hash))); err != nil {
					return err
				}
			}
			if err := s.Delete([]byte(r.ID)); err != nil {
				return err
			}
		}
		n = len(drop)
		return nil
	})
	return n, err
}

// Path is the journal's file.
func (j *journal) Path() string { return j.db.Path() }
