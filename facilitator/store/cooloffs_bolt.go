package store

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"
)

// bucketCoolOffs holds the cooling-offs in the journal's file, by key.
var bucketCoolOffs = []byte("cool-offs")

// boltCoolOffs are the cooling-offs in the journal's bbolt file (one file
// can be opened once, so they share its handle).
type boltCoolOffs struct{ db *bolt.DB }

// CoolOffs is the cooling-offs in the same file as the journal.
func (j *boltJournal) CoolOffs() CoolOffs { return &boltCoolOffs{db: j.db} }

// CoolOffs is the cooling-offs in the same file as the redemption
// records (the paywall's: settle after refused to a payer whose settle
// failed).
func (b *boltRedemptions) CoolOffs() CoolOffs { return &boltCoolOffs{db: b.db} }

func (s *boltCoolOffs) Strike(_ context.Context, keys []string, txHash string, now time.Time, base, max time.Duration) ([]CoolOff, error) {
	keys, err := checkStrike(keys, txHash, base, max)
	if err != nil {
		return nil, err
	}
	var out []CoolOff
	err = s.db.Update(func(tx *bolt.Tx) error {
		b, err := tx.CreateBucketIfNotExists(bucketCoolOffs)
		if err != nil {
			return err
		}
		out = make([]CoolOff, len(keys))
		for i, k := range keys {
			var cur *CoolOff
			if v := b.Get([]byte(k)); v != nil {
				cur = new(CoolOff)
				if err := json.Unmarshal(v, cur); err != nil {
					return err
				}
			}
			c, changed := strikeOne(cur, k, txHash, now, base, max)
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

func (s *boltCoolOffs) CoolingOff(_ context.Context, keys []string, now time.Time) (*CoolOff, error) {
	var cs []CoolOff
	err := s.db.View(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketCoolOffs)
		if b == nil {
			return nil
		}
		for _, k := range keys {
			if v := b.Get([]byte(strings.ToLower(k))); v != nil {
				var c CoolOff
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
	return latest(cs, now), nil
}

func (s *boltCoolOffs) PruneCoolOffs(t time.Time) (int, error) {
	n := 0
	err := s.db.Update(func(tx *bolt.Tx) error {
		n = 0
		b := tx.Bucket(bucketCoolOffs)
		if b == nil {
			return nil
		}
		var drop [][]byte
		err := b.ForEach(func(k, v []byte) error {
			var c CoolOff
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
