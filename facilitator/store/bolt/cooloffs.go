package bolt

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"go.etcd.io/bbolt"

	"github.com/caddy-x402/caddy-x402/facilitator/store"
)

// bucketCoolOffs holds the cooling-offs in the journal's file, by key.
var bucketCoolOffs = []byte("cool-offs")

// coolOffs are the cooling-offs in the journal's bbolt file (one file
// can be opened once, so they share its handle).
type coolOffs struct{ db *bbolt.DB }

func (s *coolOffs) Strike(_ context.Context, keys []string, txHash string, now time.Time, base, max time.Duration) ([]store.CoolOff, error) {
	keys, err := store.CheckStrike(keys, txHash, base, max)
	if err != nil {
		return nil, err
	}
	var out []store.CoolOff
	err = s.db.Update(func(tx *bbolt.Tx) error {
		b, err := tx.CreateBucketIfNotExists(bucketCoolOffs)
		if err != nil {
			return err
		}
		out = make([]store.CoolOff, len(keys))
		for i, k := range keys {
			var cur *store.CoolOff
			if v := b.Get([]byte(k)); v != nil {
				cur = new(store.CoolOff)
				if err := json.Unmarshal(v, cur); err != nil {
					return err
				}
			}
			c, changed := store.StrikeOne(cur, k, txHash, now, base, max)
			out[i] = c
			if !changed {
				continue
			}
			data, err := json.Marshal(&c)
			if err != nil {
				return err
			}
			if err := b.Put([]byte(k), data); err != nil {
				return err
			}
		}
		return nil
	})
	return out, err
}

func (s *coolOffs) CoolingOff(_ context.Context, keys []string, now time.Time) (*store.CoolOff, error) {
	var cs []store.CoolOff
	err := s.db.View(func(tx *bbolt.Tx) error {
		b := tx.Bucket(bucketCoolOffs)
		if b == nil {
			return nil
		}
		for _, k := range keys {
			if v := b.Get([]byte(strings.ToLower(k))); v != nil {
				var c store.CoolOff
				if err := json.Unmarshal(v, &c); err != nil {
					return err
				}
				cs = append(cs, c)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return store.LatestCoolOff(cs, now), nil
}

func (s *coolOffs) PruneCoolOffs(t time.Time) (int, error) {
	n := 0
	err := s.db.Update(func(tx *bbolt.Tx) error {
		n = 0
		b := tx.Bucket(bucketCoolOffs)
		if b == nil {
			return nil
		}
		var drop [][]byte
		err := b.ForEach(func(k, v []byte) error {
			var c store.CoolOff
			if json.Unmarshal(v, &c) != nil || c.Until.Before(t) {
				drop = append(drop, append([]byte(nil), k...))
			}
			return nil
		})
		if err != nil {
			return err
		}
		for _, k := range drop {
			if err := b.Delete(k); err != nil {
				return err
			}
		}
		n = len(drop)
		return nil
	})
	return n, err
}
