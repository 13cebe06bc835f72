package store

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// CatalogEntry is one resource in the facilitator's discovery catalog (the
// bazaar): another seller's paid resource, learnt from the bazaar
// declaration a paying client echoed in a settle request.
type CatalogEntry struct {
	// Key identifies the entry: the resource URL, its MCP tool, and its
	// payee (so that a payment to one payee never replaces the entry of
	// another for the same URL).
	Key string `json:"key"`
	// Type is the resource's protocol: "http" or "mcp".
	Type string `json:"type"`
	// PayTo is the payee, 0x hex in lower case, for the payTo filter.
	PayTo string `json:"payTo"`
	// Networks are the networks of its accepts, for the network filter.
	Networks []string `json:"networks"`
	// Schemes are the schemes of its accepts, for the scheme filter.
	Schemes []string `json:"schemes"`
	// Data is the entry as listed: a JSON object, at most
	// MaxCatalogEntryBytes.
	Data []byte `json:"data"`
	// Updated is when it was last written.
	Updated time.Time `json:"updated"`
}

// CatalogQuery selects catalog entries: every filter that is set must
// hold; the entries are ordered by key and paged by Offset and Limit.
type CatalogQuery struct {
	Type, PayTo, Network, Scheme string
	Offset, Limit                int
}

// Catalog keeps the discovery catalog beside the settlement journal (the
// same memory, bbolt file or PostgreSQL database: a journal that keeps
// one implements Catalog), so that it survives restarts and, in PostgreSQL, every instance lists the same.
// Its size is bounded: each entry by MaxCatalogEntryBytes, all of them
// together by the maxTotal the writer gives.
type Catalog interface {
	// PutEntry writes e, replacing the entry of its key. ErrCatalogFull
	// when the entries' data would then exceed maxTotal bytes in all;
	// ErrBadCatalogEntry when e lacks a key, a type or data, or its data
	// exceeds MaxCatalogEntryBytes.
	PutEntry(e *CatalogEntry, maxTotal int64) error
	// Entries returns the entries q selects, ordered by key, from
	// q.Offset, at most q.Limit, and how many q selects in all.
	Entries(q CatalogQuery) ([]CatalogEntry, int, error)
	// PruneCatalog removes the entries last written before t and says how
	// many.
	PruneCatalog(t time.Time) (int, error)
}

// MaxCatalogEntryBytes bounds the data of one catalog entry.
const MaxCatalogEntryBytes = 32 << 10

// Errors of the catalog.
var (
	ErrCatalogFull     = errors.New("the discovery catalog is full")
	ErrBadCatalogEntry = errors.New("a catalog entry needs a key, a type and data of at most 32 KiB")
)

// Checked validates e and returns a copy ready to store.
func (e *CatalogEntry) Checked() (CatalogEntry, error) {
	if e.Key == "" || e.Type == "" || len(e.Data) == 0 || len(e.Data) > MaxCatalogEntryBytes {
		return CatalogEntry{}, fmt.Errorf("%w (key %q, %d bytes)", ErrBadCatalogEntry, clipKey(e.Key), len(e.Data))
	}
	c := *e
	c.PayTo = strings.ToLower(e.PayTo)
	c.Networks = slices.Clone(e.Networks)
	c.Schemes = slices.Clone(e.Schemes)
	c.Data = slices.Clone(e.Data)
	if c.Updated.IsZero() {
		c.Updated = time.Now()
	}
	c.Updated = c.Updated.UTC()
	return c, nil
}

// Matches reports whether q's filters hold for e.
func (q *CatalogQuery) Matches(e *CatalogEntry) bool {
	return (q.Type == "" || e.Type == q.Type) &&
		(q.PayTo == "" || e.PayTo == strings.ToLower(q.PayTo)) &&
		(q.Network == "" || slices.Contains(e.Networks, q.Network)) &&
		(q.Scheme == "" || slices.Contains(e.Schemes, q.Scheme))
}

// Page cuts the selected, ordered entries to q's page.
func (q *CatalogQuery) Page(sel []CatalogEntry) []CatalogEntry {
	if q.Offset >= len(sel) || q.Limit <= 0 {
		return nil
	}
	end := len(sel)
	if q.Limit < end-q.Offset {
		end = q.Offset + q.Limit
	}
	return sel[q.Offset:end]
}

func clipKey(k string) string {
	if len(k) > 64 {
		return k[:64] + "..."
	}
	return k
}
