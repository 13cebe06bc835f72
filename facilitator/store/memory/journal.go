package memory

import (
	"strings"
	"sync"
	"time"

	"github.com/caddy-x402/caddy-x402/facilitator/store"
)

// journal keeps records in memory: a facilitator without a journal path
// still answers settlement look-ups, but forgets them on restart.
type journal struct {
	mu   sync.Mutex
	recs map[string]store.Record
	txs  map[string]string
	// The discovery catalog and the payers' cooling-offs beside it: the
	// journal is a store.Catalog and a store.CoolOffs.
	*catalog
	*coolOffs
}

// The capabilities kept beside the journal.
var (
	_ store.Catalog  = (*journal)(nil)
	_ store.CoolOffs = (*journal)(nil)
)

// NewJournal returns a journal that lives in memory only.
func NewJournal() store.Journal {
	return &journal{recs: map[string]store.Record{}, txs: map[string]string{}, catalog: newCatalog(), coolOffs: newCoolOffs()}
}

func (j *journal) Put(recs ...*store.Record) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	for _, r := range recs {
		c := *r
		c.Txs = append([]store.JournalTx(nil), r.Txs...)
		j.recs[r.ID] = c
		for _, x := range r.Txs {
			j.txs[strings.ToLower(x.Hash)] = r.ID
		}
	}
	return nil
}

func (j *journal) ByTx(hash string) (*store.Record, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	id, ok := j.txs[strings.ToLower(hash)]
	if !ok {
		return nil, store.ErrNotFound
	}
	r := j.recs[id]
	return &r, nil
}

func (j *journal) ByID(id string) (*store.Record, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	r, ok := j.recs[id]
	if !ok {
		return nil, store.ErrNotFound
	}
	r.Txs = append([]store.JournalTx(nil), r.Txs...)
	return &r, nil
}

func (j *journal) Pending() ([]*store.Record, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	var out []*store.Record
	for _, r := range j.recs {
		if r.Status == store.StatusPending {
			c := r
			out = append(out, &c)
		}
	}
	store.SortByNonce(out)
	return out, nil
}

func (j *journal) Close() error { return nil }

// Compact implements Compacter.
func (j *journal) Compact(cutoff time.Time) (int, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	n := 0
	for id, r := range j.recs {
		if !store.Compactable(&r, cutoff) {
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
