package facilitator_test

import (
	"context"
	"crypto/ecdsa"
	"math/big"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/caddy-x402/caddy-x402/facilitator"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
	"github.com/caddy-x402/caddy-x402/internal/pgtest"
)

// settler is one facilitator of a test: Settle and Reserve.
type settler interface {
	Settle(ctx context.Context, req *x402.Request) (*x402.SettleResponse, error)
	Reserve(ctx context.Context, req *x402.Request) (*facilitator.Reservation, *x402.VerifyResponse, error)
}

// TestPayerReservations: a payer sends 30 distinct valid authorizations at
// once and can afford only some of them. Only those are broadcast (one
// transaction each, the signer's nonce tells); every other one is refused
// before anything is sent with the token's reason, on one facilitator and
// on two instances that share a PostgreSQL store. Once the settlements are
// mined, the payer's balance is what counts again: a new authorization it
// can pay for settles. Before the reservations, all 30 were broadcast and
// 29 reverted at the facilitator's expense.
func TestPayerReservations(t *testing.T) {
	const n, price = 30, 1000
	modes := []struct {
		name      string
		instances func(t *testing.T, key *ecdsa.PrivateKey) []settler
	}{
		{"one facilitator", func(t *testing.T, key *ecdsa.PrivateKey) []settler {
			f, _, _ := startFacilitator(t, key, chain.RPCURL(), filepath.Join(t.TempDir(), "journal.db"), nil)
			return []settler{f}
		}},
		{"two instances on PostgreSQL", func(t *testing.T, key *ecdsa.PrivateKey) []settler {
			dsn := pgtest.Shared(t).DSN(t)
			return []settler{startInstance(t, dsn, key, 30*time.Second).f, startInstance(t, dsn, key, 30*time.Second).f}
		}},
	}
	for _, m := range modes {
		for _, afford := range []int64{1, 2} {
			t.Run(m.name+"/affords "+big.NewInt(afford).String(), func(t *testing.T) {
				key := newSignerKey(t, chain)
				signer := crypto.PubkeyToAddress(key.PublicKey)
				fs := m.instances(t, key)
				ctx := context.Background()
				seller := newSeller(t)
				req := requirements(seller, "1000")
				b := newBuyer(t, chain, afford*price)
				nonce0, _, err := chain.NonceAt(ctx, signer)
				if err != nil {
					t.Fatal(err)
				}
				_, bodies := payments(t, b, req, n)
				answers := make([]*x402.SettleResponse, n)
				var wg sync.WaitGroup
				for i := range n {
					wg.Go(func() {
						r, err := requestOf(bodies[i])
						if err == nil {
							answers[i], err = fs[i%len(fs)].Settle(ctx, r)
						}
						if err != nil {
							t.Errorf("settle %d: %v", i, err)
						}
					})
				}
				wg.Wait()
				settled := 0
				for i, s := range answers {
					switch {
					case s == nil:
					case s.Settled():
						settled++
					case s.Error != x402.ErrTextInsufficientFunds:
						t.Errorf("settle %d = %+v, want settled or %q", i, s, x402.ErrTextInsufficientFunds)
					}
				}
				if settled != int(afford) {
					t.Fatalf("%d of %d settled, want %d", settled, n, afford)
				}
				if sent, _, _ := chain.NonceAt(ctx, signer); sent != nonce0+uint64(afford) {
					t.Fatalf("the signer sent %d transactions, want %d: one per payment the payer can afford", sent-nonce0, afford)
				}
				if got := balance(t, seller); got.Cmp(big.NewInt(afford*price)) != 0 {
					t.Fatalf("seller balance %s, want %d", got, afford*price)
				}
				if got := balance(t, b.Address); got.Sign() != 0 {
					t.Fatalf("buyer balance %s, want 0", got)
				}

				// Funded again, the payer pays again: nothing of the
				// finished settlements stays reserved against the new balance.
				if err := chain.Mint(ctx, b.Address, big.NewInt(price)); err != nil {
					t.Fatal(err)
				}
				_, more := payments(t, b, req, 1)
				r, _ := requestOf(more[0])
				if s, err := fs[len(fs)-1].Settle(ctx, r); err != nil || !s.Settled() {
					t.Fatalf("settle after funding again = %+v, %v; want settled", s, err)
				}
			})
		}
	}
}

