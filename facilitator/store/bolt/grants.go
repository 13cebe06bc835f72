package bolt

import (
	"encoding/binary"
	"encoding/json"
	"time"

	"go.etcd.io/bbolt"

	"github.com/caddy-x402/caddy-x402/facilitator/store"
)

// Buckets of the grants in the redemption store's file: the grants by
// route and payer, and the used sign-in nonces (value: until when they are
// kept, Unix seconds, big-endian).
var (
	bucketGrants = []byte("access-grants")
	bucketNonces = []byte("siwx-nonces")
)

// grants are the grants in the redemption store's bbolt file (one
// file can be opened once, so they share its handle).
type grants struct {
	db  *bbolt.DB
	grp *group // the store's group commit (group.go)
}

// ensure creates the buckets in an update transaction.
func (g *grants) ensure(tx *bbolt.Tx) (grants, nonces *bbolt.Bucket, err error) {
	if grants, err = tx.CreateBucketIfNotExists(bucketGrants); err != nil {
		return nil, nil, err
	}
	nonces, err = tx.CreateBucketIfNotExists(bucketNonces)
	return grants, nonces, err
}

func (g *grants) PutGrant(gr *store.Grant) (bool, error) {
	payer, err := gr.Check()
	if err != nil {
		return false, err
	}
	c := *gr
	c.Payer = payer
	data, err := json.Marshal(&c)
	if err != nil {
		return false, err
	}
	changed := false
	err = g.grp.run(func(tx *bbolt.Tx) error {
		changed = false // the group may run the function again
		bk, _, err := g.ensure(tx)
		if err != nil {
			return err
		}
		k := []byte(store.GrantKey(gr.Route, payer))
		if v := bk.Get(k); v != nil {
			var cur store.Grant
			if json.Unmarshal(v, &cur) == nil && !cur.End.Before(gr.End) {
				return nil
			}
		}
		changed = true
		return bk.Put(k, data)
	})
	return changed, err
}

func (g *grants) Grant(route, payer string) (*store.Grant, error) {
	var out *store.Grant
	err := g.db.View(func(tx *bbolt.Tx) error {
		bk := tx.Bucket(bucketGrants)
		if bk == nil {
			return nil
		}
		v := bk.Get([]byte(store.GrantKey(route, payer)))
		if v == nil {
			return nil
		}
		out = new(store.Grant)
		return json.Unmarshal(v, out)
	})
	return out, err
}

func (g *grants) UseNonce(nonce string, expires time.Time) (bool, error) {
	fresh := false
	err := g.grp.run(func(tx *bbolt.Tx) error {
		fresh = false
		_, bk, err := g.ensure(tx)
		if err != nil {
			return err
		}
		if bk.Get([]byte(nonce)) != nil {
			return nil
		}
		fresh = true
		var v [8]byte
		binary.BigEndian.PutUint64(v[:], uint64(expires.Unix()))
		return bk.Put([]byte(nonce), v[:])
	})
	return fresh, err
}

func (g *grants) PruneGrants(t time.Time) (int, error) {
	n := 0
	err := g.db.Update(func(tx *bbolt.Tx) error {
		n = 0
		grants, nonces, err := g.ensure(tx)
		if err != nil {
			return err
		}
		var gone [][]byte
		err = grants.ForEach(func(k, v []byte) error {
			var gr store.Grant
			if json.Unmarshal(v, &gr) == nil && gr.End.Before(t) {
				gone = append(gone, append([]byte(nil), k...))
			}
			return nil
		})
		if err != nil {
			return err
		}
		for _, k := range gone {
			if err := grants.Delete(k); err != nil {
				return err
			}
		}
		n = len(gone)
		gone = gone[:0]
		err = nonces.ForEach(func(k, v []byte) error {
			if len(v) == 8 && int64(binary.BigEndian.Uint64(v)) < t.Unix() {
				gone = append(gone, append([]byte(nil), k...))
			}
			return nil
		})
		if err != nil {
			return err
		}
		for _, k := range gone {
			if err := nonces.Delete(k); err != nil {
				return err
			}
		}
		n += len(gone)
		return nil
	})
	return n, err
}
