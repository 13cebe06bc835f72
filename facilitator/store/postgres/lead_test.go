package postgres

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/caddy-x402/caddy-x402/facilitator/store"
	"github.com/caddy-x402/caddy-x402/internal/pgtest"
)

// TestPostgresLead: of the instances on one database, one leads a key at
// a time; it keeps it round after round, gives it up with Resign (another
// takes it at once), and loses it when its lease ends (an instance that
// stopped or died); role keys do not collide with request claims.
func TestPostgresLead(t *testing.T) {
	srv := pgtest.Start(t)
	dsn := srv.DSN(t)
	ctx := context.Background()
	open := func() *Store {
		p, err := Open(ctx, dsn, Options{Lease: 5 * time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { p.Close() })
		return p
	}
	a, b, c := open(), open(), open()
	lead := func(p *Store, name string, want bool) {
		t.Helper()
		if got, err := p.Claims().Lead(ctx, "k"); got != want || err != nil {
			t.Fatalf("%s leads: %v, %v; want %v", name, got, err, want)
		}
	}
	lead(a, "A", true)
	lead(b, "B", false)
	lead(a, "A again", true)
	lead(c, "C", false)
	// A request's claim of the same key is another key.
	if got, err := b.Claims().Claim(ctx, "k"); got != store.Claimed || err != nil {
		t.Fatalf("a request's claim of k at B: %v, %v", got, err)
	}
	if err := b.Claims().Resign(ctx, "k"); err != nil { // B does not lead: nothing changes
		t.Fatal(err)
	}
	lead(c, "C after B's resign", false)
	if err := a.Claims().Resign(ctx, "k"); err != nil {
		t.Fatal(err)
	}
	lead(b, "B after A's resign", true)
	lead(a, "A after B took it", false)
	b.Close() // its lease ends: the key is free
	lead(c, "C after B stopped", true)
	lead(a, "A while C leads", false)
	// C's lease runs out (paused, cut off): fenced, it leads nothing, and
	// A takes the role.
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, `UPDATE x402_instances SET expires_at = clock_timestamp() WHERE id = $1`, c.Instance()); err != nil {
		t.Fatal(err)
	}
	if got, err := c.Claims().Lead(ctx, "k"); got || !errors.Is(err, store.ErrFenced) {
		t.Fatalf("C leads after its lease ran out: %v, %v; want false, ErrFenced", got, err)
	}
	lead(a, "A after C's lease ran out", true)
}
