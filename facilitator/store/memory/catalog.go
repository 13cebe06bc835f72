package memory

import (
	"sort"
	"sync"
	"time"

	"github.com/caddy-x402/caddy-x402/facilitator/store"
)

// catalog is the discovery catalog in memory, beside the memory journal.
type catalog struct {
	mu      sync.Mutex
	entries map[string]store.CatalogEntry
	total   int64
}

// NewCatalog returns a discovery catalog in memory only.
func NewCatalog() store.Catalog { return newCatalog() }

func newCatalog() *catalog { return &catalog{entries: map[string]store.CatalogEntry{}} }

func (c *catalog) PutEntry(e *store.CatalogEntry, maxTotal int64) error {
	ce, err := e.Checked()
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	old := int64(len(c.entries[ce.Key].Data))
	if c.total-old+int64(len(ce.Data)) > maxTotal {
		return store.ErrCatalogFull
	}
	c.entries[ce.Key] = ce
	c.total += int64(len(ce.Data)) - old
	return nil
}

func (c *catalog) Entries(q store.CatalogQuery) ([]store.CatalogEntry, int, error) {
	c.mu.Lock()
	var sel []store.CatalogEntry
	for _, e := range c.entries {
		if q.Matches(&e) {
			sel = append(sel, e)
		}
	}
	c.mu.Unlock()
	sort.Slice(sel, func(i, k int) bool { return sel[i].Key < sel[k].Key })
	return q.Page(sel), len(sel), nil
}

func (c *catalog) PruneCatalog(t time.Time) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for k, e := range c.entries {
		if e.Updated.Before(t) {
			c.total -= int64(len(e.Data))
			delete(c.entries, k)
			n++
		}
	}
	return n, nil
}
