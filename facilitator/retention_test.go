package facilitator_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/caddy-x402/caddy-x402/facilitator"
	"github.com/caddy-x402/caddy-x402/facilitator/exact"
	"github.com/caddy-x402/caddy-x402/facilitator/httpapi"
	"github.com/caddy-x402/caddy-x402/facilitator/network"
	"github.com/caddy-x402/caddy-x402/facilitator/store"
	"github.com/caddy-x402/caddy-x402/facilitator/store/memory"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// TestJournalRetention starts a facilitator on a journal holding an old
// settled record, an old pending one and a recent settled one: the old
// settled one is compacted away at start, the others stay.
func TestJournalRetention(t *testing.T) {
	now := time.Now()
	j := memory.NewJournal()
	recs := []*store.Record{
		{ID: "cronos-testnet/0xold/1", Network: "cronos-testnet", Status: store.StatusSettled, UpdatedAt: now.Add(-72 * time.Hour)},
		{ID: "cronos-testnet/0xnew/2", Network: "cronos-testnet", Status: store.StatusSettled, UpdatedAt: now.Add(-time.Hour)},
	}
	if err := j.Put(recs...); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name      string
		retention time.Duration
		oldKept   bool
	}{{"keep all", -1, true}, {"48h", 48 * time.Hour, false}} {
		t.Run(tt.name, func(t *testing.T) {
			f, err := facilitator.New(context.Background(), facilitator.Config{
				Networks: []network.Config{testnetConfig()}, Journal: j, JournalRetention: tt.retention,
			})
			if err != nil {
				t.Fatal(err)
			}
			f.Close() // waits for the compaction run at start
			_, errOld := j.ByID(recs[0].ID)
			_, errNew := j.ByID(recs[1].ID)
			if (errOld == nil) != tt.oldKept || errNew != nil {
				t.Errorf("old record: %v (kept: want %v); recent record: %v", errOld, tt.oldKept, errNew)
			}
			if !tt.oldKept && !errors.Is(errOld, store.ErrNotFound) {
				t.Errorf("old record: %v, want ErrSettlementNotFound", errOld)
			}
		})
	}
}

// TestCompactedSettlementsFromChain: once the journal has compacted a
// settlement away, Settlement and SettlementByAuthorization (and their
// HTTP routes) answer it from the chain: settled, with its payer, payee,
// value, block and network. An unknown transaction and an unused
// authorization are still not found (404), and a chain that cannot be
// reached is an error, never "not found" (503).
func TestCompactedSettlementsFromChain(t *testing.T) {
	j := memory.NewJournal()
	proxy := newProxy(t)
	f, api, _ := startFacilitator(t, newSignerKey(t, chain), proxy.URL(), "", func(c *facilitator.Config) {
		c.Journal, c.JournalRetention = j, -1
	})
	seller := newSeller(t)
	req := requirements(seller, "10")
	b := newBuyer(t, chain, 20)
	h, p := pay(t, b, req, exact.PaymentOptions{})
	var s x402.SettleResponse
	if status := postWithURL(t, http.DefaultClient, api+x402.PathSettle, body(h, req), &s); status != http.StatusOK || !s.Settled() || s.BlockNumber == nil {
		t.Fatalf("settle = %d %+v", status, s)
	}
	_, unused := pay(t, b, req, exact.PaymentOptions{})

	n, err := j.(store.Compacter).Compact(time.Now().Add(time.Hour))
	if err != nil || n != 1 {
		t.Fatalf("Compact = %d, %v; want 1 record removed", n, err)
	}
	if _, err := j.ByTx(s.TxHash); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("the journal still answers the compacted settlement: %v", err)
	}

	want := func(t *testing.T, how string, got *x402.SettleResponse, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", how, err)
		}
		if got.Event != x402.EventSettled || got.TxHash != s.TxHash || got.From != b.Address.Hex() || got.To != seller.Hex() ||
			got.Value != "10" || got.BlockNumber == nil || *got.BlockNumber != *s.BlockNumber || got.Network != "cronos-testnet" || got.Error != "" {
			t.Errorf("%s = %+v; want settled %s from %s to %s, value 10, block %d on cronos-testnet", how, got, s.TxHash, b.Address.Hex(), seller.Hex(), *s.BlockNumber)
		}
	}
	got, err := f.Settlement(s.TxHash)
	want(t, "Settlement", got, err)
	got, err = f.SettlementByAuthorization("cronos-testnet", b.Address.Hex(), hexNonce(p))
	want(t, "SettlementByAuthorization", got, err)

	byTx := func(tx string) (int, string) {
		resp, err := http.Get(api + x402.PathSettlements + tx)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(raw)
	}
	byAuth := func(p *x402.Payment) (int, string) {
		q := url.Values{"network": {"cronos-testnet"}, "from": {p.Authorization.From.Hex()}, "nonce": {hexNonce(p)}}
		resp, err := http.Get(api + strings.TrimSuffix(x402.PathSettlements, "/") + "?" + q.Encode())
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(raw)
	}
	for name, get := range map[string]func() (int, string){
		"by tx":            func() (int, string) { return byTx(s.TxHash) },
		"by authorization": func() (int, string) { return byAuth(p) },
	} {
		status, raw := get()
		var st httpapi.SettlementStatus
		if status != http.StatusOK || json.Unmarshal([]byte(raw), &st) != nil || st.Status != store.StatusSettled || st.SettleResponse == nil {
			t.Fatalf("GET settlement %s = %d %s; want 200 settled", name, status, raw)
		}
		want(t, "GET settlement "+name, st.SettleResponse, nil)
	}

	unknown := "0x" + strings.Repeat("ab", 32)
	if _, err := f.Settlement(unknown); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Settlement(unknown tx) = %v; want ErrSettlementNotFound", err)
	}
	if _, err := f.SettlementByAuthorization("cronos-testnet", b.Address.Hex(), hexNonce(unused)); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("SettlementByAuthorization(unused) = %v; want ErrSettlementNotFound", err)
	}
	if status, raw := byTx(unknown); status != http.StatusNotFound || raw != `{"error":"no settlement with transaction `+unknown+` is known to this facilitator"}`+"\n" {
		t.Errorf("GET unknown tx = %d %q; want 404", status, raw)
	}
	if status, raw := byAuth(unused); status != http.StatusNotFound || !strings.Contains(raw, "no settlement of authorization "+hexNonce(unused)) {
		t.Errorf("GET unused authorization = %d %q; want 404", status, raw)
	}

	// The chain out of reach: an error, never "not found".
	proxy.Down()
	if _, err := f.Settlement(s.TxHash); err == nil || errors.Is(err, store.ErrNotFound) {
		t.Errorf("Settlement with the chain down = %v; want an error that is not ErrSettlementNotFound", err)
	}
	if _, err := f.SettlementByAuthorization("cronos-testnet", b.Address.Hex(), hexNonce(unused)); err == nil || errors.Is(err, store.ErrNotFound) {
		t.Errorf("SettlementByAuthorization with the chain down = %v; want an error that is not ErrSettlementNotFound", err)
	}
	if status, _ := byTx(unknown); status != http.StatusServiceUnavailable {
		t.Errorf("GET unknown tx with the chain down = %d; want 503", status)
	}
}
