package facilitator_test

import (
	"context"
	"crypto/ecdsa"
	"math/big"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/caddy-x402/caddy-x402/facilitator"
	"github.com/caddy-x402/caddy-x402/facilitator/devnet"
	"github.com/caddy-x402/caddy-x402/facilitator/token"
)

// TestHandoverOneEngine replaces a running facilitator with another on the
// same journal and signer key, as a Caddy reload does (the new one starts
// before the old one closes), with a chain that is not mining: settles go
// to the old one, then to both at once, then the old one closes with its
// settlements still waiting for a block. The new facilitator's engine is
// the old one's (one engine per signer key): no two transactions share a
// nonce, the signer sends exactly one transaction per payment, and the old
// facilitator's settlements (answered pending when it closed) are followed
// to their block by the new one, whose look-up then says settled.
//
// With an engine per facilitator, the two counted the key's nonces apart
// (clashing sends, refused or re-signed) and the settlements the old one
// sent after the new one started were followed by no one once it closed.
func TestHandoverOneEngine(t *testing.T) {
	const first, both, price = 10, 30, 1000
	ctx := context.Background()
	c, err := devnet.Start(devnet.Config{BlockTime: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	key := newSignerKey(t, c)
	signer := crypto.PubkeyToAddress(key.PublicKey)
	journal, err := facilitator.OpenJournal(t.TempDir() + "/journal.db")
	if err != nil {
		t.Fatal(err)
	}
	defer journal.Close()
	nc := testnetConfig()
	nc.RPCURLs = []string{c.RPCURL()}
	nc.SignerKeys = []*ecdsa.PrivateKey{key}
	start := func() (*facilitator.Facilitator, *httptest.Server) {
		f, err := facilitator.New(ctx, facilitator.Config{
			Networks: []facilitator.NetworkConfig{nc}, Journal: journal, Logger: testLogger(), SettleTimeout: time.Minute,
		})
		if err != nil {
			t.Fatal(err)
		}
		return f, httptest.NewServer(f.Handler(facilitator.HandlerConfig{NoRateLimits: true}))
	}

	seller := newSeller(t)
	req := requirements(seller, "1000")
	b := newBuyer(t, c, (first+both)*price)
	pays := make([]*facilitator.Payment, first+both)
	bodies := make([][]byte, first+both)
	for i := range bodies {
		h, p := pay(t, b, req, facilitator.PaymentOptions{})
		pays[i], bodies[i] = p, body(h, req)
	}
	_, nonce0, err := c.NonceAt(ctx, signer)
	if err != nil {
		t.Fatal(err)
	}
	waitSent := func(n uint64) {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for {
			if _, pending, err := c.NonceAt(ctx, signer); err == nil && pending >= nonce0+n {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("fewer than %d settlements broadcast within 20 s", n)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}

	c.PauseMining()
	defer c.ResumeMining()
	old, oldAPI := start()
	codes := make([]int, len(bodies))
	answers := make([]facilitator.SettleResponse, len(bodies))
	var wg sync.WaitGroup
	settleAt := func(i int, url string) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			codes[i] = postWithURL(t, http.DefaultClient, url+facilitator.PathSettle, bodies[i], &answers[i])
		}()
	}
	for i := range first {
		settleAt(i, oldAPI.URL)
	}
	waitSent(first)

	// The "reload": a new facilitator on the same journal and key, and
	// settles to both at once.
	nu, newAPI := start()
	defer newAPI.Close()
	defer nu.Close()
	for i := first; i < first+both; i++ {
		url := newAPI.URL
		if i%2 == 0 {
			url = oldAPI.URL
		}
		settleAt(i, url)
	}
	waitSent(first + both)
	// The old config goes: its waiting settles are answered pending.
	if err := old.Close(); err != nil {
		t.Fatal(err)
	}
	oldAPI.Close()
	c.ResumeMining()
	wg.Wait()

	deadline := time.Now().Add(30 * time.Second)
	for i, p := range pays {
		a := answers[i]
		switch {
		case codes[i] == http.StatusOK && a.Settled():
		case codes[i] == http.StatusOK && a.Error == facilitator.ErrTextPending && a.TxHash != "":
			// Answered pending by the old facilitator as it closed: the
			// new one follows the transaction to its block.
			for {
				res, err := nu.SettlementByAuthorization("cronos-testnet", p.Authorization.From.Hex(), hexNonce(p))
				if err == nil && res.Settled() {
					if res.TxHash != a.TxHash {
						t.Errorf("settle %d: answered pending with %s, settled in %s", i, a.TxHash, res.TxHash)
					}
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("settle %d, answered pending by the closing facilitator, is not settled 30 s later: %+v %v", i, res, err)
				}
				time.Sleep(50 * time.Millisecond)
			}
		default:
			t.Errorf("settle %d = %d %+v; want settled, or pending as the old facilitator closed", i, codes[i], a)
		}
	}
	time.Sleep(time.Second) // a few more blocks, for anything else sent
	latest, pending, err := c.NonceAt(ctx, signer)
	if err != nil {
		t.Fatal(err)
	}
	if want := nonce0 + first + both; latest != want || pending != want {
		t.Errorf("the signer sent %d transactions (%d pending) for %d payments", latest-nonce0, pending-latest, first+both)
	}
	tok, err := token.NewEIP3009TokenCaller(c.Token(), c.Client())
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range pays {
		if used, err := tok.AuthorizationState(nil, p.Authorization.From, p.Authorization.Nonce); err != nil || !used {
			t.Errorf("payment %d did not move (%v)", i, err)
		}
	}
	got, err := c.BalanceOf(ctx, seller)
	if err != nil {
		t.Fatal(err)
	}
	if want := big.NewInt((first + both) * price); got.Cmp(want) != 0 {
		t.Errorf("seller balance %s, want %s", got, want)
	}
}
