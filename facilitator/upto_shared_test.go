package facilitator_test

import (
	"context"
	"math/big"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/caddy-x402/caddy-x402/facilitator/devnet"
	"github.com/caddy-x402/caddy-x402/facilitator/permit2"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
	"github.com/caddy-x402/caddy-x402/internal/pgtest"
)

// TestUptoSharedInstances: two instances on one signer key and one
// PostgreSQL store; every upto payment of a burst is settled at both at
// once: each moves its charge exactly once, the other answer is "already
// used", and the signer's nonces have no gap.
func TestUptoSharedInstances(t *testing.T) {
	dsn := pgtest.Start(t).DSN(t)
	key := newSignerKey(t, chain)
	signer := crypto.PubkeyToAddress(key.PublicKey)
	a := startInstance(t, dsn, key, 30*time.Second)
	b := startInstance(t, dsn, key, 30*time.Second)
	ctx := context.Background()
	const n, charge = 20, 321
	buyerAcct := uptoBuyer(t, n*1000, big.NewInt(1e12))
	seller := newSeller(t)
	acc := x402.RequirementsV2{Scheme: "upto", Network: x402.CAIP2(devnet.ChainID), Amount: "1000", Asset: devnet.TokenAddress.Hex(),
		PayTo: seller.Hex(), MaxTimeoutSeconds: 300, Extra: map[string]any{"facilitatorAddress": signer.Hex()}}
	nonce0, _, err := chain.NonceAt(ctx, signer)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	answers := make([][2]*x402.SettleResponse, n)
	for i := range n {
		h := uptoPay(t, buyerAcct, acc, permit2.PaymentOptions{})
		for j, in := range []*instance{a, b} {
			wg.Go(func() {
				s, err := in.f.Settle(ctx, uptoRequest(h, acc, "321"))
				if err != nil {
					t.Errorf("settle %d at instance %d: %v", i, j, err)
				}
				answers[i][j] = s
			})
		}
	}
	wg.Wait()
	for i, pair := range answers {
		settled := 0
		for _, s := range pair {
			switch {
			case s == nil:
			case s.Settled():
				settled++
			case s.Error != x402.ErrTextAlreadyUsed:
				t.Fatalf("payment %d: answer %+v", i, s)
			}
		}
		if settled != 1 {
			t.Fatalf("payment %d settled %d times: %+v %+v", i, settled, pair[0], pair[1])
		}
	}
	if got := balance(t, seller); got.Int64() != n*charge {
		t.Fatalf("seller holds %s, want %d", got, n*charge)
	}
	latest, pending, err := chain.NonceAt(ctx, signer)
	if err != nil || latest != nonce0+n || pending != latest {
		t.Fatalf("signer nonce %d (pending %d), want %d: one transaction per payment, no gap", latest, pending, nonce0+n)
	}
}
