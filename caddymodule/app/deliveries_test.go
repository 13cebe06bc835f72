package app_test

import (
	"context"
	"testing"
	"time"

	"github.com/caddy-x402/caddy-x402/caddymodule/app"
	"github.com/caddy-x402/caddy-x402/facilitator/store"
	"github.com/caddy-x402/caddy-x402/facilitator/store/memory"
	"github.com/caddy-x402/caddy-x402/facilitator/store/postgres"
	"github.com/caddy-x402/caddy-x402/internal/pgtest"
)

// TestDeliveriesPutReleasing: the delivered record lets the request's
// claim go with it on PostgreSQL (one round trip), and only that request's
// claim: the request's own Release, which comes later, does nothing, so a
// second request of the process that claimed the payment in between keeps
// it (a copy here is answered HeldHere with its fingerprint, one at
// another instance HeldElsewhere) until it lets go itself. In memory the
// claim is held until Release, as before. The records read with a claim
// (AuthClaim.Record) are the delivered one, on both.
func TestDeliveriesPutReleasing(t *testing.T) {
	const id = "cronos-testnet/0xf8007fc768f0676978ce715ee7dae3b336eece74/0xde11"
	for _, tc := range []struct {
		name  string
		open  func(t *testing.T) (*app.Deliveries, store.Claims) // the deliveries, and another instance's claims (nil: none)
		again store.ClaimResult                                  // a second request's claim after the delivered record
	}{
		{"postgres", func(t *testing.T) (*app.Deliveries, store.Claims) {
			dsn := pgtest.Start(t).DSN(t)
			var ps [2]*postgres.Store
			for i := range ps {
				p, err := postgres.Open(context.Background(), dsn, postgres.Options{Lease: 5 * time.Minute})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { p.Close() })
				ps[i] = p
			}
			rd := app.NewSharedDeliveries(ps[0].Redemptions(), ps[0].Claims(), func() error { return nil })
			t.Cleanup(func() { rd.Destruct() })
			return rd, ps[1].Claims()
		}, store.Claimed},
		{"memory", func(t *testing.T) (*app.Deliveries, store.Claims) {
			rd := app.NewDeliveries(memory.NewRedemptions())
			t.Cleanup(func() { rd.Destruct() })
			return rd, nil
		}, store.HeldHere},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			rd, other := tc.open(t)
			first, err := rd.AcquireAuth(ctx, id, "fp1")
			if err != nil || first.Result != store.Claimed {
				t.Fatalf("first claim: %+v, %v", first, err)
			}
			if rec, err := first.Record(); rec != nil || err != nil {
				t.Fatalf("first claim's record: %+v, %v; want none", rec, err)
			}
			rec := &store.Redemption{Route: "r", State: store.RedeemDelivered, ValidBefore: "9999999999", Updated: time.Now()}
			if err := rd.PutReleasing(id, rec); err != nil {
				t.Fatal(err)
			}
			second, err := rd.AcquireAuth(ctx, id, "fp2")
			if err != nil || second.Result != tc.again {
				t.Fatalf("second request's claim after the delivered record: %+v, %v; want %v", second, err, tc.again)
			}
			if tc.again == store.HeldHere {
				if second.Holder != "fp1" {
					t.Errorf("the copy's holder = %q, want fp1", second.Holder)
				}
				first.Release()
				if second, err = rd.AcquireAuth(ctx, id, "fp2"); err != nil || second.Result != store.Claimed {
					t.Fatalf("second request's claim after the release: %+v, %v", second, err)
				}
			}
			if got, err := second.Record(); err != nil || got == nil || got.State != store.RedeemDelivered {
				t.Errorf("second request's record: %+v, %v; want the delivered one", got, err)
			}
			first.Release() // the first request ends: its claim is gone already
			copyHere, err := rd.AcquireAuth(ctx, id, "fp3")
			if err != nil || copyHere.Result != store.HeldHere || copyHere.Holder != "fp2" {
				t.Errorf("a copy here while the second request holds the payment: %+v, %v; want HeldHere by fp2", copyHere, err)
			}
			if other != nil {
				if got, err := other.Claim(ctx, id); got != store.HeldElsewhere || err != nil {
					t.Errorf("a copy at another instance: %v, %v; want HeldElsewhere", got, err)
				}
			}
			second.Release()
			if other != nil {
				if got, err := other.Claim(ctx, id); got != store.Claimed || err != nil {
					t.Errorf("a copy at another instance after the release: %v, %v; want Claimed", got, err)
				}
			} else if again, err := rd.AcquireAuth(ctx, id, "fp4"); err != nil || again.Result != store.Claimed {
				t.Errorf("a claim after the release: %+v, %v; want Claimed", again, err)
			}
		})
	}
}
