package store

import (
	"sort"
	"sync"
	"time"
)

// memCatalog is the discovery catalog in memory, beside the memory journal.
type memCatalog struct {
	mu      sync.Mutex
	entries map[string]CatalogEntry
	total   int64
}

// NewMemoryCatalog returns a discovery catalog in memory only.
func NewMemoryCatalog() Catalog { return &memCatalog{entries: map[string]CatalogEntry{}} }

// Catalog is the discovery catalog that lives beside the memory journal.
func (j *memJournal) Catalog() Catalog {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.catalog == nil {
		j.catalog = NewMemoryCatalog()
	}
	return j.catalog
}

func (c *memCatalog) PutEntry(e *CatalogEntry, maxTotal int64) error {
	ce, err := e.check()
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	old := int64(len(c.entries[ce.Key].Data))
	if c.total-old+int64(len(ce.Data)) > maxTotal {
		return ErrCatalogFull
	}
	c.entries[ce.Key] = ce
	c.total += int64(len(ce.Data)) - old
	return nil
}

func (c *memCatalog) Entries(q CatalogQuery) ([]CatalogEntry, int, error) {
	c.mu.Lock()
	var sel []CatalogEntry
	for _, e := range c.entries {
		if q.matches(&e) {
			sel = append(sel, e)
		}
	}
	c.mu.Unlock()
	sort.Slice(sel, func(i, k int) bool { return sel[i].Key < sel[k].Key })
	return q.page(sel), len(sel), nil
}

func (c *memCatalog) PruneCatalog(t time.Time) (int, error) {
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
