package store_test

import (
	"path/filepath"
	"testing"

	"github.com/caddy-x402/caddy-x402/facilitator/store"
	"github.com/caddy-x402/caddy-x402/facilitator/store/storetest"
	"github.com/caddy-x402/caddy-x402/internal/pgtest"
)

func TestCatalogMemory(t *testing.T) {
	storetest.Catalog(t, storetest.Backend[store.Catalog]{
		New: func(t testing.TB) store.Catalog { return store.CatalogOf(store.NewMemoryJournal()) },
	})
}

// The catalog lives in the journal's bbolt file: reopening is closing the
// journal and opening the file again.
func TestCatalogBolt(t *testing.T) {
	files := map[store.Catalog]store.Journal{}
	open := func(t testing.TB, path string) store.Catalog {
		j, err := store.OpenBoltJournal(path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { j.Close() })
		c := store.CatalogOf(j)
		files[c] = j
		return c
	}
	storetest.Catalog(t, storetest.Backend[store.Catalog]{
		New: func(t testing.TB) store.Catalog { return open(t, filepath.Join(t.TempDir(), "journal.db")) },
		Reopen: func(t testing.TB, old store.Catalog) store.Catalog {
			j := files[old]
			path := j.(interface{ Path() string }).Path()
			j.Close()
			return open(t, path)
		},
	})
}

// Reopen is another instance on the same database: what one cataloged,
// every other lists.
func TestCatalogPostgres(t *testing.T) {
	srv := pgtest.Shared(t)
	dsns := map[store.Catalog]string{}
	open := func(t testing.TB, dsn string) store.Catalog {
		c := store.CatalogOf(openPG(t, dsn, 0).Journal())
		dsns[c] = dsn
		return c
	}
	storetest.Catalog(t, storetest.Backend[store.Catalog]{
		New:    func(t testing.TB) store.Catalog { return open(t, srv.DSN(t)) },
		Reopen: func(t testing.TB, old store.Catalog) store.Catalog { return open(t, dsns[old]) },
	})
}
