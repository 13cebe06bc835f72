package postgres_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/caddy-x402/caddy-x402/facilitator/store"
	"github.com/caddy-x402/caddy-x402/facilitator/store/postgres"
	"github.com/caddy-x402/caddy-x402/internal/pgtest"
)

// TestPostgresRotateSecret: a secret's generations in PostgreSQL. Never
// rotated, the plain secret is generation 1; rotations at once, from
// instances and from a tool's connection, each add one generation (none
// lost, none twice); the plain row holds the newest for builds that know
// no rotation; keep removes what it refuses, given each generation's
// retirement (the next one's creation).
func TestPostgresRotateSecret(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.Shared(t).DSN(t)
	inst := openPG(t, dsn, 0).Redemptions()
	tool, err := postgres.OpenSecrets(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer tool.Close()

	if vs, err := inst.SecretVersions(ctx, "k"); err != nil || len(vs) != 0 {
		t.Fatalf("before any secret: %v, %v", vs, err)
	}
	first, err := inst.Secret(ctx, "k", func() ([]byte, error) { return []byte("first"), nil })
	if err != nil {
		t.Fatal(err)
	}
	vs, err := tool.SecretVersions(ctx, "k")
	if err != nil || len(vs) != 1 || vs[0].Gen != 1 || string(vs[0].Value) != string(first) {
		t.Fatalf("never rotated: %+v, %v", vs, err)
	}

	var wg sync.WaitGroup
	added := make([]store.SecretVersion, 6)
	for i := range added {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var s store.RotatingSecrets = inst
			if i%2 == 1 {
				s = tool
			}
			v, dropped, err := s.RotateSecret(ctx, "k", func() ([]byte, error) { return []byte{byte('a' + i)}, nil }, nil)
			if err != nil || len(dropped) != 0 {
				t.Errorf("rotation %d: %v, dropped %v", i, err, dropped)
			}
			added[i] = v
		}()
	}
	wg.Wait()
	vs, err = inst.SecretVersions(ctx, "k")
	if err != nil || len(vs) != 7 {
		t.Fatalf("after 6 rotations: %d generations, %v", len(vs), err)
	}
	seen := map[int]bool{}
	for _, a := range added {
		if seen[a.Gen] || a.Gen < 2 || a.Gen > 7 || string(vs[a.Gen-1].Value) != string(a.Value) {
			t.Fatalf("rotations added %+v; stored %+v", added, vs)
		}
		seen[a.Gen] = true
	}
	for i := range vs {
		if vs[i].Gen != i+1 || (i > 0 && vs[i].Created.Before(vs[i-1].Created)) {
			t.Fatalf("generations out of order: %+v", vs)
		}
	}
	if string(vs[0].Value) != string(first) {
		t.Fatalf("generation 1 is %q, want the first secret %q", vs[0].Value, first)
	}
	newest, err := inst.Secret(ctx, "k", func() ([]byte, error) { panic("made again") })
	if err != nil || string(newest) != string(vs[6].Value) {
		t.Fatalf("the plain secret is %q, want the newest %q", newest, vs[6].Value)
	}

	// keep: refuse every generation retired before the 5th was made.
	cut := vs[4].Created
	v, dropped, err := tool.RotateSecret(ctx, "k", func() ([]byte, error) { return []byte("z"), nil },
		func(_ store.SecretVersion, retired time.Time) bool { return !retired.Before(cut) })
	if err != nil || v.Gen != 8 || len(dropped) != 3 || dropped[0].Gen != 1 || dropped[2].Gen != 3 {
		t.Fatalf("rotation with keep: %+v, dropped %+v, %v", v, dropped, err)
	}
	if vs, err = inst.SecretVersions(ctx, "k"); err != nil || len(vs) != 5 || vs[0].Gen != 4 || vs[4].Gen != 8 {
		t.Fatalf("after pruning: %+v, %v", vs, err)
	}

	// A rotation with no secret yet makes the first.
	v, _, err = tool.RotateSecret(ctx, "fresh", func() ([]byte, error) { return []byte("f1"), nil }, nil)
	if err != nil || v.Gen != 1 || string(v.Value) != "f1" {
		t.Fatalf("the first rotation of a new name: %+v, %v", v, err)
	}
	if got, err := inst.Secret(ctx, "fresh", func() ([]byte, error) { panic("made again") }); err != nil || string(got) != "f1" {
		t.Fatalf("the new name's plain secret: %q, %v", got, err)
	}
	if vs, err = inst.SecretVersions(ctx, "fresh"); err != nil || len(vs) != 1 || vs[0].Gen != 1 || string(vs[0].Value) != "f1" {
		t.Fatalf("the new name's generations: %+v, %v", vs, err)
	}
}
