package facilitator_test

import (
	"context"
	"crypto/ecdsa"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/caddy-x402/caddy-x402/facilitator"
	"github.com/caddy-x402/caddy-x402/facilitator/internal/rpcproxy"
	"github.com/caddy-x402/caddy-x402/facilitator/token"
)

// authorizationUsed reads the token's authorizationState on the dev chain.
func authorizationUsed(t *testing.T, p *facilitator.Payment) bool {
	t.Helper()
	tok, err := token.NewEIP3009TokenCaller(chain.Token(), chain.Client())
	if err != nil {
		t.Fatal(err)
	}
	used, err := tok.AuthorizationState(nil, p.Authorization.From, p.Authorization.Nonce)
	if err != nil {
		t.Fatal(err)
	}
	return used
}

// startFacilitator starts a facilitator with one signer key whose RPC goes
// through url, on the given journal, served over HTTP; stop ends both.
func startFacilitator(t *testing.T, key *ecdsa.PrivateKey, url, journal string, edit func(*facilitator.Config)) (f *facilitator.Facilitator, api string, stop func()) {
	t.Helper()
	nc := testnetConfig()
	nc.RPCURLs = []string{url}
	nc.SignerKeys = []*ecdsa.PrivateKey{key}
	cfg := facilitator.Config{Networks: []facilitator.NetworkConfig{nc}, Logger: testLogger(), ReplaceAfterBlocks: 2, JournalPath: journal}
	if edit != nil {
		edit(&cfg)
	}
	f, err := facilitator.New(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(f.Handler(facilitator.HandlerConfig{NoRateLimits: true}))
	var once sync.Once
	stop = func() { once.Do(func() { srv.Close(); f.Close() }) }
	t.Cleanup(stop)
	return f, srv.URL, stop
}

// TestRefusedNeverMoves: 50 concurrent settles, the RPC cut after about 10
// broadcasts. Every settle answered 503 "nothing was broadcast" stays
// unpaid: not by the engine that refused it, nor after a restart on the
// same journal, whose recovery must not broadcast what was refused.
func TestRefusedNeverMoves(t *testing.T) {
	const burst, price, cutAt = 50, 1000, 10
	ctx := context.Background()
	proxy, err := rpcproxy.New(chain.RPCURL())
	if err != nil {
		t.Fatal(err)
	}
	defer proxy.Close()
	key := newSignerKey(t, chain)
	signer := crypto.PubkeyToAddress(key.PublicKey)
	journal := t.TempDir() + "/journal.db"
	_, api, stop := startFacilitator(t, key, proxy.URL(), journal, func(c *facilitator.Config) { c.SettleTimeout = 2 * time.Second })

	seller := newSeller(t)
	req := requirements(seller, "1000")
	b := newBuyer(t, chain, burst*price)
	pays := make([]*facilitator.Payment, burst)
	bodies := make([][]byte, burst)
	for i := range bodies {
		h, p := pay(t, b, req, facilitator.PaymentOptions{})
		pays[i], bodies[i] = p, body(h, req)
	}
	start, err := chain.Client().PendingNonceAt(ctx, signer)
	if err != nil {
		t.Fatal(err)
	}
	cut := make(chan struct{})
	go func() {
		defer close(cut)
		deadline := time.Now().Add(20 * time.Second)
		for time.Now().Before(deadline) {
			if n, err := chain.Client().PendingNonceAt(ctx, signer); err == nil && n >= start+cutAt {
				break
			}
			time.Sleep(time.Millisecond)
		}
		proxy.Down()
	}()
	codes := make([]int, burst)
	answers := make([]facilitator.SettleResponse, burst)
	var wg sync.WaitGroup
	for i := range bodies {
		wg.Add(1)
		go func() {
			defer wg.Done()
			codes[i] = postWithURL(t, http.DefaultClient, api+facilitator.PathSettle, bodies[i], &answers[i])
		}()
	}
	wg.Wait()
	<-cut
	var refused []int
	for i, code := range codes {
		switch {
		case code == http.StatusServiceUnavailable:
			if !strings.Contains(answers[i].Error, "nothing was broadcast") {
				t.Fatalf("503 without \"nothing was broadcast\": %+v", answers[i])
			}
			refused = append(refused, i)
		case code != http.StatusOK:
			t.Fatalf("settle %d = %d %+v", i, code, answers[i])
		}
	}
	t.Logf("%d of %d settles refused with \"nothing was broadcast\"", len(refused), burst)
	if len(refused) == 0 {
		t.Fatal("the cut refused no settle; the test did not exercise anything")
	}

	// Restart on the same journal with the node back: recovery settles
	// what was broadcast and must leave the refused ones alone.
	if err := proxy.Up(); err != nil {
		t.Fatal(err)
	}
	stop()
	f2, _, _ := startFacilitator(t, key, proxy.URL(), journal, nil)
	deadline := time.Now().Add(30 * time.Second)
	for f2.Health(ctx, time.Now()).Networks[0].PendingSettlements > 0 {
		if time.Now().After(deadline) {
			t.Fatal("pending settlements were not reconciled within 30 s")
		}
		time.Sleep(50 * time.Millisecond)
	}
	waitBlocks(t, 3)
	moved := 0
	for i, p := range pays {
		used := authorizationUsed(t, p)
		if used {
			moved++
		}
		for _, r := range refused {
			if r == i && used {
				t.Errorf("settle %d was refused with %q, but its authorization moved money", i, answers[i].Error)
			}
		}
		if res, err := f2.SettlementByAuthorization("cronos-testnet", p.Authorization.From.Hex(), hexNonce(p)); err == nil && res.Settled() != used {
			t.Errorf("settle %d: journal says %+v, chain says used=%v", i, res, used)
		}
	}
	if got, want := balance(t, seller), big.NewInt(int64(moved*price)); got.Cmp(want) != 0 {
		t.Fatalf("seller balance %s, want %s for %d authorizations used", got, want, moved)
	}
	t.Logf("%d authorizations moved money, %d refused, none of them moved", moved, len(refused))
}

func hexNonce(p *facilitator.Payment) string {
	return "0x" + common.Bytes2Hex(p.Authorization.Nonce[:])
}

// waitBlocks waits until n more blocks are sealed on the dev chain.
func waitBlocks(t *testing.T, n uint64) {
	t.Helper()
	from := chainHead(t)
	deadline := time.Now().Add(30 * time.Second)
	for chainHead(t) < from+n {
		if time.Now().After(deadline) {
			t.Fatal("no new blocks within 30 s")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestUnclearSendOneLineage: the node takes a settlement's transaction but
// the answer is lost on the way back, and the retry reaches the node only
// after that transaction is mined (it answers "nonce too low"). The
// settlement must follow the transaction it sent, and answer
// payment.settled with its hash: no second transaction for the same
// authorization under a new nonce.
func TestUnclearSendOneLineage(t *testing.T) {
	ctx := context.Background()
	proxy, err := rpcproxy.New(chain.RPCURL())
	if err != nil {
		t.Fatal(err)
	}
	defer proxy.Close()
	key := newSignerKey(t, chain)
	signer := crypto.PubkeyToAddress(key.PublicKey)
	tf := newTestFacilitator(t, key, func(c *facilitator.Config) { c.Networks[0].RPCURLs = []string{proxy.URL()} })
	seller := newSeller(t)
	req := requirements(seller, "700")
	h, _ := pay(t, newBuyer(t, chain, 700), req, facilitator.PaymentOptions{})
	start, err := chain.Client().NonceAt(ctx, signer, nil)
	if err != nil {
		t.Fatal(err)
	}

	// Every request waits 300 ms in the proxy (blocks come every 200 ms),
	// and the first broadcast's answer is lost.
	proxy.SetDelay(300 * time.Millisecond)
	proxy.LoseReplyTo("eth_sendRawTransaction", 1)
	status, s := tf.settle(t, body(h, req))
	proxy.SetDelay(0)
	if status != 200 || !s.Settled() {
		t.Fatalf("settle after a lost broadcast answer = %d %+v, want payment.settled", status, s)
	}
	waitBlocks(t, 3)
	if n, err := chain.Client().NonceAt(ctx, signer, nil); err != nil || n != start+1 {
		t.Fatalf("the signer sent %d transactions (%v), want 1", n-start, err)
	}
	r, err := chain.Client().TransactionReceipt(ctx, common.HexToHash(s.TxHash))
	if err != nil || r.Status != 1 {
		t.Fatalf("receipt of the answered tx %s: %+v, %v", s.TxHash, r, err)
	}
	if got := balance(t, seller); got.Cmp(big.NewInt(700)) != 0 {
		t.Fatalf("seller balance %s, want 700", got)
	}
}

// TestVerifyWindowEdges: the window is the token's, strict on both ends:
// validAfter equal to now is not yet valid, one second before is valid.
func TestVerifyWindowEdges(t *testing.T) {
	at := time.Now().Truncate(time.Second)
	tf := newTestFacilitator(t, nil, func(c *facilitator.Config) {
		c.Now = func() time.Time { return at }
		c.Networks[0].SkipOnchainVerify = true
	})
	req := requirements(newSeller(t), "10")
	b := buyer(1)
	for _, tc := range []struct {
		validAfter time.Time
		reason     string
	}{
		{at, "Authorization not yet valid"},
		{at.Add(-time.Second), ""},
	} {
		// CreatePayment sets validAfter ten minutes before its Now.
		h, p := pay(t, b, req, facilitator.PaymentOptions{Now: tc.validAfter.Add(10 * time.Minute), ValidFor: time.Hour})
		if p.Authorization.ValidAfter.Int64() != tc.validAfter.Unix() {
			t.Fatalf("validAfter %s, want %d", p.Authorization.ValidAfter, tc.validAfter.Unix())
		}
		var v facilitator.VerifyResponse
		status := postWithURL(t, http.DefaultClient, tf.url+facilitator.PathVerify, body(h, req), &v)
		reason := ""
		if v.InvalidReason != nil {
			reason = *v.InvalidReason
		}
		if status != 200 || v.IsValid != (tc.reason == "") || reason != tc.reason {
			t.Fatalf("verify with validAfter = now%+ds: %d %+v, want reason %q", tc.validAfter.Unix()-at.Unix(), status, v, tc.reason)
		}
	}
}

// TestSignerWithoutGasSkipped: of two signer keys, one has no gas money:
// every settle goes to the other one, none is refused.
func TestSignerWithoutGasSkipped(t *testing.T) {
	funded := newSignerKey(t, chain)
	broke, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	tf := newTestFacilitator(t, funded, func(c *facilitator.Config) {
		c.Networks[0].SignerKeys = []*ecdsa.PrivateKey{broke, funded}
	})
	seller := newSeller(t)
	req := requirements(seller, "100")
	b := newBuyer(t, chain, 400)
	for i := range 4 {
		h, _ := pay(t, b, req, facilitator.PaymentOptions{})
		if status, s := tf.settle(t, body(h, req)); status != 200 || !s.Settled() {
			t.Fatalf("settle %d = %d %+v", i, status, s)
		}
	}
	if latest, _, _ := chain.NonceAt(context.Background(), crypto.PubkeyToAddress(funded.PublicKey)); latest != 4 {
		t.Fatalf("the funded signer sent %d transactions, want 4", latest)
	}
	if got := balance(t, seller); got.Cmp(big.NewInt(400)) != 0 {
		t.Fatalf("seller balance %s, want 400", got)
	}
}

// TestSettleTimeoutBoundsWholeCall: on a node that answers every request
// 600 ms late, a settle with a 2 s timeout answers within its timeout
// (plus a little for the answer itself), whatever stage it reaches: before
// the fix the checks, the nonce and the send ran outside the timer. The
// answer is true either way: settled, pending with its txHash (and then
// settled), or refused with nothing broadcast (and then never moves).
func TestSettleTimeoutBoundsWholeCall(t *testing.T) {
	const timeout = 2 * time.Second
	proxy, err := rpcproxy.New(chain.RPCURL())
	if err != nil {
		t.Fatal(err)
	}
	defer proxy.Close()
	tf := newTestFacilitator(t, nil, func(c *facilitator.Config) {
		c.Networks[0].RPCURLs = []string{proxy.URL()}
		c.SettleTimeout = timeout
	})
	seller := newSeller(t)
	req := requirements(seller, "300")
	h, p := pay(t, newBuyer(t, chain, 300), req, facilitator.PaymentOptions{})
	proxy.SetDelay(600 * time.Millisecond)
	t0 := time.Now()
	status, s := tf.settle(t, body(h, req))
	took := time.Since(t0)
	proxy.SetDelay(0)
	t.Logf("answered %d %s %q after %s", status, s.Event, s.Error, took)
	if took > timeout+800*time.Millisecond {
		t.Fatalf("settle answered after %s with a %s timeout", took, timeout)
	}
	switch {
	case status == 200 && s.Settled():
	case status == 200 && s.Error == facilitator.ErrTextPending && len(s.TxHash) == 66:
		deadline := time.Now().Add(20 * time.Second)
		for !authorizationUsed(t, p) {
			if time.Now().After(deadline) {
				t.Fatal("the pending settlement never moved the money")
			}
			time.Sleep(50 * time.Millisecond)
		}
	case status == 503 && strings.Contains(s.Error, "nothing was broadcast"):
		waitBlocks(t, 5)
		if authorizationUsed(t, p) {
			t.Fatal("refused with nothing broadcast, but the authorization moved money")
		}
	default:
		t.Fatalf("settle = %d %+v", status, s)
	}
}
