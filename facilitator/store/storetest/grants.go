package storetest

import (
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/caddy-x402/caddy-x402/facilitator/store"
)

// Grants runs the access grants' conformance tests.
func Grants(t *testing.T, b Backend[store.Grants]) {
	t.Run("GrantsPutAndGet", func(t *testing.T) { grantsPutAndGet(t, b) })
	t.Run("GrantsNonces", func(t *testing.T) { grantsNonces(t, b) })
	t.Run("GrantsPrune", func(t *testing.T) { grantsPrune(t, b) })
}

const (
	payerA = "0xAbCdEf0000000000000000000000000000000001"
	payerB = "0x00000000000000000000000000000000000000b2"
)

func grantsPutAndGet(t *testing.T, b Backend[store.Grants]) {
	g := b.New(t)
	start := time.Unix(1_800_000_000, 0).UTC()
	gr := &store.Grant{Route: "route-1", Payer: payerA, Start: start, End: start.Add(time.Hour), TxHash: "0xt1", Network: "cronos-testnet"}
	if changed, err := g.PutGrant(gr); err != nil || !changed {
		t.Fatalf("PutGrant = %v, %v; want true", changed, err)
	}
	// The same payment delivered again changes nothing; an earlier end
	// never shortens the grant.
	if changed, err := g.PutGrant(gr); err != nil || changed {
		t.Fatalf("PutGrant of the same grant = %v, %v; want false", changed, err)
	}
	shorter := *gr
	shorter.End, shorter.TxHash = start.Add(time.Minute), "0xt0"
	if changed, err := g.PutGrant(&shorter); err != nil || changed {
		t.Fatalf("PutGrant of a shorter grant = %v, %v; want false", changed, err)
	}
	if b.Reopen != nil {
		g = b.Reopen(t, g)
	}
	got, err := g.Grant("route-1", "0xabcdef0000000000000000000000000000000001")
	if err != nil || got == nil {
		t.Fatalf("Grant = %+v, %v", got, err)
	}
	want := store.Grant{Route: "route-1", Payer: "0xabcdef0000000000000000000000000000000001", Start: start, End: start.Add(time.Hour), TxHash: "0xt1", Network: "cronos-testnet"}
	if got.Route != want.Route || got.Payer != want.Payer || !got.Start.Equal(want.Start) || !got.End.Equal(want.End) || got.TxHash != want.TxHash || got.Network != want.Network {
		t.Fatalf("Grant = %+v, want %+v", got, want)
	}
	// Another route, another payer: nothing.
	for _, k := range [][2]string{{"route-2", payerA}, {"route-1", payerB}} {
		if got, err := g.Grant(k[0], k[1]); err != nil || got != nil {
			t.Fatalf("Grant(%s, %s) = %+v, %v; want nil", k[0], k[1], got, err)
		}
	}
	// A later payment extends it.
	later := store.Grant{Route: "route-1", Payer: payerA, Start: start.Add(30 * time.Minute), End: start.Add(90 * time.Minute), TxHash: "0xt2"}
	if changed, err := g.PutGrant(&later); err != nil || !changed {
		t.Fatalf("PutGrant of a later grant = %v, %v; want true", changed, err)
	}
	if got, _ := g.Grant("route-1", payerA); got == nil || !got.End.Equal(later.End) || got.TxHash != "0xt2" {
		t.Fatalf("Grant after the later payment = %+v", got)
	}
	for _, bad := range []store.Grant{{Payer: payerA, Start: start, End: start.Add(time.Hour)}, {Route: "r", Start: start, End: start.Add(time.Hour)}, {Route: "r", Payer: payerA, Start: start, End: start}} {
		if _, err := g.PutGrant(&bad); !errors.Is(err, store.ErrBadGrant) {
			t.Fatalf("PutGrant(%+v) = %v, want ErrBadGrant", bad, err)
		}
	}
}

func grantsNonces(t *testing.T, b Backend[store.Grants]) {
	g := b.New(t)
	exp := time.Now().Add(time.Hour).Truncate(time.Second)
	if ok, err := g.UseNonce("n0nce0001", exp); err != nil || !ok {
		t.Fatalf("UseNonce = %v, %v; want true", ok, err)
	}
	if ok, err := g.UseNonce("n0nce0001", exp); err != nil || ok {
		t.Fatalf("UseNonce again = %v, %v; want false", ok, err)
	}
	// Many at once: exactly one wins.
	var wins atomic.Int32
	var wg sync.WaitGroup
	for i := 0; i < 20; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ok, err := g.UseNonce("n0nce0002", exp)
			if err != nil {
				t.Error(err)
			}
			if ok {
				wins.Add(1)
			}
		}()
	}
	wg.Wait()
	if wins.Load() != 1 {
		t.Fatalf("20 concurrent uses of one nonce: %d succeeded, want 1", wins.Load())
	}
	if b.Reopen != nil {
		g = b.Reopen(t, g)
	}
	if ok, err := g.UseNonce("n0nce0001", exp); err != nil || ok {
		t.Fatalf("UseNonce after reopening = %v, %v; want false", ok, err)
	}
}

func grantsPrune(t *testing.T, b Backend[store.Grants]) {
	g := b.New(t)
	now := time.Unix(1_800_000_000, 0).UTC()
	for i, end := range []time.Duration{-2 * time.Hour, -time.Second, time.Hour} {
		gr := &store.Grant{Route: "route", Payer: []string{payerA, payerB, "0x00000000000000000000000000000000000000c3"}[i],
			Start: now.Add(-3 * time.Hour), End: now.Add(end)}
		if _, err := g.PutGrant(gr); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := g.UseNonce("old00001", now.Add(-time.Minute)); err != nil {
		t.Fatal(err)
	}
	if _, err := g.UseNonce("new00001", now.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	n, err := g.PruneGrants(now)
	if err != nil || n != 3 {
		t.Fatalf("PruneGrants = %d, %v; want 3 (2 grants, 1 nonce)", n, err)
	}
	for i, p := range []string{payerA, payerB, "0x00000000000000000000000000000000000000c3"} {
		got, err := g.Grant("route", p)
		if err != nil || (got != nil) != (i == 2) {
			t.Fatalf("after pruning, Grant(%s) = %+v, %v", p, got, err)
		}
	}
	if ok, _ := g.UseNonce("old00001", now.Add(time.Minute)); !ok {
		t.Fatal("a pruned nonce is still there")
	}
	if ok, _ := g.UseNonce("new00001", now.Add(time.Minute)); ok {
		t.Fatal("a nonce kept until later was pruned")
	}
}
