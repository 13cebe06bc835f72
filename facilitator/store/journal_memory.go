package store

import (
	"strings"
	"sync"
	"time"
)

// memJournal keeps records in memory: a facilitator without a journal path
// still answers settlement look-ups, but forgets them on restart.
type memJournal struct {
	mu   sync.Mutex
	recs map[string]Record
	txs  map[string]string
	// catalog is the discovery catalog beside it (catalog_memory.go).
	catalog Catalog
	// cool are the payers' cooling-offs beside it (cooloffs.go).
	cool *memCoolOffs
}

// NewMemoryJournal returns a journal that lives in memory only.
func NewMemoryJournal() Journal {
	return &memJournal{recs: map[string]Record{}, txs: map[string]string{}, cool: &memCoolOffs{m: map[string]CoolOff{}}}
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
