package facilitator_test

import (
	"context"
	"crypto/ecdsa"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/caddy-x402/caddy-x402/facilitator"
	"github.com/caddy-x402/caddy-x402/facilitator/devnet"
	"github.com/caddy-x402/caddy-x402/facilitator/exact"
	"github.com/caddy-x402/caddy-x402/facilitator/httpapi"
	"github.com/caddy-x402/caddy-x402/facilitator/internal/rpcproxy"
	"github.com/caddy-x402/caddy-x402/facilitator/network"
	"github.com/caddy-x402/caddy-x402/facilitator/store"
	"github.com/caddy-x402/caddy-x402/facilitator/store/memory"
	"github.com/caddy-x402/caddy-x402/facilitator/token"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// authorizationUsed reads the token's authorizationState on the dev chain.
func authorizationUsed(t *testing.T, p *x402.Payment) bool {
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
	cfg := facilitator.Config{Networks: []network.Config{nc}, Logger: testLogger(), ReplaceAfterBlocks: 2, JournalPath: journal}
	if edit != nil {
		edit(&cfg)
	}
	f, err := facilitator.New(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(httpapi.New(f, httpapi.Config{NoRateLimits: true}))
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
	proxy := newProxy(t)
	key := newSignerKey(t, chain)
	signer := crypto.PubkeyToAddress(key.PublicKey)
	journal := t.TempDir() + "/journal.db"
	_, api, stop := startFacilitator(t, key, proxy.URL(), journal, func(c *facilitator.Config) { c.SettleTimeout = 2 * time.Second })

	seller := newSeller(t)
	req := requirements(seller, "1000")
	b := newBuyer(t, chain, burst*price)
	pays, bodies := payments(t, b, req, burst)
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
	answers := make([]x402.SettleResponse, burst)
	// cutAt callers at a time: settle answers only once its block is
	// mined, so the cut (at cutAt broadcasts) always falls inside the
	// burst, however the send loop groups the first wave and however
	// loaded the machine is. With all 50 at once, one send group could
	// carry the whole burst before the cut and leave nothing refused.
	next := make(chan int, burst)
	for i := range bodies {
		next <- i
	}
	close(next)
	var wg sync.WaitGroup
	for range cutAt {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				codes[i] = postWithURL(t, http.DefaultClient, api+x402.PathSettle, bodies[i], &answers[i])
			}
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
		wasRefused := false
		for _, r := range refused {
			if r == i && used {
				t.Errorf("settle %d was refused with %q, but its authorization moved money", i, answers[i].Error)
			}
			wasRefused = wasRefused || r == i
		}
		res, err := f2.SettlementByAuthorization("cronos-testnet", p.Authorization.From.Hex(), hexNonce(p))
		if err == nil && res.Settled() != used {
			t.Errorf("settle %d: journal says %+v, chain says used=%v", i, res, used)
		}
		// A refusal journaled after the record was written is looked up
		// as what it was: not broadcast (not "failed on-chain").
		if err == nil && wasRefused && res.Error != x402.ErrTextNotBroadcast {
			t.Errorf("settle %d, refused before broadcast, is looked up as %+v", i, res)
		}
	}
	if got, want := balance(t, seller), big.NewInt(int64(moved*price)); got.Cmp(want) != 0 {
		t.Fatalf("seller balance %s, want %s for %d authorizations used", got, want, moved)
	}
	t.Logf("%d authorizations moved money, %d refused, none of them moved", moved, len(refused))
}

// TestJournaledRefusalNeverMoves: every broadcast is refused by the node
// after the settlements were journaled (the proxy answers
// eth_sendRawTransaction with "txpool is full", a stand-in for a node
// refusal), so each refusal takes the journal-then-refuse path: the
// records are finalised as not broadcast before the 503 is told. After a
// restart on the same journal, with the node taking transactions again,
// recovery broadcasts none of them: nothing moves, the signer sends
// nothing, and the look-up says "Settlement not broadcast". (The code
// before left such records pending, and recovery broadcast them.)
func TestJournaledRefusalNeverMoves(t *testing.T) {
	const burst, price = 8, 1000
	ctx := context.Background()
	proxy := newProxy(t)
	key := newSignerKey(t, chain)
	signer := crypto.PubkeyToAddress(key.PublicKey)
	journal := t.TempDir() + "/journal.db"
	_, api, stop := startFacilitator(t, key, proxy.URL(), journal, nil)
	seller := newSeller(t)
	req := requirements(seller, fmt.Sprint(price))
	b := newBuyer(t, chain, burst*price)
	pays, bodies := payments(t, b, req, burst)
	nonce0, err := chain.Client().PendingNonceAt(ctx, signer)
	if err != nil {
		t.Fatal(err)
	}

	proxy.FailMethod("eth_sendRawTransaction", -32000, "txpool is full")
	var wg sync.WaitGroup
	codes := make([]int, burst)
	answers := make([]x402.SettleResponse, burst)
	for i := range bodies {
		wg.Add(1)
		go func() {
			defer wg.Done()
			codes[i] = postWithURL(t, http.DefaultClient, api+x402.PathSettle, bodies[i], &answers[i])
		}()
	}
	wg.Wait()
	for i := range bodies {
		if codes[i] != http.StatusServiceUnavailable || !strings.Contains(answers[i].Error, "nothing was broadcast") {
			t.Fatalf("settle %d with every broadcast refused = %d %+v; want 503, nothing was broadcast", i, codes[i], answers[i])
		}
	}
	if n := len(proxy.Failed()); n < burst {
		t.Fatalf("the node refused %d broadcasts, want at least %d (every settlement journaled, then sent)", n, burst)
	}

	// Restart on the same journal, the node taking transactions again.
	proxy.ClearFailures()
	stop()
	f2, _, _ := startFacilitator(t, key, proxy.URL(), journal, nil)
	waitBlocks(t, 3)
	if n, err := chain.Client().PendingNonceAt(ctx, signer); err != nil || n != nonce0 {
		t.Fatalf("the signer sent %d transactions after refusing every settle (%v)", n-nonce0, err)
	}
	for i, p := range pays {
		if authorizationUsed(t, p) {
			t.Errorf("settle %d was refused, but its authorization moved money", i)
		}
		res, err := f2.SettlementByAuthorization("cronos-testnet", p.Authorization.From.Hex(), hexNonce(p))
		if err != nil || res.Error != x402.ErrTextNotBroadcast || res.TxHash != "" {
			t.Errorf("settle %d: look-up after the restart = %+v, %v; want %q", i, res, err, x402.ErrTextNotBroadcast)
		}
	}
	if got := balance(t, seller); got.Sign() != 0 {
		t.Fatalf("seller balance %s, want 0", got)
	}
}

// payments signs n payments for req with the buyer's key and returns them
// with their settle bodies.
func payments(t *testing.T, b devnet.Account, req x402.PaymentRequirements, n int) ([]*x402.Payment, [][]byte) {
	t.Helper()
	pays := make([]*x402.Payment, n)
	bodies := make([][]byte, n)
	for i := range bodies {
		h, p := pay(t, b, req, exact.PaymentOptions{})
		pays[i], bodies[i] = p, body(h, req)
	}
	return pays, bodies
}

func hexNonce(p *x402.Payment) string {
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
	proxy := newProxy(t)
	key := newSignerKey(t, chain)
	signer := crypto.PubkeyToAddress(key.PublicKey)
	tf := newTestFacilitator(t, key, func(c *facilitator.Config) { c.Networks[0].RPCURLs = []string{proxy.URL()} })
	seller := newSeller(t)
	req := requirements(seller, "700")
	h, _ := pay(t, newBuyer(t, chain, 700), req, exact.PaymentOptions{})
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

// TestUnclearSendNeverArrived: the first broadcast never reaches the node
// (the request is dropped on the way and the connection reset, which the
// engine cannot tell from a lost answer). The engine looks the transaction
// up by hash, finds no node has it, and sends the same signed transaction
// again: the payment settles in the transaction first signed, with one
// transaction, well before a fee-bumped replacement would be due (the
// code before waited ReplaceAfterBlocks and settled in a replacement).
func TestUnclearSendNeverArrived(t *testing.T) {
	ctx := context.Background()
	proxy := newProxy(t)
	key := newSignerKey(t, chain)
	signer := crypto.PubkeyToAddress(key.PublicKey)
	journal := memory.NewJournal()
	tf := newTestFacilitator(t, key, func(c *facilitator.Config) {
		c.Networks[0].RPCURLs = []string{proxy.URL()}
		c.Journal = journal
		c.ReplaceAfterBlocks = 10
	})
	seller := newSeller(t)
	req := requirements(seller, "700")
	h, p := pay(t, newBuyer(t, chain, 700), req, exact.PaymentOptions{})
	start, err := chain.Client().NonceAt(ctx, signer, nil)
	if err != nil {
		t.Fatal(err)
	}

	proxy.LoseRequestTo("eth_sendRawTransaction", 2) // the send and the pool's retry
	status, s := tf.settle(t, body(h, req))
	if status != 200 || !s.Settled() {
		t.Fatalf("settle after a broadcast that never arrived = %d %+v, want payment.settled", status, s)
	}
	if first := hashOfFirst(t, journal, p); s.TxHash != first {
		t.Errorf("settled in %s, not in the transaction first signed (%s): a replacement was sent", s.TxHash, first)
	}
	waitBlocks(t, 3)
	if n, err := chain.Client().NonceAt(ctx, signer, nil); err != nil || n != start+1 {
		t.Fatalf("the signer sent %d transactions (%v), want 1", n-start, err)
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
		h, p := pay(t, b, req, exact.PaymentOptions{Now: tc.validAfter.Add(10 * time.Minute), ValidFor: time.Hour})
		if p.Authorization.ValidAfter.Int64() != tc.validAfter.Unix() {
			t.Fatalf("validAfter %s, want %d", p.Authorization.ValidAfter, tc.validAfter.Unix())
		}
		var v x402.VerifyResponse
		status := postWithURL(t, http.DefaultClient, tf.url+x402.PathVerify, body(h, req), &v)
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
		h, _ := pay(t, b, req, exact.PaymentOptions{})
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
	proxy := newProxy(t)
	tf := newTestFacilitator(t, nil, func(c *facilitator.Config) {
		c.Networks[0].RPCURLs = []string{proxy.URL()}
		c.SettleTimeout = timeout
	})
	seller := newSeller(t)
	req := requirements(seller, "300")
	h, p := pay(t, newBuyer(t, chain, 300), req, exact.PaymentOptions{})
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
	case status == 200 && s.Error == x402.ErrTextPending && len(s.TxHash) == 66:
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

// TestExpiredSettlementFreesNonce: a settlement's transaction is lost by
// the node again and again (dropped from its pool before every block)
// until the authorization expires. The engine then stops bumping fees and
// frees the nonce with a zero-value transfer to the signer: the settlement
// fails as expired, nothing moves, and the signer goes on settling.
func TestExpiredSettlementFreesNonce(t *testing.T) {
	ctx := context.Background()
	c, err := devnet.Start(devnet.Config{BlockTime: 200 * time.Millisecond, Buyers: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	proxy, err := rpcproxy.New(c.RPCURL())
	if err != nil {
		t.Fatal(err)
	}
	defer proxy.Close()
	journal := memory.NewJournal()
	f, api, _ := startFacilitator(t, c.Signer().Key, proxy.URL(), "", func(cfg *facilitator.Config) {
		cfg.Journal = journal
		cfg.ReplaceAfterBlocks = 1
		cfg.ExpiryMargin = time.Second
		cfg.SettleTimeout = 500 * time.Millisecond
	})
	signer := c.Signer().Address
	start, err := c.Client().NonceAt(ctx, signer, nil)
	if err != nil {
		t.Fatal(err)
	}
	seller := newSeller(t)
	req := requirements(seller, "50")
	h, p, err := exact.CreatePayment(c.Buyers()[0].Key, req, exact.PaymentOptions{ChainID: c.ChainID(), ValidFor: 3 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	c.PauseMining()
	var s x402.SettleResponse
	if status := postWithURL(t, http.DefaultClient, api+x402.PathSettle, body(h, req), &s); status != 200 || s.Error != x402.ErrTextPending {
		t.Fatalf("settle with mining paused = %d %+v", status, s)
	}
	// Until validBefore has passed, every block is sealed empty: whatever
	// the engine sent is dropped first, with the node out of its reach.
	for time.Now().Unix() <= p.Authorization.ValidBefore.Int64() {
		proxy.Down()
		c.DropPending()
		c.Mine()
		if err := proxy.Up(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(300 * time.Millisecond)
	}
	var res *x402.SettleResponse
	deadline := time.Now().Add(20 * time.Second)
	for {
		c.Mine()
		res, err = f.SettlementByAuthorization("cronos-testnet", p.Authorization.From.Hex(), hexNonce(p))
		if err == nil && res.Error != x402.ErrTextPending {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the expired settlement was not concluded: %+v %v", res, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
	if res.Event != x402.EventFailed || res.Error != x402.ErrTextExpired {
		t.Fatalf("expired settlement = %+v, want payment.failed %q", res, x402.ErrTextExpired)
	}
	// Fees rose to the ceiling (3x the first) and no further; the last
	// transaction is the zero-value transfer to the signer.
	rec, err := journal.ByTx(hashOfFirst(t, journal, p))
	if err != nil {
		t.Fatal(err)
	}
	first := decodeTx(t, rec.Txs[0].Raw)
	ceiling := new(big.Int).Mul(first.GasFeeCap(), big.NewInt(3))
	for i, jt := range rec.Txs {
		tx := decodeTx(t, jt.Raw)
		if tx.Nonce() != first.Nonce() || (!jt.Cancel && tx.GasFeeCap().Cmp(ceiling) > 0) {
			t.Fatalf("tx %d of the settlement: nonce %d, fee cap %s (first %s)", i, tx.Nonce(), tx.GasFeeCap(), first.GasFeeCap())
		}
	}
	last := rec.Txs[len(rec.Txs)-1]
	if lt := decodeTx(t, last.Raw); !last.Cancel || *lt.To() != signer || lt.Value().Sign() != 0 || len(lt.Data()) != 0 || len(rec.Txs) < 3 {
		t.Fatalf("the settlement's transactions end with %+v (%d in all), want a zero-value transfer to the signer", last, len(rec.Txs))
	}
	if n, _ := c.Client().NonceAt(ctx, signer, nil); n != start+1 {
		t.Fatalf("the signer's nonce moved by %d, want 1 (the zero-value transfer)", n-start)
	}
	if bal, _ := c.BalanceOf(ctx, seller); bal.Sign() != 0 {
		t.Fatalf("seller balance %s, want 0", bal)
	}
	// The signer is not stalled.
	c.ResumeMining()
	h2, _, _ := exact.CreatePayment(c.Buyers()[0].Key, req, exact.PaymentOptions{ChainID: c.ChainID()})
	for range 20 {
		if status := postWithURL(t, http.DefaultClient, api+x402.PathSettle, body(h2, req), &s); status == 200 && s.Settled() {
			return
		}
		if s.Error != x402.ErrTextPending && s.Error != x402.ErrTextAlreadyUsed {
			t.Fatalf("settle after the cancel = %+v", s)
		}
		time.Sleep(300 * time.Millisecond)
	}
	t.Fatalf("settle after the cancel = %+v", s)
}

// hashOfFirst is the hash of the first transaction journaled for a payment.
func hashOfFirst(t *testing.T, j store.Journal, p *x402.Payment) string {
	t.Helper()
	id := strings.ToLower("cronos-testnet/" + p.Authorization.From.Hex() + "/" + hexNonce(p))
	rec, err := j.ByID(id)
	if err != nil || len(rec.Txs) == 0 {
		t.Fatalf("journal record %s: %+v %v", id, rec, err)
	}
	return rec.Txs[0].Hash
}

func decodeTx(t *testing.T, raw string) *types.Transaction {
	t.Helper()
	tx := new(types.Transaction)
	if err := tx.UnmarshalBinary(common.FromHex(raw)); err != nil {
		t.Fatal(err)
	}
	return tx
}

// TestForeignTransactionHoldsNonce: while the engine's nonce counter is
// ahead of the chain, another transaction from the same key sits in the
// node's pool on the very nonce the engine is about to use, with a higher
// fee. The settlement given that nonce is refused by the node
// ("replacement transaction underpriced"): it is signed again on a free
// nonce (or refused with nothing broadcast), the ones after it settle, and
// the signer does not stall.
func TestForeignTransactionHoldsNonce(t *testing.T) {
	for _, off := range []uint64{0, 1} {
		t.Run(fmt.Sprintf("nonce+%d", off), func(t *testing.T) { foreignHoldsNonce(t, off) })
	}
}

// foreignHoldsNonce puts the foreign transaction nonceOffset above the
// engine's next nonce: at 0 it meets the burst's first transaction, at 1
// (usually) one inside a group sent together, above which the node takes
// the group's later transactions.
func foreignHoldsNonce(t *testing.T, nonceOffset uint64) {
	const burst = 6
	ctx := context.Background()
	key := newSignerKey(t, chain)
	signer := crypto.PubkeyToAddress(key.PublicKey)
	tf := newTestFacilitator(t, key, nil)
	seller := newSeller(t)
	req := requirements(seller, "10")
	b := newBuyer(t, chain, (burst+1)*10)
	// One settle, so that the engine knows its nonce and counts on.
	h, _ := pay(t, b, req, exact.PaymentOptions{})
	if status, s := tf.settle(t, body(h, req)); status != 200 || !s.Settled() {
		t.Fatalf("first settle = %d %+v", status, s)
	}
	chain.PauseMining()
	defer chain.ResumeMining()
	next, err := chain.Client().PendingNonceAt(ctx, signer)
	if err != nil {
		t.Fatal(err)
	}
	head, err := chain.Client().HeaderByNumber(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Far above anything the engine pays (a tip of the node's suggestion
	// and twice the base fee, bumped to at most 3x): were the base fee
	// low enough (after many empty blocks), 50 base fees alone would be
	// below the suggested tip, and the engine's transaction would replace
	// the foreign one instead of being refused.
	tip, err := chain.Client().SuggestGasTipCap(ctx)
	if err != nil {
		t.Fatal(err)
	}
	fee := new(big.Int).Mul(new(big.Int).Add(head.BaseFee, tip), big.NewInt(50))
	foreign, err := types.SignNewTx(key, types.LatestSignerForChainID(chain.ChainID()), &types.DynamicFeeTx{
		ChainID: chain.ChainID(), Nonce: next + nonceOffset, GasTipCap: fee, GasFeeCap: fee, Gas: 21000, To: &signer,
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := chain.Client().SendTransaction(ctx, foreign); err != nil {
		t.Fatal(err)
	}
	pays := make([]*x402.Payment, burst)
	chans := make([]chan x402.SettleResponse, burst)
	codes := make([]int, burst)
	var wg sync.WaitGroup
	for i := range burst {
		hb, p := pay(t, b, req, exact.PaymentOptions{})
		pays[i] = p
		chans[i] = make(chan x402.SettleResponse, 1)
		wg.Add(1)
		go func() {
			defer wg.Done()
			var s x402.SettleResponse
			codes[i] = postWithURL(t, http.DefaultClient, tf.url+x402.PathSettle, body(hb, req), &s)
			chans[i] <- s
		}()
	}
	time.Sleep(300 * time.Millisecond) // let the burst reach the node
	chain.ResumeMining()
	wg.Wait()
	settled := 0
	for i := range burst {
		s := <-chans[i]
		switch {
		case codes[i] == 200 && s.Settled():
			settled++
		case codes[i] == 503 && strings.Contains(s.Error, "nothing was broadcast"):
			waitBlocks(t, 3)
			if authorizationUsed(t, pays[i]) {
				t.Fatalf("settle %d refused with nothing broadcast, but it moved money", i)
			}
		default:
			t.Fatalf("settle %d = %d %+v", i, codes[i], s)
		}
	}
	if settled < burst-1 {
		t.Fatalf("%d of %d settled; the nonce clash cost more than the one settlement", settled, burst)
	}
	r, err := chain.Client().TransactionReceipt(ctx, foreign.Hash())
	if err != nil || r.Status != 1 {
		t.Fatalf("the foreign transaction: %v %v", r, err)
	}
	if got := balance(t, seller); got.Cmp(big.NewInt(int64(10*(settled+1)))) != 0 {
		t.Fatalf("seller balance %s, want %d", got, 10*(settled+1))
	}
}
