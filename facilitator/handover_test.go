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
	"github.com/caddy-x402/caddy-x402/facilitator/httpapi"
	"github.com/caddy-x402/caddy-x402/facilitator/network"
	"github.com/caddy-x402/caddy-x402/facilitator/store/bolt"
	"github.com/caddy-x402/caddy-x402/facilitator/token"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// TestHandoverOneEngine replaces a running facilitator with another on the
// same journal and signer key, as a Caddy reload does (the new one starts
// before the old one closes), with a chain that is not mining: settles go
// to the old one, then to both at once, then the old one closes with its
// settlements still waiting for a block. The new facilitator's engine is
// the old one's (one engine per signer key): no two transactions share a
// nonce, the signer sends exactly one transaction per payment, and the old
// facilitator's callers, still waiting when it closed, are answered
// settled when the shared engine sees their block; the new facilitator's
// look-up knows them too.
//
// With an engine per facilitator, the two counted the key's nonces apart
// (clashing sends, refused or re-signed), the old one's callers were
// answered pending at its close, and the settlements it sent after the new
// one started were followed by no one once it closed.
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
	journal, err := bolt.OpenJournal(t.TempDir() + "/journal.db")
	if err != nil {
		t.Fatal(err)
	}
	defer journal.Close()
	nc := testnetConfig()
	nc.RPCURLs = []string{c.RPCURL()}
	nc.SignerKeys = []*ecdsa.PrivateKey{key}
	start := func() (*facilitator.Facilitator, *httptest.Server) {
		f, err := facilitator.New(ctx, facilitator.Config{
			Networks: []network.Config{nc}, Journal: journal, Logger: testLogger(), SettleTimeout: time.Minute,
		})
		if err != nil {
			t.Fatal(err)
		}
		return f, httptest.NewServer(httpapi.New(f, httpapi.Config{NoRateLimits: true}))
	}

	seller := newSeller(t)
	req := requirements(seller, "1000")
	b := newBuyer(t, c, (first+both)*price)
	pays, bodies := payments(t, b, req, first+both)
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
	answers := make([]x402.SettleResponse, len(bodies))
	var wg sync.WaitGroup
	settleAt := func(i int, url string) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			codes[i] = postWithURL(t, http.DefaultClient, url+x402.PathSettle, bodies[i], &answers[i])
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
	// The old config goes while its settles wait for a block: they go on
	// waiting, and are answered when the shared engine sees their block.
	if err := old.Close(); err != nil {
		t.Fatal(err)
	}
	c.ResumeMining()
	oldAPI.Close() // waits for the old facilitator's answers
	wg.Wait()

	for i, p := range pays {
		a := answers[i]
		if codes[i] != http.StatusOK || !a.Settled() {
			t.Errorf("settle %d = %d %+v; want settled, also from the facilitator that closed", i, codes[i], a)
			continue
		}
		// The new facilitator's look-up knows every settlement, also the
		// old one's.
		if res, err := nu.SettlementByAuthorization("cronos-testnet", p.Authorization.From.Hex(), hexNonce(p)); err != nil || !res.Settled() || res.TxHash != a.TxHash {
			t.Errorf("settle %d: answered settled in %s; the new facilitator's look-up says %+v %v", i, a.TxHash, res, err)
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
