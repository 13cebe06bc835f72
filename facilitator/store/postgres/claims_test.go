package postgres

import (
	"context"
	"testing"
	"time"

	"github.com/caddy-x402/caddy-x402/facilitator/store"
	"github.com/caddy-x402/caddy-x402/internal/pgtest"
)

// TestPostgresClaimReleaseRetry: a claim whose release failed (the
// database was down) is released by a retry later; a request that claims
// the key again in between, at the same instance, must not lose its claim
// to that retry, or another instance takes the key too and both serve it.
// That was e2e/cluster TestLostWrites' double delivery: a payment's first
// request at instance B released its claim while PostgreSQL was down;
// after the restart the buyer's retry claimed it at B while B's release
// retry had read the key and not yet deleted its row; the delete took the
// new claim, and a copy of the payment at C claimed it as well: both
// copies were delivered. The interleaving is driven by a test hook.
//
//   - "retry after a new claim": the retry reads the key, the key is
//     claimed again here, the retry deletes. Then another instance claims
//     it: at most one of the two may hold it, and once the retry landed
//     the key is free again.
//   - "retry after a new lease": the lease ran out and was taken anew
//     before the retry; a claim of the key under the new lease waits for
//     the retry, which deletes the old lease's row (not a new claim).
func TestPostgresClaimReleaseRetry(t *testing.T) {
	for _, tc := range []struct {
		name     string
		newLease bool
	}{
		{"retry after a new claim", false},
		{"retry after a new lease", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := pgtest.Start(t)
			dsn := srv.DSN(t)
			ctx := context.Background()
			// A lease long enough that neither renewal nor the release
			// retry loop (a fifth of it) runs during the test: the test
			// runs the retry itself.
			open := func() *Store {
				p, err := Open(ctx, dsn, Options{Lease: 5 * time.Minute})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { p.Close() })
				return p
			}
			a, b := open(), open()
			const key = "cronos-testnet/0xf8007fc768f0676978ce715ee7dae3b336eece74/0xc56b"
			if got, err := a.Claims().Claim(ctx, key); got != store.Claimed || err != nil {
				t.Fatalf("first claim at A: %v, %v", got, err)
			}
			srv.Kill(t)
			a.Claims().Release(key) // fails: nothing listens
			srv.Restart(t)
			for _, p := range []*Store{a, b} {
				waitPool(t, p)
			}
			if !a.releasing(key) {
				t.Fatal("the release made while PostgreSQL was down did not wait for a retry")
			}

			var again store.ClaimResult
			hooked := false
			if tc.newLease {
				if _, err := a.pool.Exec(ctx, `UPDATE x402_instances SET expires_at = clock_timestamp() - interval '1 second' WHERE id = $1`, a.Instance()); err != nil {
					t.Fatal(err)
				}
				old := a.Instance()
				// The lease's own connection died with the server: the
				// first renewal finds that out, the next connects anew.
				for i := 0; i < 3 && a.Instance() == old; i++ {
					a.renew(ctx)
				}
				if a.Instance() == old {
					t.Fatal("A did not take a new lease after its lease ran out")
				}
				var err error
				if again, err = a.Claims().Claim(ctx, key); err != nil {
					t.Fatal(err)
				}
			} else {
				testHookRetryReleases = func(keys []string) {
					hooked = true
					var err error
					if again, err = a.Claims().Claim(ctx, key); err != nil {
						t.Error(err)
					}
				}
				t.Cleanup(func() { testHookRetryReleases = nil })
			}
			a.retryReleases(ctx)
			if !tc.newLease && !hooked {
				t.Fatal("the release retry had no key to release")
			}
			other, err := b.Claims().Claim(ctx, key)
			if err != nil {
				t.Fatal(err)
			}
			name := map[store.ClaimResult]string{store.Claimed: "Claimed", store.HeldHere: "HeldHere", store.HeldElsewhere: "HeldElsewhere"}
			t.Logf("A claimed the key again: %s; then B: %s", name[again], name[other])
			if again == store.Claimed && other == store.Claimed {
				t.Fatal("A and B both hold the key: A's release retry deleted A's new claim")
			}
			if again != store.Claimed && other != store.Claimed {
				t.Fatalf("neither A (%s) nor B (%s) holds the key after the release landed", name[again], name[other])
			}
			var owners int
			if err := a.pool.QueryRow(ctx, `SELECT count(*) FROM x402_claims WHERE key = $1`, key).Scan(&owners); err != nil || owners != 1 {
				t.Fatalf("claim rows for the key: %d, %v; want 1", owners, err)
			}
		})
	}
}

// waitPool waits until p's pool answers again after a restart of the
// server (its old connections fail first).
func waitPool(t *testing.T, p *Store) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		err := p.pool.Ping(ctx)
		cancel()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the store's pool does not answer after the restart: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestPostgresClaimAcrossLeases: a request holds a key while its
// instance's lease runs out and the instance takes a new one. The
// instance's other requests do not take the key meanwhile, and the first
// request's release deletes its own claim (the old lease's row), not a
// claim of the key under the new lease: before, a second request here
// took the key over and the first one's release then deleted that claim,
// for another instance to take too (two holders).
func TestPostgresClaimAcrossLeases(t *testing.T) {
	dsn := pgtest.Shared(t).DSN(t)
	ctx := context.Background()
	open := func() *Store {
		p, err := Open(ctx, dsn, Options{Lease: 5 * time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { p.Close() })
		return p
	}
	a, b := open(), open()
	name := map[store.ClaimResult]string{store.Claimed: "Claimed", store.HeldHere: "HeldHere", store.HeldElsewhere: "HeldElsewhere"}
	claim := func(p *Store, who string, want store.ClaimResult) {
		t.Helper()
		if got, err := p.Claims().Claim(ctx, "k"); got != want || err != nil {
			t.Fatalf("%s: Claim = %s, %v; want %s", who, name[got], err, name[want])
		}
	}
	claim(a, "the first request at A", store.Claimed)
	old := a.Instance()
	if _, err := a.pool.Exec(ctx, `UPDATE x402_instances SET expires_at = clock_timestamp() - interval '1 second' WHERE id = $1`, old); err != nil {
		t.Fatal(err)
	}
	a.renew(ctx)
	if a.Instance() == old {
		t.Fatal("A did not take a new lease after its lease ran out")
	}
	claim(a, "a second request at A, under A's new lease, while the first holds the key", store.HeldHere)
	a.Claims().Release("k") // the first request ends
	claim(b, "B, once A's request released the key", store.Claimed)
	claim(a, "A, while B holds the key", store.HeldElsewhere)
}
