package bolt

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"go.etcd.io/bbolt"

	"github.com/caddy-x402/caddy-x402/facilitator/store"
)

// Buckets of the redemption store file: the records by authorization, the
// payment ids (payer/id) to the authorization they are bound to, and the
// settlement transactions (store.TxKey) to the authorization whose record
// names them.
var (
	bucketRedemptions = []byte("redemptions")
	bucketPaymentIDs  = []byte("payment-ids")
	bucketTxIndex     = []byte("transactions")
)

// redemptions is the durable store: one bbolt file.
// The payment channels, the access grants and the cooling-offs (the
// paywall's: settle after refused to a payer whose settle failed) live in
// the same file: the store is a store.Channels, a store.Grants and a
// store.CoolOffs.
type redemptions struct {
	db  *bbolt.DB
	grp *group // the record writes' group commit (group.go), shared with the grants
	*channels
	*grants
	*coolOffs
}

// The capabilities kept beside the redemptions.
var (
	_ store.Channels = (*redemptions)(nil)
	_ store.Grants   = (*redemptions)(nil)
	_ store.CoolOffs = (*redemptions)(nil)
)

// OpenRedemptions opens (creating if needed) the bbolt store at path.
func OpenRedemptions(path string) (store.Redemptions, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("creating the redemption store's directory: %w", err)
	}
	db, err := bbolt.Open(path, 0o600, &bbolt.Options{Timeout: 5 * time.Second})
	if err != nil {
		return nil, fmt.Errorf("opening the redemption store %s: %w (is another Caddy using it?)", path, err)
	}
	if err := db.Update(func(tx *bbolt.Tx) error {
		if _, err := tx.CreateBucketIfNotExists(bucketRedemptions); err != nil {
			return err
		}
		if _, err := tx.CreateBucketIfNotExists(bucketPaymentIDs); err != nil {
			return err
		}
		return indexTxs(tx)
	}); err != nil {
		db.Close()
		return nil, fmt.Errorf("preparing the redemption store %s: %w", path, err)
	}
	log, err := openChanLog(db, path)
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("replaying the payment channel log of %s: %w", path, err)
	}
	grp := &group{db: db}
	return &redemptions{db: db, grp: grp, channels: &channels{db: db, log: log}, grants: &grants{db: db, grp: grp}, coolOffs: &coolOffs{db: db}}, nil
}

func (b *redemptions) Get(id string) (*store.Redemption, error) {
	var out *store.Redemption
	err := b.db.View(func(tx *bbolt.Tx) error {
		var err error
		out, err = boltRecord(tx, id)
		return err
	})
	return out, err
}

// boltRecord reads one record in a transaction; nil when there is none.
func boltRecord(tx *bbolt.Tx, id string) (*store.Redemption, error) {
	v := tx.Bucket(bucketRedemptions).Get([]byte(id))
	if v == nil {
		return nil, nil
	}
	out := new(store.Redemption)
	return out, json.Unmarshal(v, out)
}

// put and del go through bbolt's Batch, so that concurrent requests share
// one fsync.
func (b *redemptions) Put(id string, r *store.Redemption) error {
	_, err := b.put(id, r, false)
	return err
}

func (b *redemptions) Create(id string, r *store.Redemption) (bool, error) {
	return b.put(id, r, true)
}

// put writes a record (only when there is none, if absent) and says
// whether it did.
func (b *redemptions) put(id string, r *store.Redemption, absent bool) (bool, error) {
	data, err := json.Marshal(r)
	if err != nil {
		return false, err
	}
	var wrote bool
	err = b.grp.run(func(tx *bbolt.Tx) error {
		wrote = false // the group may run this more than once
		if absent && tx.Bucket(bucketRedemptions).Get([]byte(id)) != nil {
			return nil
		}
		if err := boltRebindTx(tx, []byte(id), r.TxHash); err != nil {
			return err
		}
		if r.PaymentID != "" {
			ids := tx.Bucket(bucketPaymentIDs)
			if cur := ids.Get([]byte(r.PaymentID)); cur != nil && string(cur) != id {
				return store.ErrPaymentIDTaken
			}
			if err := ids.Put([]byte(r.PaymentID), []byte(id)); err != nil {
				return err
			}
		}
		wrote = true
		return tx.Bucket(bucketRedemptions).Put([]byte(id), data)
	})
	return wrote && err == nil, err
}

