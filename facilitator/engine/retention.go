package engine

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Compacter is a journal that can drop old finished records. Both
// journals of this package are.
type Compacter interface {
	// Compact removes the settled and failed records last updated before
	// cutoff, with their transaction index entries, and returns how many
	// went. Pending records are never removed, however old: recovery needs
	// them. Dropping a finished record loses nothing that keeps money
	// safe: a used authorization is refused on chain, whatever the journal.
	Compact(cutoff time.Time) (int, error)
}

// expired tells whether a record may be compacted away.
func expired(r *Record, cutoff time.Time) bool {
	return r.Status != StatusPending && r.UpdatedAt.Before(cutoff)
}

// Compact implements Compacter. The file does not shrink: bbolt reuses the
// freed pages for new records, so it stops growing.
func (j *boltJournal) Compact(cutoff time.Time) (int, error) {
	n := 0
	err := j.db.Update(func(tx *bolt.Tx) error {
		s, t := tx.Bucket(bucketSettlements), tx.Bucket(bucketTxs)
		var drop []*Record
		err := s.ForEach(func(k, v []byte) error {
			r := new(Record)
			if err := json.Unmarshal(v, r); err != nil {
				return fmt.Errorf("journal record %s: %w", k, err)
			}
			if expired(r, cutoff) && tx.Bucket(bucketPending).Get(k) == nil {
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

// Compact implements Compacter.
func (j *memJournal) Compact(cutoff time.Time) (int, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	n := 0
	for id, r := range j.recs {
		if !expired(&r, cutoff) {
			continue
		}
		for _, x := range r.Txs {
			delete(j.txs, strings.ToLower(x.Hash))
		}
		delete(j.recs, id)
		n++
	}
	return n, nil
}
