package bolt

import (
	"encoding/binary"
	"encoding/json"
	"time"

	"go.etcd.io/bbolt"

	"github.com/caddy-x402/caddy-x402/facilitator/store"
)

// Buckets of the discovery catalog in the journal's bbolt file: the
// entries by key (ordered, as bbolt keeps keys), and the total of their
// data in bytes under catalogTotalKey.
var (
	bucketCatalog     = []byte("discovery-catalog")
	bucketCatalogMeta = []byte("discovery-catalog-meta")
	catalogTotalKey   = []byte("total")
)

// catalog is the discovery catalog in the journal's bbolt file (one
// file can be opened once, so it shares the journal's handle).
type catalog struct{ db *bbolt.DB }

func (c *catalog) buckets(tx *bbolt.Tx) (entries, meta *bbolt.Bucket, err error) {
	if entries, err = tx.CreateBucketIfNotExists(bucketCatalog); err != nil {
		return nil, nil, err
	}
	meta, err = tx.CreateBucketIfNotExists(bucketCatalogMeta)
	return entries, meta, err
}

func catalogTotal(meta *bbolt.Bucket) int64 {
	if v := meta.Get(catalogTotalKey); len(v) == 8 {
		return int64(binary.BigEndian.Uint64(v))
	}
	return 0
}

func setCatalogTotal(meta *bbolt.Bucket, n int64) error {
	var v [8]byte
	binary.BigEndian.PutUint64(v[:], uint64(max(n, 0)))
	return meta.Put(catalogTotalKey, v[:])
}

func (c *catalog) PutEntry(e *store.CatalogEntry, maxTotal int64) error {
	ce, err := e.Checked()
	if err != nil {
		return err
	}
	data, err := json.Marshal(&ce)
	if err != nil {
		return err
	}
	return c.db.Batch(func(tx *bbolt.Tx) error {
		entries, meta, err := c.buckets(tx)
		if err != nil {
			return err
		}
		var old int64
		if v := entries.Get([]byte(ce.Key)); v != nil {
			var cur store.CatalogEntry
			if json.Unmarshal(v, &cur) == nil {
				old = int64(len(cur.Data))
			}
		}
		total := catalogTotal(meta) - old + int64(len(ce.Data))
		if total > maxTotal {
			return store.ErrCatalogFull
		}
		if err := entries.Put([]byte(ce.Key), data); err != nil {
			return err
		}
		return setCatalogTotal(meta, total)
	})
}

func (c *catalog) Entries(q store.CatalogQuery) ([]store.CatalogEntry, int, error) {
	var sel []store.CatalogEntry
	total := 0
	err := c.db.View(func(tx *bbolt.Tx) error {
		bk := tx.Bucket(bucketCatalog)
		if bk == nil {
			return nil
		}
		return bk.ForEach(func(k, v []byte) error {
			var e store.CatalogEntry
			if json.Unmarshal(v, &e) != nil || !q.Matches(&e) {
				return nil
			}
			// Keys come in order: keep only the page, count them all.
			if total >= q.Offset && len(sel) < q.Limit {
				sel = append(sel, e)
			}
			total++
			return nil
		})
	})
	return sel, total, err
}

func (c *catalog) PruneCatalog(t time.Time) (int, error) {
	n := 0
	err := c.db.Update(func(tx *bbolt.Tx) error {
		n = 0
		entries, meta, err := c.buckets(tx)
		if err != nil {
			return err
		}
		var gone [][]byte
		freed := int64(0)
		err = entries.ForEach(func(k, v []byte) error {
			var e store.CatalogEntry
			if json.Unmarshal(v, &e) != nil || e.Updated.Before(t) {
				gone = append(gone, append([]byte(nil), k...))
				freed += int64(len(e.Data))
			}
			return nil
		})
		if err != nil {
			return err
		}
		for _, k := range gone {
			if err := entries.Delete(k); err != nil {
				return err
			}
		}
		n = len(gone)
		return setCatalogTotal(meta, catalogTotal(meta)-freed)
	})
	return n, err
}
