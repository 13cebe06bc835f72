package store_test

import (
	"path/filepath"
	"testing"

	"github.com/caddy-x402/caddy-x402/facilitator/store"
	"github.com/caddy-x402/caddy-x402/facilitator/store/storetest"
)

// closeAtEnd closes a store when the test ends (a reopened one included).
func closeAtEnd[S interface{ Close() error }](t testing.TB, s S) S {
	t.Cleanup(func() { s.Close() })
	return s
}

func TestMemory(t *testing.T) {
	storetest.Journal(t, storetest.Backend[store.Journal]{
		New: func(t testing.TB) store.Journal { return store.NewMemoryJournal() },
	})
	storetest.Redemptions(t, storetest.Backend[store.Redemptions]{
		New: func(t testing.TB) store.Redemptions { return store.NewMemoryRedemptions() },
	})
	storetest.Claims(t, func(t testing.TB) store.Claims { return store.NewLocalClaims() })
}

func TestBolt(t *testing.T) {
	must := func(s any, err error) any {
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	journal := func(t testing.TB, path string) store.Journal {
		return closeAtEnd(t, must(store.OpenBoltJournal(path)).(store.Journal))
	}
	storetest.Journal(t, storetest.Backend[store.Journal]{
		New: func(t testing.TB) store.Journal { return journal(t, filepath.Join(t.TempDir(), "journal.db")) },
		Reopen: func(t testing.TB, old store.Journal) store.Journal {
			path := old.(interface{ Path() string }).Path()
			old.Close()
			return journal(t, path)
		},
	})
	redemptions := func(t testing.TB, path string) store.Redemptions {
		return closeAtEnd(t, must(store.OpenBoltRedemptions(path)).(store.Redemptions))
	}
	storetest.Redemptions(t, storetest.Backend[store.Redemptions]{
		New: func(t testing.TB) store.Redemptions {
			return redemptions(t, filepath.Join(t.TempDir(), "redemptions.db"))
		},
		Reopen: func(t testing.TB, old store.Redemptions) store.Redemptions {
			path := old.(interface{ Path() string }).Path()
			old.Close()
			return redemptions(t, path)
		},
	})
}