func (b *redemptions) Delete(id string) error {
	return b.grp.run(func(tx *bbolt.Tx) error {
		return boltDelete(tx, []byte(id))
	})
}

// boltDelete removes a record and the binding of its payment id, if the
// binding is the record's.
func boltDelete(tx *bbolt.Tx, id []byte) error {
	bk := tx.Bucket(bucketRedemptions)
	if v := bk.Get(id); v != nil {
		var r store.Redemption
		if json.Unmarshal(v, &r) == nil && r.PaymentID != "" {
			ids := tx.Bucket(bucketPaymentIDs)
			if cur := ids.Get([]byte(r.PaymentID)); string(cur) == string(id) {
				if err := ids.Delete([]byte(r.PaymentID)); err != nil {
					return err
				}
			}
		}
		if err := boltUnbindTx(tx, r.TxHash, id); err != nil {
			return err
		}
	}
	return bk.Delete(id)
}

// indexTxs creates the transaction index of a file written before it was
// kept, indexing the records it holds; nothing when the index exists.
func indexTxs(tx *bbolt.Tx) error {
	if tx.Bucket(bucketTxIndex) != nil {
		return nil
	}
	txs, err := tx.CreateBucket(bucketTxIndex)
	if err != nil {
		return err
	}
	return tx.Bucket(bucketRedemptions).ForEach(func(k, v []byte) error {
		var r store.Redemption
		if json.Unmarshal(v, &r) != nil || r.TxHash == "" {
			return nil
		}
		return txs.Put([]byte(store.TxKey(r.TxHash)), k)
	})
}

// boltRebindTx indexes transaction txHash ("" for none) to record id, and
// removes the index of the transaction id's record named before, if other.
func boltRebindTx(tx *bbolt.Tx, id []byte, txHash string) error {
	if v := tx.Bucket(bucketRedemptions).Get(id); v != nil {
		var old store.Redemption
		if json.Unmarshal(v, &old) == nil && store.TxKey(old.TxHash) != store.TxKey(txHash) {
			if err := boltUnbindTx(tx, old.TxHash, id); err != nil {
				return err
			}
		}
	}
	if txHash == "" {
		return nil
	}
	return tx.Bucket(bucketTxIndex).Put([]byte(store.TxKey(txHash)), id)
}

// boltUnbindTx removes the index of transaction txHash if it is id's.
func boltUnbindTx(tx *bbolt.Tx, txHash string, id []byte) error {
	if txHash == "" {
		return nil
	}
	txs, k := tx.Bucket(bucketTxIndex), []byte(store.TxKey(txHash))
	if string(txs.Get(k)) != string(id) {
		return nil
	}
	return txs.Delete(k)
}

func (b *redemptions) ByPaymentID(key string) (string, *store.Redemption, error) {
	return b.byIndex(bucketPaymentIDs, key)
}

func (b *redemptions) ByTransaction(txHash string) (string, *store.Redemption, error) {
	return b.byIndex(bucketTxIndex, store.TxKey(txHash))
}

// byIndex is the record an index bucket maps key to, and its id; "" and
// nil when there is none. (An index entry and its record are written and
// removed in one transaction.)
func (b *redemptions) byIndex(bucket []byte, key string) (string, *store.Redemption, error) {
	var (
		id  string
		out *store.Redemption
	)
	err := b.db.View(func(tx *bbolt.Tx) error {
		v := tx.Bucket(bucket).Get([]byte(key))
		if v == nil {
			return nil
		}
		var err error
		if out, err = boltRecord(tx, string(v)); out != nil {
			id = string(v)
		}
		return err
	})
	return id, out, err
}

func (b *redemptions) Prune(expiredBefore int64) (int, error) {
	n := 0
	err := b.db.Update(func(tx *bbolt.Tx) error {
		bk := tx.Bucket(bucketRedemptions)
		var gone [][]byte
		err := bk.ForEach(func(k, v []byte) error {
			var r store.Redemption
			if json.Unmarshal(v, &r) == nil && r.Prunable(expiredBefore) {
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

func (b *redemptions) Close() error {
	return errors.Join(b.channels.log.close(), b.db.Close())
}

// Path is the store's file.
func (b *redemptions) Path() string { return b.db.Path() }
