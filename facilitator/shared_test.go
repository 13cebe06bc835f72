package facilitator_test

import (
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/caddy-x402/caddy-x402/facilitator"
	"github.com/caddy-x402/caddy-x402/facilitator/httpapi"
	"github.com/caddy-x402/caddy-x402/facilitator/network"
	"github.com/caddy-x402/caddy-x402/facilitator/store"
	"github.com/caddy-x402/caddy-x402/facilitator/store/postgres"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
	"github.com/caddy-x402/caddy-x402/internal/pgtest"
)

// instance is one facilitator on a shared PostgreSQL store, as one of
// several instances: its own store (pool, lease) and engine, so two of
// them in one process share nothing but the database and the chain.
type instance struct {
	p *postgres.Store
	f *facilitator.Facilitator
}

func startInstance(t *testing.T, dsn string, key *ecdsa.PrivateKey, settleTimeout time.Duration) *instance {
	t.Helper()
	p, err := postgres.Open(context.Background(), dsn, postgres.Options{Lease: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	nc := testnetConfig()
	nc.SignerKeys = []*ecdsa.PrivateKey{key}
	f, err := facilitator.New(context.Background(), facilitator.Config{
		Networks: []network.Config{nc}, Journal: p.Journal(), SettleTimeout: settleTimeout, Logger: testLogger(),
	})
	if err != nil {
		p.Close()
		t.Fatal(err)
	}
	in := &instance{p: p, f: f}
	t.Cleanup(in.stop)
	return in
}

// stop closes the facilitator, then ends the lease (twice is harmless).
func (in *instance) stop() {
	in.f.Close()
	in.p.Close()
}

// TestSharedInstances: two instances on one signer key and one PostgreSQL
// store settle a burst spread over both with every nonce used once and
// none skipped; a settlement pending on an instance that stops is taken
// over by the other, which follows it to its block and answers for it.
func TestSharedInstances(t *testing.T) {
	dsn := pgtest.Start(t).DSN(t)
	key := newSignerKey(t, chain)
	signer := crypto.PubkeyToAddress(key.PublicKey)
	a := startInstance(t, dsn, key, 30*time.Second)
	b := startInstance(t, dsn, key, 30*time.Second)
	ctx := context.Background()
	const n, price = 60, 1000
	seller := newSeller(t)
	req := requirements(seller, "1000")
	buyerAcct := newBuyer(t, chain, 2*n*price)
	nonce0, _, err := chain.NonceAt(ctx, signer)
	if err != nil {
		t.Fatal(err)
	}

	_, bodies := payments(t, buyerAcct, req, n)
	var wg sync.WaitGroup
	answers := make([]*x402.SettleResponse, n)
	for i := range n {
		wg.Go(func() {
			in := []*instance{a, b}[i%2]
			r, err := requestOf(bodies[i])
			if err == nil {
				answers[i], err = in.f.Settle(ctx, r)
			}
			if err != nil {
				t.Errorf("settle %d: %v", i, err)
			}
		})
	}
	wg.Wait()
	for i, s := range answers {
		if s == nil || !s.Settled() {
			t.Fatalf("settle %d = %+v, want settled", i, s)
		}
		// Either instance answers for either's settlement.
		other := []*instance{b, a}[i%2]
		if got, err := other.f.Settlement(s.TxHash); err != nil || !got.Settled() {
			t.Fatalf("the other instance's look-up of %s = %+v, %v", s.TxHash, got, err)
		}
	}
	latest, pending, err := chain.NonceAt(ctx, signer)
	if err != nil || latest != nonce0+n || pending != latest {
		t.Fatalf("signer nonce %d (pending %d), want %d: one nonce per settlement, no gap", latest, pending, nonce0+n)
	}
	if got := balance(t, seller); got.Cmp(big.NewInt(n*price)) != 0 {
		t.Fatalf("seller balance %s, want %d", got, n*price)
	}

	// A settles with mining paused and answers pending; A stops; B takes
	// the settlements over and follows them to their blocks.
	// The settle timeout also bounds the chain reads before the broadcast:
	// 5 s leaves them room on a loaded machine (1 s did not, under -race
	// with other packages' tests beside it), and the five settles wait
	// together, not one after another.
	a2 := startInstance(t, dsn, key, 5*time.Second)
	chain.PauseMining()
	resumed := false
	defer func() {
		if !resumed {
			chain.ResumeMining()
		}
	}()
	pays, bodies2 := payments(t, buyerAcct, req, 5)
	txs := make([]string, len(bodies2))
	var wg2 sync.WaitGroup
	for i := range bodies2 {
		wg2.Go(func() {
			r, err := requestOf(bodies2[i])
			if err != nil {
				t.Error(err)
				return
			}
			s, err := a2.f.Settle(ctx, r)
			if err != nil || s.Error != x402.ErrTextPending || s.TxHash == "" {
				t.Errorf("settle %d while mining is paused = %+v, %v; want pending with its transaction", i, s, err)
				return
			}
			txs[i] = s.TxHash
		})
	}
	wg2.Wait()
	if t.Failed() {
		t.FailNow()
	}
	a2.stop()
	chain.ResumeMining()
	resumed = true
	deadline := time.Now().Add(30 * time.Second)
	for i, p := range pays {
		for {
			got, err := b.f.SettlementByAuthorization("cronos-testnet", p.Authorization.From.Hex(), hexNonce(p))
			if err == nil && got.Settled() && got.TxHash == txs[i] {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("B's answer for A's pending settlement %d = %+v, %v; want settled by %s", i, got, err, txs[i])
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	if got := balance(t, seller); got.Cmp(big.NewInt((n+5)*price)) != 0 {
		t.Fatalf("seller balance %s, want %d", got, (n+5)*price)
	}
	latest, pending, _ = chain.NonceAt(ctx, signer)
	if latest != nonce0+n+5 || pending != latest {
		t.Fatalf("signer nonce %d (pending %d), want %d", latest, pending, nonce0+n+5)
	}
}

// requestOf decodes a settle body.
func requestOf(b []byte) (*x402.Request, error) {
	r := new(x402.Request)
	return r, json.Unmarshal(b, r)
}

// TestSharedStoreDown: while the shared store is stopped, a settle is
// refused with 503 and nothing is broadcast, and a settlement look-up
// answers 503 with Retry-After (not a 500, nor a 404 that would say the
// settlement is unknown); when the database is back, the same instance
// settles again, with no restart.
func TestSharedStoreDown(t *testing.T) {
	srv := pgtest.Start(t)
	dsn := srv.DSN(t)
	key := newSignerKey(t, chain)
	signer := crypto.PubkeyToAddress(key.PublicKey)
	in := startInstance(t, dsn, key, 30*time.Second)
	api := httptest.NewServer(httpapi.New(in.f, httpapi.Config{NoRateLimits: true}))
	defer api.Close()
	ctx := context.Background()
	req := requirements(newSeller(t), "1000")
	b := newBuyer(t, chain, 10_000)
	_, bodies := payments(t, b, req, 2)
	r0, _ := requestOf(bodies[0])
	s, err := in.f.Settle(ctx, r0)
	if err != nil || !s.Settled() {
		t.Fatalf("settle before the outage = %+v, %v", s, err)
	}
	nonce0, _, _ := chain.NonceAt(ctx, signer)

	srv.Stop(t)
	r1, _ := requestOf(bodies[1])
	_, err = in.f.Settle(ctx, r1)
	var se *x402.StatusError
	if !errors.As(err, &se) || se.Status != 503 || se.Message != "the facilitator's settlement store (PostgreSQL) cannot be reached; nothing was broadcast, try again shortly" {
		t.Fatalf("settle while the store is down: %v, want the 503 of an unreachable store", err)
	}
	resp, err := http.Get(api.URL + "/v2/x402/settlements/" + s.TxHash)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 503 || resp.Header.Get("Retry-After") != "2" || string(data) != `{"error":"reading the settlement journal failed; try again shortly"}`+"\n" {
		t.Fatalf("look-up while the store is down: %d %q Retry-After %q", resp.StatusCode, data, resp.Header.Get("Retry-After"))
	}
	if n, _, _ := chain.NonceAt(ctx, signer); n != nonce0 {
		t.Fatalf("the signer sent %d transactions while the store was down", n-nonce0)
	}

	srv.Restart(t)
	deadline := time.Now().Add(20 * time.Second)
	for {
		s, err = in.f.Settle(ctx, r1)
		if err == nil && s.Settled() {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("settle after the store came back = %+v, %v", s, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
	if n, _, _ := chain.NonceAt(ctx, signer); n != nonce0+1 {
		t.Fatalf("signer nonce %d, want %d", n, nonce0+1)
	}
}

// unreachableNonces is a shared journal whose nonce hand-out fails as a
// store out of reach does (store.ErrUnavailable): the hold and the
// reservation before it pass.
type unreachableNonces struct{ *postgres.Journal }

func (unreachableNonces) Nonces(context.Context, string, string, uint64, int) (uint64, error) {
	return 0, fmt.Errorf("%w: read tcp 127.0.0.1:5432: i/o timeout", store.ErrUnavailable)
}

// TestSharedSendStoreFault: a settle whose send the shared store could not
// take (its nonces out of reach, after the hold and the reservation) is
// the 503 of an unreachable store, which the paywall answers as one
// (facilitator.IsStoreUnavailable), not "cannot send the transaction";
// nothing is broadcast.
func TestSharedSendStoreFault(t *testing.T) {
	dsn := pgtest.Shared(t).DSN(t)
	key := newSignerKey(t, chain)
	signer := crypto.PubkeyToAddress(key.PublicKey)
	p, err := postgres.Open(context.Background(), dsn, postgres.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	nc := testnetConfig()
	nc.SignerKeys = []*ecdsa.PrivateKey{key}
	f, err := facilitator.New(context.Background(), facilitator.Config{
		Networks: []network.Config{nc}, Journal: unreachableNonces{p.Journal()}, SettleTimeout: 30 * time.Second, Logger: testLogger(),
	})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ctx := context.Background()
	_, bodies := payments(t, newBuyer(t, chain, 10_000), requirements(newSeller(t), "1000"), 1)
	r, _ := requestOf(bodies[0])
	nonce0, _, _ := chain.NonceAt(ctx, signer)
	_, err = f.Settle(ctx, r)
	var se *x402.StatusError
	if !errors.As(err, &se) || se.Status != 503 || se.Message != "the facilitator's settlement store (PostgreSQL) cannot be reached; nothing was broadcast, try again shortly" ||
		!facilitator.IsStoreUnavailable(err) {
		t.Fatalf("settle with the store's nonces out of reach: %v, want the 503 of an unreachable store", err)
	}
	time.Sleep(time.Second)
	if n, pending, _ := chain.NonceAt(ctx, signer); n != nonce0 || pending != nonce0 {
		t.Fatalf("the signer's nonce moved (%d, pending %d, was %d): something was broadcast", n, pending, nonce0)
	}
}