// TestReserveForSettleAfter: a seller that settles after its upstream
// answered reserves each payment at verify. Of 30 authorizations at once
// from a payer who can afford one, one is reserved and 29 are invalid
// with the token's reason, before any upstream would run; a reservation
// given back frees the value for another; a reserved payment settles
// once, and its copy cannot be reserved while it is held.
func TestReserveForSettleAfter(t *testing.T) {
	const n, price = 30, 1000
	key := newSignerKey(t, chain)
	signer := crypto.PubkeyToAddress(key.PublicKey)
	f, _, _ := startFacilitator(t, key, chain.RPCURL(), filepath.Join(t.TempDir(), "journal.db"), nil)
	ctx := context.Background()
	seller := newSeller(t)
	req := requirements(seller, "1000")
	b := newBuyer(t, chain, price)
	nonce0, _, _ := chain.NonceAt(ctx, signer)
	_, bodies := payments(t, b, req, n)
	reqs := make([]*x402.Request, n)
	for i := range bodies {
		var err error
		if reqs[i], err = requestOf(bodies[i]); err != nil {
			t.Fatal(err)
		}
	}
	res := make([]*facilitator.Reservation, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			r, v, err := f.Reserve(ctx, reqs[i])
			switch {
			case err != nil:
				t.Errorf("reserve %d: %v", i, err)
			case v.IsValid != (r != nil):
				t.Errorf("reserve %d: valid %v with reservation %v", i, v.IsValid, r)
			case !v.IsValid && v.Reason() != x402.ErrTextInsufficientFunds:
				t.Errorf("reserve %d invalid %q, want %q", i, v.Reason(), x402.ErrTextInsufficientFunds)
			}
			res[i] = r
		})
	}
	wg.Wait()
	held := -1
	for i, r := range res {
		if r != nil {
			if held >= 0 {
				t.Fatalf("reservations %d and %d both held for a payer who can afford one", held, i)
			}
			held = i
		}
	}
	if held < 0 {
		t.Fatal("no reservation held")
	}
	if _, v, _ := f.Reserve(ctx, reqs[held]); v == nil || v.Reason() != x402.ErrTextAlreadyUsed {
		t.Fatalf("a copy of a held authorization = %+v, want %q", v, x402.ErrTextAlreadyUsed)
	}

	// Given back (the upstream failed), the value is free for another.
	res[held].Release()
	other := (held + 1) % n
	r, v, err := f.Reserve(ctx, reqs[other])
	if err != nil || !v.IsValid {
		t.Fatalf("reserve after the other was given back = %+v, %v", v, err)
	}
	s, err := r.Settle(ctx)
	if err != nil || !s.Settled() {
		t.Fatalf("settle of the reservation = %+v, %v", s, err)
	}
	if s, _ := r.Settle(ctx); s.Error != x402.ErrTextAlreadyUsed {
		t.Fatalf("a second settle of one reservation = %+v", s)
	}
	r.Release() // after Settle: nothing
	if sent, _, _ := chain.NonceAt(ctx, signer); sent != nonce0+1 {
		t.Fatalf("the signer sent %d transactions, want 1", sent-nonce0)
	}
	if got := balance(t, seller); got.Cmp(big.NewInt(price)) != 0 {
		t.Fatalf("seller balance %s, want %d", got, price)
	}
}

// TestReservationsRebuiltAtRecovery: a settlement left pending by a
// facilitator that stopped is followed by the next one on the same
// journal, with its value reserved again against its payer: while it waits
// for its block, a second authorization from a payer who can afford only
// the first is refused and nothing more is broadcast.
func TestReservationsRebuiltAtRecovery(t *testing.T) {
	const price = 1000
	key := newSignerKey(t, chain)
	signer := crypto.PubkeyToAddress(key.PublicKey)
	journal := filepath.Join(t.TempDir(), "journal.db")
	short := func(c *facilitator.Config) { c.SettleTimeout = time.Second }
	a, _, stopA := startFacilitator(t, key, chain.RPCURL(), journal, short)
	ctx := context.Background()
	seller := newSeller(t)
	req := requirements(seller, "1000")
	b := newBuyer(t, chain, price)
	pays, bodies := payments(t, b, req, 2)
	r0, _ := requestOf(bodies[0])
	r1, _ := requestOf(bodies[1])
	nonce0, _, _ := chain.NonceAt(ctx, signer)

	chain.PauseMining()
	resumed := false
	defer func() {
		if !resumed {
			chain.ResumeMining()
		}
	}()
	s, err := a.Settle(ctx, r0)
	if err != nil || s.Error != x402.ErrTextPending {
		t.Fatalf("settle while mining is paused = %+v, %v; want pending", s, err)
	}
	stopA()
	f, _, _ := startFacilitator(t, key, chain.RPCURL(), journal, short)
	s, err = f.Settle(ctx, r1)
	if err != nil || s.Error != x402.ErrTextInsufficientFunds || s.TxHash != "" {
		t.Fatalf("a second authorization while the first is followed from the journal = %+v, %v; want %q, nothing sent", s, err, x402.ErrTextInsufficientFunds)
	}
	if _, pending, _ := chain.NonceAt(ctx, signer); pending != nonce0+1 {
		t.Fatalf("%d transactions out, want 1", pending-nonce0)
	}
	chain.ResumeMining()
	resumed = true
	deadline := time.Now().Add(20 * time.Second)
	for {
		got, err := f.SettlementByAuthorization("cronos-testnet", b.Address.Hex(), hexNonce(pays[0]))
		if err == nil && got.Settled() {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the followed settlement = %+v, %v; want settled", got, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if got := balance(t, seller); got.Cmp(big.NewInt(price)) != 0 {
		t.Fatalf("seller balance %s, want %d", got, price)
	}
}
