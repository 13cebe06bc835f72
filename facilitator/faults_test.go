package facilitator_test

import (
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"errors"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/caddy-x402/caddy-x402/facilitator"
	"github.com/caddy-x402/caddy-x402/facilitator/devnet"
	"github.com/caddy-x402/caddy-x402/facilitator/exact"
	"github.com/caddy-x402/caddy-x402/facilitator/httpapi"
	"github.com/caddy-x402/caddy-x402/facilitator/internal/rpcproxy"
	"github.com/caddy-x402/caddy-x402/facilitator/network"
	"github.com/caddy-x402/caddy-x402/facilitator/store"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// testFacilitator is a facilitator of its own on the shared dev chain,
// with its own signer key, served over HTTP.
type testFacilitator struct {
	f      *facilitator.Facilitator
	url    string
	signer common.Address
}

// newProxy puts an rpcproxy in front of the dev chain for the test.
func newProxy(t *testing.T) *rpcproxy.Proxy {
	t.Helper()
	proxy, err := rpcproxy.New(chain.RPCURL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { proxy.Close() })
	return proxy
}

func newTestFacilitator(t *testing.T, key *ecdsa.PrivateKey, edit func(*facilitator.Config)) *testFacilitator {
	t.Helper()
	if key == nil {
		key = newSignerKey(t, chain)
	}
	nc := testnetConfig()
	nc.SignerKeys = []*ecdsa.PrivateKey{key}
	cfg := facilitator.Config{Networks: []network.Config{nc}, Logger: testLogger(), ReplaceAfterBlocks: 2}
	if edit != nil {
		edit(&cfg)
	}
	f, err := facilitator.New(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(httpapi.New(f, httpapi.Config{NoRateLimits: true}))
	t.Cleanup(func() { srv.Close(); f.Close() })
	return &testFacilitator{f: f, url: srv.URL, signer: crypto.PubkeyToAddress(key.PublicKey)}
}

func (tf *testFacilitator) settle(t *testing.T, b []byte) (int, x402.SettleResponse) {
	t.Helper()
	var s x402.SettleResponse
	return postWithURL(t, http.DefaultClient, tf.url+x402.PathSettle, b, &s), s
}

func (tf *testFacilitator) health(t *testing.T) facilitator.NetworkHealth {
	return networkHealth(t, tf.url)
}

// networkHealth reads the health of the one network of the facilitator at
// url, as checked after this call began (health answers from a snapshot
// refreshed in the background, so it may take a request or two).
func networkHealth(t *testing.T, url string) facilitator.NetworkHealth {
	t.Helper()
	since := time.Now().UnixMilli()
	deadline := time.Now().Add(10 * time.Second)
	for {
		resp, err := http.Get(url + x402.PathHealth)
		if err != nil {
			t.Fatal(err)
		}
		var h facilitator.HealthResponse
		err = json.NewDecoder(resp.Body).Decode(&h)
		resp.Body.Close()
		if err != nil || len(h.Networks) != 1 {
			t.Fatalf("health: %v %+v", err, h)
		}
		if h.Networks[0].CheckedAt >= since || time.Now().After(deadline) {
			return h.Networks[0]
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// waitBroadcast waits until addr's pending nonce passes n.
func waitBroadcast(t *testing.T, addr common.Address, n uint64) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		_, pending, err := chain.NonceAt(context.Background(), addr)
		if err != nil {
			t.Fatal(err)
		}
		if pending > n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the settlement was not broadcast")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// settleAsync starts a settle and returns a channel with its answer.
func settleAsync(t *testing.T, tf *testFacilitator, b []byte) chan x402.SettleResponse {
	ch := make(chan x402.SettleResponse, 1)
	go func() {
		status, s := tf.settle(t, b)
		if status != 200 {
			t.Errorf("settle = %d %+v", status, s)
		}
		ch <- s
	}()
	return ch
}

func awaitSettled(t *testing.T, ch chan x402.SettleResponse) x402.SettleResponse {
	t.Helper()
	select {
	case s := <-ch:
		if !s.Settled() {
			t.Fatalf("settle = %+v, want payment.settled", s)
		}
		return s
	case <-time.After(60 * time.Second):
		t.Fatal("settle did not answer within 60 s")
	}
	return x402.SettleResponse{}
}

// TestRPCOutage takes the node away before a settle (503, nothing moves)
// and during one (it still completes once the node is back).
func TestRPCOutage(t *testing.T) {
	proxy := newProxy(t)
	tf := newTestFacilitator(t, nil, func(c *facilitator.Config) {
		c.Networks[0].RPCURLs = []string{proxy.URL()}
	})
	seller := newSeller(t)
	req := requirements(seller, "1234")
	b := newBuyer(t, chain, 10000)

	proxy.Down()
	h1, _ := pay(t, b, req, exact.PaymentOptions{})
	status, s := tf.settle(t, body(h1, req))
	if status != 503 || s.Event != x402.EventFailed || !strings.Contains(s.Error, "cannot reach the chain of network cronos-testnet; nothing was broadcast") {
		t.Fatalf("settle with the node down = %d %+v", status, s)
	}
	var v x402.VerifyResponse
	if status := postWithURL(t, http.DefaultClient, tf.url+x402.PathVerify, body(h1, req), &v); status != 503 || v.IsValid {
		t.Fatalf("verify with the node down = %d %+v", status, v)
	}
	if hl := tf.health(t); hl.RPCReachable || hl.CanSettle {
		t.Fatalf("health with the node down = %+v", hl)
	}
	if got := balance(t, seller); got.Sign() != 0 {
		t.Fatalf("seller balance %s after a failed settle", got)
	}

	proxy.Up()
	chain.PauseMining()
	_, before, _ := chain.NonceAt(context.Background(), tf.signer)
	ch := settleAsync(t, tf, body(h1, req))
	waitBroadcast(t, tf.signer, before)
	proxy.Down()
	chain.ResumeMining()
	time.Sleep(1500 * time.Millisecond) // blocks go by while the node is unreachable
	proxy.Up()
	awaitSettled(t, ch)
	if got := balance(t, seller); got.Cmp(big.NewInt(1234)) != 0 {
		t.Fatalf("seller balance %s, want 1234", got)
	}
}

// TestDroppedTransaction drops a broadcast settlement from the pool: the
// engine sends it again with the same nonce and a higher fee.
func TestDroppedTransaction(t *testing.T) {
	tf := newTestFacilitator(t, nil, nil)
	seller := newSeller(t)
	req := requirements(seller, "500")
	h, _ := pay(t, newBuyer(t, chain, 500), req, exact.PaymentOptions{})

	chain.PauseMining()
	latestBefore, pendingBefore, _ := chain.NonceAt(context.Background(), tf.signer)
	ch := settleAsync(t, tf, body(h, req))
	waitBroadcast(t, tf.signer, pendingBefore)
	if n := chain.DropPending(); n != 1 {
		chain.ResumeMining()
		t.Fatalf("dropped %d transactions, want 1", n)
	}
	chain.ResumeMining()
	s := awaitSettled(t, ch)
	latest, pending, _ := chain.NonceAt(context.Background(), tf.signer)
	if latest != latestBefore+1 || pending != latest {
		t.Fatalf("signer nonce went from %d to %d (pending %d), want one transaction", latestBefore, latest, pending)
	}
	tx, _, err := chain.Client().TransactionByHash(context.Background(), common.HexToHash(s.TxHash))
	if err != nil || tx.Nonce() != latestBefore {
		t.Fatalf("settled transaction %s: %v, nonce %d, want %d", s.TxHash, err, tx.Nonce(), latestBefore)
	}
	if got := balance(t, seller); got.Cmp(big.NewInt(500)) != 0 {
		t.Fatalf("seller balance %s, want 500", got)
	}
}

// TestSignerWithoutGas: a signer with no gas money gives a clear 503 and
// moves nothing; once funded, settling works with no restart.
func TestSignerWithoutGas(t *testing.T) {
	key, _ := crypto.GenerateKey()
	tf := newTestFacilitator(t, key, nil)
	seller := newSeller(t)
	req := requirements(seller, "700")
	h, _ := pay(t, newBuyer(t, chain, 700), req, exact.PaymentOptions{})

	status, s := tf.settle(t, body(h, req))
	want := "the facilitator's signer " + tf.signer.Hex() + " has too little gas money on network cronos-testnet; nothing was sent, try again after the operator funds it"
	if status != 503 || s.Event != x402.EventFailed || s.Error != want {
		t.Fatalf("settle without gas = %d %+v, want 503 %q", status, s, want)
	}
	hl := tf.health(t)
	if hl.CanSettle || len(hl.Signers) != 1 || !hl.Signers[0].Low || hl.Signers[0].GasBalance != "0" {
		t.Fatalf("health without gas = %+v", hl)
	}
	if got := balance(t, seller); got.Sign() != 0 {
		t.Fatalf("seller balance %s", got)
	}

	// 2 coins cover a settlement's gas limit x fee cap many times over.
	fundGas(t, chain, tf.signer, new(big.Int).Mul(big.NewInt(1e18), big.NewInt(2)))
	status, s = tf.settle(t, body(h, req))
	if status != 200 || !s.Settled() {
		t.Fatalf("settle after funding = %d %+v", status, s)
	}
	if hl := tf.health(t); !hl.CanSettle || !hl.RPCReachable || hl.PendingSettlements != 0 {
		t.Fatalf("health after funding = %+v", hl)
	}
}

// TestSettlePending: a settle that outlives its timeout answers
// "Settlement pending" with the txHash; the settlements endpoint reports
// the outcome once it is known.
func TestSettlePending(t *testing.T) {
	tf := newTestFacilitator(t, nil, func(c *facilitator.Config) {
		c.SettleTimeout = 300 * time.Millisecond
		c.JournalPath = t.TempDir() + "/journal.db"
	})
	seller := newSeller(t)
	req := requirements(seller, "900")
	h, p := pay(t, newBuyer(t, chain, 900), req, exact.PaymentOptions{})
	from, nonce := p.Authorization.From.Hex(), hexutil.Encode(p.Authorization.Nonce[:])

	chain.PauseMining()
	status, s := tf.settle(t, body(h, req))
	chain.ResumeMining()
	if status != 200 || s.Event != x402.EventFailed || s.Error != "Settlement pending" || len(s.TxHash) != 66 {
		t.Fatalf("settle past its timeout = %d %+v", status, s)
	}
	// A second settle of the same authorization while it is pending.
	if status, s2 := tf.settle(t, body(h, req)); status != 200 || s2.Error != x402.ErrTextAlreadyUsed {
		t.Fatalf("settle of a pending authorization = %d %+v", status, s2)
	}
	getPath := func(path string) (int, httpapi.SettlementStatus) {
		resp, err := http.Get(tf.url + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var st httpapi.SettlementStatus
		_ = json.NewDecoder(resp.Body).Decode(&st)
		return resp.StatusCode, st
	}
	get := func(hash string) (int, httpapi.SettlementStatus) {
		return getPath(x402.PathSettlements + hash)
	}
	lookup := func(q string) (int, httpapi.SettlementStatus) {
		return getPath(x402.PathSettlementLookup + q)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		code, st := get(s.TxHash)
		if code != 200 {
			t.Fatalf("GET settlement = %d", code)
		}
		if st.Status == store.StatusSettled {
			if st.SettleResponse == nil || st.Event != x402.EventSettled || st.Value != "900" || st.BlockNumber == nil || !strings.EqualFold(st.TxHash, s.TxHash) {
				t.Fatalf("settled record %+v", st.SettleResponse)
			}
			break
		}
		if st.Status != store.StatusPending || st.Error != "Settlement pending" {
			t.Fatalf("pending record %+v", st)
		}
		if time.Now().After(deadline) {
			t.Fatal("the settlement did not complete within 30 s")
		}
		time.Sleep(100 * time.Millisecond)
	}
	// The same record by its authorization, over HTTP and in the library,
	// with the record's own time, the same at every query.
	_, byHash := get(s.TxHash)
	time.Sleep(1100 * time.Millisecond)
	for _, q := range []string{
		"?network=cronos-testnet&from=" + from + "&nonce=" + nonce,
		"?network=CRONOS-TESTNET&from=" + strings.ToLower(from) + "&nonce=0x" + strings.ToUpper(nonce[2:]),
	} {
		code, st := lookup(q)
		if code != 200 || st.Status != store.StatusSettled || st.SettleResponse == nil ||
			!strings.EqualFold(st.TxHash, s.TxHash) || st.Value != "900" || st.Timestamp != byHash.Timestamp {
			t.Fatalf("GET settlement by authorization %s = %d %+v (by hash %+v)", q, code, st, byHash.SettleResponse)
		}
	}
	res, err := tf.f.SettlementByAuthorization("cronos-testnet", from, nonce)
	if err != nil || !res.Settled() || res.Timestamp != byHash.Timestamp {
		t.Fatalf("SettlementByAuthorization = %+v, %v", res, err)
	}
	if _, err := tf.f.SettlementByAuthorization("cronos-testnet", from, "0x"+strings.Repeat("00", 32)); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("SettlementByAuthorization of an unknown nonce: %v, want ErrSettlementNotFound", err)
	}
	for q, want := range map[string]int{
		"?network=cronos-testnet&from=" + from + "&nonce=0x" + strings.Repeat("00", 32): 404,
		"?network=cronos-testnet&from=" + from + "&nonce=0x12":                          400,
		"?network=cronos-testnet&from=0x12&nonce=" + nonce:                              400,
		"?network=nowhere&from=" + from + "&nonce=" + nonce:                             400,
		"?network=cronos-testnet&from=" + from:                                          400,
	} {
		if code, _ := lookup(q); code != want {
			t.Fatalf("GET settlements%s = %d, want %d", q, code, want)
		}
	}
	if code, _ := get("0x" + strings.Repeat("ab", 32)); code != 404 {
		t.Fatalf("GET unknown settlement = %d, want 404", code)
	}
	if code, _ := get("0x1234"); code != 400 {
		t.Fatalf("GET bad hash = %d, want 400", code)
	}
	if got := balance(t, seller); got.Cmp(big.NewInt(900)) != 0 {
		t.Fatalf("seller balance %s, want 900", got)
	}
}

// TestFailoverAndSigners: a dead RPC URL first in the list is skipped, and
// settlements spread over two signer keys.
func TestFailoverAndSigners(t *testing.T) {
	dead, err := rpcproxy.New(chain.RPCURL())
	if err != nil {
		t.Fatal(err)
	}
	defer dead.Close()
	dead.Down()
	k1, k2 := newSignerKey(t, chain), newSignerKey(t, chain)
	tf := newTestFacilitator(t, k1, func(c *facilitator.Config) {
		c.Networks[0].RPCURLs = []string{dead.URL(), chain.RPCURL()}
		c.Networks[0].SignerKeys = []*ecdsa.PrivateKey{k1, k2}
	})
	seller := newSeller(t)
	req := requirements(seller, "100")
	b := newBuyer(t, chain, 1000)
	for range 4 {
		h, _ := pay(t, b, req, exact.PaymentOptions{})
		if status, s := tf.settle(t, body(h, req)); status != 200 || !s.Settled() {
			t.Fatalf("settle = %d %+v", status, s)
		}
	}
	for _, k := range []*ecdsa.PrivateKey{k1, k2} {
		latest, _, _ := chain.NonceAt(context.Background(), crypto.PubkeyToAddress(k.PublicKey))
		if latest != 2 {
			t.Fatalf("signer %s sent %d transactions, want 2", crypto.PubkeyToAddress(k.PublicKey).Hex(), latest)
		}
	}
	if hl := tf.health(t); !hl.CanSettle || len(hl.Signers) != 2 {
		t.Fatalf("health = %+v", hl)
	}
}

// TestStartChecks: a node on another chain, or no reachable node, stops
// the facilitator from starting with a clear error.
func TestStartChecks(t *testing.T) {
	wrong := testnetConfig()
	wrong.ChainID = 25
	_, err := facilitator.New(context.Background(), facilitator.Config{Networks: []network.Config{wrong}})
	want := "network cronos-testnet: RPC " + chain.RPCURL() + " reports chain ID 338, but the network is configured with chain ID 25; point the network at the right node or fix its chain ID"
	if err == nil || err.Error() != want {
		t.Fatalf("New with the wrong chain = %v, want %q", err, want)
	}
	dead, _ := rpcproxy.New(chain.RPCURL())
	dead.Down()
	defer dead.Close()
	// No reachable node: fatal only when something must be read from the
	// chain first (here the EIP-712 domain).
	gone := testnetConfig()
	gone.RPCURLs = []string{dead.URL()}
	gone.EIP712Name = ""
	_, err = facilitator.New(context.Background(), facilitator.Config{Networks: []network.Config{gone}})
	if err == nil || !strings.HasPrefix(err.Error(), "network cronos-testnet: no RPC endpoint answered eth_chainId") ||
		!strings.Contains(err.Error(), "to start while the chain is down, set the token's eip712_name, eip712_version and decimals") {
		t.Fatalf("New with no reachable node and no domain = %v", err)
	}
	// Degraded start: everything configured, the facilitator starts and
	// says why it cannot settle.
	gone.EIP712Name = testnetConfig().EIP712Name
	f, err := facilitator.New(context.Background(), facilitator.Config{Networks: []network.Config{gone}})
	if err != nil {
		t.Fatalf("New with the chain down and the domain configured: %v", err)
	}
	api := httptest.NewServer(httpapi.New(f, httpapi.Config{NoRateLimits: true}))
	if hl := networkHealth(t, api.URL); hl.CanSettle || hl.RPCReachable || hl.RPCError == "" {
		t.Errorf("health with the chain down: %+v", hl)
	}
	// (Caddy's TestDegradedStart brings the chain back and settles.)
	api.Close()
	f.Close()
	// A configured EIP-712 domain the token does not have is refused.
	mismatch := testnetConfig()
	mismatch.EIP712Version = "2"
	_, err = facilitator.New(context.Background(), facilitator.Config{Networks: []network.Config{mismatch}})
	if err == nil || !strings.Contains(err.Error(), `network cronos-testnet: the EIP-712 domain (name "Bridged USDC (Stargate)", version "2", chain ID 338`) ||
		!strings.Contains(err.Error(), "does not match the token's DOMAIN_SEPARATOR()") {
		t.Fatalf("New with a wrong EIP-712 version = %v", err)
	}
	// The EIP-712 domain is read from the token when not configured.
	custom := testnetConfig()
	custom.Name, custom.EIP712Name, custom.EIP712Version = "my-chain", "", ""
	f, err = facilitator.New(context.Background(), facilitator.Config{Networks: []network.Config{custom}})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	info, ok := f.NetworkInfo("MY-CHAIN")
	if !ok || info.Domain.Name != "Bridged USDC (Stargate)" || info.Domain.Version != "1" || info.ChainID.Int64() != 338 {
		t.Fatalf("network info %+v", info)
	}
}

// BenchmarkConfirmLatency measures how long after the block that holds it
// a settle answers: a block is sealed by hand once the transaction is in
// the pool, and the time to the answer is reported.
func BenchmarkConfirmLatency(b *testing.B) {
	startSharedChain(b)
	key := newSignerKey(b, chain)
	nc := testnetConfig()
	nc.SignerKeys = []*ecdsa.PrivateKey{key}
	f, err := facilitator.New(context.Background(), facilitator.Config{Networks: []network.Config{nc}})
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	signer := crypto.PubkeyToAddress(key.PublicKey)
	buyerAcct := newBuyer(b, chain, 1_000_000)
	chain.PauseMining()
	defer chain.ResumeMining()
	var total time.Duration
	n := 0
	for b.Loop() {
		req := requirements(newSeller(b), "1")
		h, _, _ := exact.CreatePayment(buyerAcct.Key, req, exact.PaymentOptions{ChainID: chain.ChainID(), ValidFor: time.Hour})
		_, pending, _ := chain.NonceAt(context.Background(), signer)
		done := make(chan *x402.SettleResponse, 1)
		go func() {
			s, err := f.Settle(context.Background(), &x402.Request{X402Version: 1, PaymentHeader: h, PaymentRequirements: req})
			if err != nil {
				b.Error(err)
			}
			done <- s
		}()
		for {
			_, p, _ := chain.NonceAt(context.Background(), signer)
			if p > pending {
				break
			}
			time.Sleep(time.Millisecond)
		}
		chain.Mine()
		t0 := time.Now()
		s := <-done
		total += time.Since(t0)
		n++
		if s == nil || !s.Settled() {
			b.Fatalf("settle = %+v", s)
		}
	}
	b.ReportMetric(float64(total.Microseconds())/float64(n)/1000, "ms-after-block")
}

// TestLaggingEndpoint puts a node stuck at an old head (a second dev chain
// with the same chain ID, not mining) first in the RPC list: it is skipped
// as lagging, and settlements go through the node that follows the chain.
func TestLaggingEndpoint(t *testing.T) {
	stuck, err := devnet.Start(devnet.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer stuck.Close()
	stuck.PauseMining()
	for chainHead(t) < 10 {
		chain.Mine()
	}
	tf := newTestFacilitator(t, nil, func(c *facilitator.Config) {
		c.Networks[0].RPCURLs = []string{stuck.RPCURL(), chain.RPCURL()}
	})
	hl := tf.health(t)
	if len(hl.Endpoints) != 2 || hl.Endpoints[0].InUse || !strings.HasPrefix(hl.Endpoints[0].Problem, "lagging: head 1 is ") || !hl.Endpoints[1].InUse {
		t.Fatalf("endpoints = %+v, want the stuck node skipped as lagging", hl.Endpoints)
	}
	seller := newSeller(t)
	req := requirements(seller, "300")
	h, _ := pay(t, newBuyer(t, chain, 300), req, exact.PaymentOptions{})
	if status, s := tf.settle(t, body(h, req)); status != 200 || !s.Settled() {
		t.Fatalf("settle = %d %+v", status, s)
	}
	if got := balance(t, seller); got.Cmp(big.NewInt(300)) != 0 {
		t.Fatalf("seller balance %s, want 300", got)
	}
}

func chainHead(t *testing.T) uint64 {
	n, err := chain.Client().BlockNumber(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return n
}
