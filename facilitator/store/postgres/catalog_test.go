package postgres_test

import (
	"testing"

	"github.com/caddy-x402/caddy-x402/facilitator/store"
	"github.com/caddy-x402/caddy-x402/facilitator/store/storetest"
	"github.com/caddy-x402/caddy-x402/internal/pgtest"
)

// Reopen is another instance on the same database: what one cataloged,
// every other lists.
func TestCatalogPostgres(t *testing.T) {
	srv := pgtest.Shared(t)
	dsns := map[store.Catalog]string{}
	open := func(t testing.TB, dsn string) store.Catalog {
		c := openPG(t, dsn, 0).Journal()
		dsns[c] = dsn
		return c
	}
	storetest.Catalog(t, storetest.Backend[store.Catalog]{
		New:    func(t testing.TB) store.Catalog { return open(t, srv.DSN(t)) },
		Reopen: func(t testing.TB, old store.Catalog) store.Catalog { return open(t, dsns[old]) },
	})
}

// BenchmarkChannelCharge: one paid request's state write (Charge), serial
// and parallel (storetest.BenchmarkCharge).
func BenchmarkChannelCharge(b *testing.B) {
	storetest.BenchmarkCharge(b, func(b *testing.B) store.Channels {
		return openPG(b, pgtest.Shared(b).DSN(b), 0).Redemptions()
	})
}
