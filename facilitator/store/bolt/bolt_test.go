package bolt_test

import (
	"path/filepath"
	"testing"

	"github.com/caddy-x402/caddy-x402/facilitator/store"
	"github.com/caddy-x402/caddy-x402/facilitator/store/bolt"
	"github.com/caddy-x402/caddy-x402/facilitator/store/storetest"
)

// closeAtEnd closes a store when the test ends (a reopened one included).
func closeAtEnd[S interface{ Close() error }](t testing.TB, s S) S {
	t.Cleanup(func() { s.Close() })
	return s
}

func TestBolt(t *testing.T) {
	must := func(s any, err error) any {
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	journal := func(t testing.TB, path string) store.Journal {
		return closeAtEnd(t, must(bolt.OpenJournal(path)).(store.Journal))
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
		return closeAtEnd(t, must(bolt.OpenRedemptions(path)).(store.Redemptions))
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
	// The grants live in the redemption store's file.
	files := map[store.Grants]store.Redemptions{}
	grants := func(t testing.TB, path string) store.Grants {
		r := redemptions(t, path)
		g := r.(store.Grants)
		files[g] = r
		return g
	}
	storetest.Grants(t, storetest.Backend[store.Grants]{
		New: func(t testing.TB) store.Grants { return grants(t, filepath.Join(t.TempDir(), "redemptions.db")) },
		Reopen: func(t testing.TB, old store.Grants) store.Grants {
			r := files[old]
			path := r.(interface{ Path() string }).Path()
			r.Close()
			return grants(t, path)
		},
	})
	// The cooling-offs live in the journal's file.
	journals := map[store.CoolOffs]store.Journal{}
	cools := func(t testing.TB, path string) store.CoolOffs {
		j := journal(t, path)
		c := j.(store.CoolOffs)
		journals[c] = j
		return c
	}
	storetest.CoolOffs(t, storetest.Backend[store.CoolOffs]{
		New: func(t testing.TB) store.CoolOffs { return cools(t, filepath.Join(t.TempDir(), "journal.db")) },
		Reopen: func(t testing.TB, old store.CoolOffs) store.CoolOffs {
			j := journals[old]
			path := j.(interface{ Path() string }).Path()
			j.Close()
			return cools(t, path)
		},
	})
	// The paywall's cooling-offs (settle after) live in the redemption
	// store's file.
	redeemFiles := map[store.CoolOffs]store.Redemptions{}
	redeemCools := func(t testing.TB, path string) store.CoolOffs {
		r := redemptions(t, path)
		c := r.(store.CoolOffs)
		redeemFiles[c] = r
		return c
	}
	storetest.CoolOffs(t, storetest.Backend[store.CoolOffs]{
		New: func(t testing.TB) store.CoolOffs { return redeemCools(t, filepath.Join(t.TempDir(), "redemptions.db")) },
		Reopen: func(t testing.TB, old store.CoolOffs) store.CoolOffs {
			r := redeemFiles[old]
			path := r.(interface{ Path() string }).Path()
			r.Close()
			return redeemCools(t, path)
		},
	})
	// The channels live in the redemption store's file.
	channelFiles := map[store.Channels]store.Redemptions{}
	channels := func(t testing.TB, path string) store.Channels {
		r := redemptions(t, path)
		c := r.(store.Channels)
		channelFiles[c] = r
		return c
	}
	storetest.Channels(t, storetest.Backend[store.Channels]{
		New: func(t testing.TB) store.Channels { return channels(t, filepath.Join(t.TempDir(), "redemptions.db")) },
		Reopen: func(t testing.TB, old store.Channels) store.Channels {
			r := channelFiles[old]
			path := r.(interface{ Path() string }).Path()
			r.Close()
			return channels(t, path)
		},
	})
}

// The catalog lives in the journal's bbolt file: reopening is closing the
// journal and opening the file again.
func TestCatalogBolt(t *testing.T) {
	files := map[store.Catalog]store.Journal{}
	open := func(t testing.TB, path string) store.Catalog {
		j, err := bolt.OpenJournal(path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { j.Close() })
		c := j.(store.Catalog)
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

// BenchmarkChannelCharge: one paid request's state write (Charge), serial
// and parallel (storetest.BenchmarkCharge).
func BenchmarkChannelCharge(b *testing.B) {
	storetest.BenchmarkCharge(b, func(b *testing.B) store.Channels {
		r, err := bolt.OpenRedemptions(filepath.Join(b.TempDir(), "redemptions.db"))
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { r.Close() })
		return r.(store.Channels)
	})
}
