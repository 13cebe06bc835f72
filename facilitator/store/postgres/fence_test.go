package postgres

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/caddy-x402/caddy-x402/facilitator/store"
	"github.com/caddy-x402/caddy-x402/internal/pgtest"
)

// TestPostgresRedemptionFence: a request at A holds the claim on a
// payment and its instance's lease runs out (a pause); B takes the claim
// over and writes its record. A's writes of the record (Put, Create,
// Delete) are refused with ErrClaimLost and B's record stands; B, which
// holds the claim, writes on. A write of a record whose key no request of
// the instance holds is not fenced, as before.
func TestPostgresRedemptionFence(t *testing.T) {
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
	const id = "cronos-testnet/0xf8007fc768f0676978ce715ee7dae3b336eece74/0xfe1ce"
	rec := func(state, tx string) *store.Redemption {
		return &store.Redemption{Route: "r", State: state, TxHash: tx, ValidBefore: "9999999999", Updated: time.Now()}
	}
	if got, err := a.Claims().Claim(ctx, id); got != store.Claimed || err != nil {
		t.Fatalf("claim at A: %v, %v", got, err)
	}
	if err := a.Redemptions().Put(id, rec(store.RedeemPaid, "0xa")); err != nil {
		t.Fatalf("A's write while it holds the claim: %v", err)
	}

	// A is paused past its lease; B takes the claim over.
	if _, err := a.pool.Exec(ctx, `UPDATE x402_instances SET expires_at = clock_timestamp() - interval '1 second' WHERE id = $1`, a.Instance()); err != nil {
		t.Fatal(err)
	}
	if got, err := b.Claims().Claim(ctx, id); got != store.Claimed || err != nil {
		t.Fatalf("claim at B after A's lease ran out: %v, %v", got, err)
	}
	if err := b.Redemptions().Put(id, rec(store.RedeemDelivered, "0xb")); err != nil {
		t.Fatalf("B's write while it holds the claim: %v", err)
	}

	// A wakes up and writes: refused, B's record stands.
	if err := a.Redemptions().Put(id, rec(store.RedeemDelivered, "0xa")); !errors.Is(err, store.ErrClaimLost) {
		t.Fatalf("A's Put after B took the claim over = %v; want ErrClaimLost", err)
	}
	if err := a.Redemptions().Delete(id); !errors.Is(err, store.ErrClaimLost) {
		t.Fatalf("A's Delete after B took the claim over = %v; want ErrClaimLost", err)
	}
	if ok, err := a.Redemptions().Create(id, rec(store.RedeemSettling, "")); ok || !errors.Is(err, store.ErrClaimLost) {
		t.Fatalf("A's Create after B took the claim over = %v, %v; want false, ErrClaimLost", ok, err)
	}
	got, err := b.Redemptions().Get(id)
	if err != nil || got == nil || got.State != store.RedeemDelivered || got.TxHash != "0xb" {
		t.Fatalf("record after A's refused writes = %+v, %v; want B's (delivered, 0xb)", got, err)
	}
	if err := b.Redemptions().Put(id, rec(store.RedeemDelivered, "0xb2")); err != nil {
		t.Fatalf("B's second write: %v", err)
	}
	a.Claims().Release(id) // A's request ends: its release leaves B's claim alone
	if got, err := b.Claims().Claim(ctx, id); got != store.HeldHere || err != nil {
		t.Fatalf("claim at B after A's release: %v, %v; want HeldHere", got, err)
	}
	if err := b.Redemptions().Put(id, rec(store.RedeemDelivered, "0xb3")); err != nil {
		t.Fatalf("B's write after A's release: %v", err)
	}

	// No claim held at A on another key: not fenced, as before.
	const other = "cronos-testnet/0xf8007fc768f0676978ce715ee7dae3b336eece74/0x0the2"
	a.renew(ctx) // A takes a new lease
	if err := a.Redemptions().Put(other, rec(store.RedeemPaid, "0xc")); err != nil {
		t.Fatalf("A's write of a record it holds no claim on: %v", err)
	}
	if ok, err := a.Redemptions().Create(other, rec(store.RedeemPaid, "0xc")); ok || err != nil {
		t.Fatalf("A's Create of an existing record it holds no claim on = %v, %v; want false, nil", ok, err)
	}
	if err := a.Redemptions().Delete(other); err != nil {
		t.Fatalf("A's Delete of a record it holds no claim on: %v", err)
	}
}
