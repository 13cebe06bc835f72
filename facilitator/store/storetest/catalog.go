package storetest

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/caddy-x402/caddy-x402/facilitator/store"
)

// Catalog runs the discovery catalog's conformance tests.
func Catalog(t *testing.T, b Backend[store.Catalog]) {
	t.Run("CatalogPutAndList", func(t *testing.T) { catalogPutAndList(t, b) })
	t.Run("CatalogBounds", func(t *testing.T) { catalogBounds(t, b) })
	t.Run("CatalogPrune", func(t *testing.T) { catalogPrune(t, b) })
}

const catalogMax = 1 << 20

func catalogEntry(key, typ, payTo, network string, at time.Time) *store.CatalogEntry {
	return &store.CatalogEntry{Key: key, Type: typ, PayTo: payTo, Networks: []string{network}, Schemes: []string{"exact"},
		Data: []byte(fmt.Sprintf(`{"resource":%q}`, key)), Updated: at}
}

func catalogKeys(es []store.CatalogEntry) string {
	var ks []string
	for _, e := range es {
		ks = append(ks, e.Key)
	}
	return strings.Join(ks, ",")
}

func catalogPutAndList(t *testing.T, b Backend[store.Catalog]) {
	c := b.New(t)
	at := time.Unix(1_800_000_000, 0).UTC()
	for _, e := range []*store.CatalogEntry{
		catalogEntry("https://b.example/tool mcp", "mcp", payerA, "eip155:338", at),
		catalogEntry("https://a.example/x", "http", payerA, "eip155:338", at),
		catalogEntry("https://c.example/y", "http", payerB, "eip155:25", at),
		catalogEntry("https://a.example/z", "http", payerB, "eip155:338", at),
	} {
		if err := c.PutEntry(e, catalogMax); err != nil {
			t.Fatal(err)
		}
	}
	// The same key again replaces its entry.
	again := catalogEntry("https://a.example/x", "http", payerA, "eip155:338", at.Add(time.Minute))
	again.Data = []byte(`{"resource":"https://a.example/x","v":2}`)
	if err := c.PutEntry(again, catalogMax); err != nil {
		t.Fatal(err)
	}
	if b.Reopen != nil {
		c = b.Reopen(t, c)
	}
	all, total, err := c.Entries(store.CatalogQuery{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if got := catalogKeys(all); total != 4 || got != "https://a.example/x,https://a.example/z,https://b.example/tool mcp,https://c.example/y" {
		t.Fatalf("Entries = %s (total %d)", got, total)
	}
	x := all[0]
	if !bytes.Equal(x.Data, again.Data) || !x.Updated.Equal(again.Updated) || x.PayTo != strings.ToLower(payerA) || x.Type != "http" ||
		len(x.Networks) != 1 || x.Networks[0] != "eip155:338" || len(x.Schemes) != 1 || x.Schemes[0] != "exact" {
		t.Fatalf("entry = %+v (data %s)", x, x.Data)
	}
	for _, tc := range []struct {
		q     store.CatalogQuery
		want  string
		total int
	}{
		{store.CatalogQuery{Type: "http", Limit: 10}, "https://a.example/x,https://a.example/z,https://c.example/y", 3},
		{store.CatalogQuery{Type: "mcp", Limit: 10}, "https://b.example/tool mcp", 1},
		{store.CatalogQuery{PayTo: strings.ToUpper(payerB[2:]) + "", Limit: 10}, "", 0},
		{store.CatalogQuery{PayTo: "0x" + strings.ToUpper(payerB[2:]), Limit: 10}, "https://a.example/z,https://c.example/y", 2},
		{store.CatalogQuery{Network: "eip155:25", Limit: 10}, "https://c.example/y", 1},
		{store.CatalogQuery{Scheme: "upto", Limit: 10}, "", 0},
		{store.CatalogQuery{Type: "http", Network: "eip155:338", PayTo: payerA, Limit: 10}, "https://a.example/x", 1},
		{store.CatalogQuery{Offset: 1, Limit: 2}, "https://a.example/z,https://b.example/tool mcp", 4},
		{store.CatalogQuery{Offset: 3, Limit: 2}, "https://c.example/y", 4},
		{store.CatalogQuery{Offset: 9, Limit: 2}, "", 4},
	} {
		got, total, err := c.Entries(tc.q)
		if err != nil || catalogKeys(got) != tc.want || total != tc.total {
			t.Errorf("Entries(%+v) = %s (total %d), %v; want %s (total %d)", tc.q, catalogKeys(got), total, err, tc.want, tc.total)
		}
	}
}

func catalogBounds(t *testing.T, b Backend[store.Catalog]) {
	c := b.New(t)
	at := time.Now().UTC().Truncate(time.Second)
	big := func(key string, n int) *store.CatalogEntry {
		e := catalogEntry(key, "http", payerA, "eip155:338", at)
		e.Data = []byte(`"` + strings.Repeat("a", n-2) + `"`)
		return e
	}
	// Too large, or missing parts: refused.
	for _, e := range []*store.CatalogEntry{big("k", store.MaxCatalogEntryBytes+1), {Type: "http", Data: []byte("{}")}, {Key: "k", Data: []byte("{}")}, {Key: "k", Type: "http"}} {
		if err := c.PutEntry(e, catalogMax); !errors.Is(err, store.ErrBadCatalogEntry) {
			t.Fatalf("PutEntry(%q, %d bytes) = %v, want ErrBadCatalogEntry", e.Key, len(e.Data), err)
		}
	}
	// The total bound: 3 entries of 10 KB fit in 32 KB, a 4th does not;
	// replacing one by a smaller one makes room.
	const maxTotal = 32_000
	for i := 0; i < 3; i++ {
		if err := c.PutEntry(big(fmt.Sprint("k", i), 10_000), maxTotal); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.PutEntry(big("k3", 10_000), maxTotal); !errors.Is(err, store.ErrCatalogFull) {
		t.Fatalf("PutEntry past the total = %v, want ErrCatalogFull", err)
	}
	if err := c.PutEntry(big("k0", 11_000), maxTotal); err != nil {
		t.Fatalf("replacing an entry within the total: %v", err)
	}
	if err := c.PutEntry(big("k0", 1_000), maxTotal); err != nil {
		t.Fatal(err)
	}
	if err := c.PutEntry(big("k3", 10_000), maxTotal); err != nil {
		t.Fatalf("PutEntry once room was made = %v", err)
	}
	// Concurrent writers never pass the bound together (in PostgreSQL,
	// on several connections).
	if b.Reopen != nil {
		c = b.Reopen(t, c)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	ok := 0
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			err := c.PutEntry(big(fmt.Sprint("race", i), 900), maxTotal)
			if err == nil {
				mu.Lock()
				ok++
				mu.Unlock()
			} else if !errors.Is(err, store.ErrCatalogFull) {
				t.Error(err)
			}
		}(i)
	}
	wg.Wait()
	// 31,000 bytes are taken: one entry of 900 fits, not two.
	if ok != 1 {
		t.Fatalf("%d concurrent writes of 900 bytes into 1,000 free succeeded, want 1", ok)
	}
	_, total, err := c.Entries(store.CatalogQuery{Limit: 100})
	if err != nil || total != 5 {
		t.Fatalf("Entries total = %d, %v; want 5", total, err)
	}
}

func catalogPrune(t *testing.T, b Backend[store.Catalog]) {
	c := b.New(t)
	now := time.Unix(1_800_000_000, 0).UTC()
	for i, age := range []time.Duration{-48 * time.Hour, -time.Second, time.Hour} {
		if err := c.PutEntry(catalogEntry(fmt.Sprint("https://e/", i), "http", payerA, "eip155:338", now.Add(age)), 200); err != nil {
			t.Fatal(err)
		}
	}
	n, err := c.PruneCatalog(now)
	if err != nil || n != 2 {
		t.Fatalf("PruneCatalog = %d, %v; want 2", n, err)
	}
	got, total, err := c.Entries(store.CatalogQuery{Limit: 10})
	if err != nil || catalogKeys(got) != "https://e/2" || total != 1 {
		t.Fatalf("after pruning: %s (total %d), %v", catalogKeys(got), total, err)
	}
	// The pruned entries' bytes are free again (the bound is 200 bytes).
	for i := 3; i < 5; i++ {
		if err := c.PutEntry(catalogEntry(fmt.Sprint("https://e/", i), "http", payerA, "eip155:338", now), 200); err != nil {
			t.Fatalf("PutEntry after pruning: %v", err)
		}
	}
}
