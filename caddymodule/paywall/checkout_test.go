package paywall

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/ethereum/go-ethereum/accounts/abi/bind"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/caddy-x402/caddy-x402/caddymodule/app"
	"github.com/caddy-x402/caddy-x402/caddymodule/internal/httpx"
	"github.com/caddy-x402/caddy-x402/caddymodule/internal/testutil"
	"github.com/caddy-x402/caddy-x402/facilitator"
	"github.com/caddy-x402/caddy-x402/facilitator/devnet"
	"github.com/caddy-x402/caddy-x402/facilitator/evm"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// countingUpstream counts its requests and answers with the transaction
// hash it was given.
func countingUpstream(t *testing.T, hold time.Duration) (*httptest.Server, *atomic.Int32) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		if hold > 0 {
			time.Sleep(hold)
		}
		fmt.Fprintf(w, "resource tx=%s", r.Header.Get(httpx.HeaderTxHash))
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

// paymentResponseOf decodes X-PAYMENT-RESPONSE.
func paymentResponseOf(t *testing.T, resp *http.Response) paymentResponse {
	t.Helper()
	var pr paymentResponse
	raw, err := x402.DecodeBase64(resp.Header.Get(httpx.HeaderPaymentResponse))
	if err != nil || json.Unmarshal(raw, &pr) != nil {
		t.Fatalf("X-PAYMENT-RESPONSE %q is not Base64 JSON", resp.Header.Get(httpx.HeaderPaymentResponse))
	}
	return pr
}

// TestPaidMeansDelivered stalls the chain so that settlements outlast
// settle_timeout, and checks that every buyer who paid gets the resource
// exactly once by retrying with the same X-PAYMENT: those answered
// "Settlement pending" and one who hung up before the answer. Any other
// reuse is refused: at another route, and after delivery.
func TestPaidMeansDelivered(t *testing.T) {
	const buyers = 8
	up, ran := countingUpstream(t, 0)
	tester := testutil.NewTester(t, testutil.GlobalBlock("settle_timeout 1s")+fmt.Sprintf(`
:%d {
	x402 /a {
		pay_to %s
		amount 13
	}
	x402 /b {
		pay_to %s
		amount 13
	}
	reverse_proxy %s
}
`, testutil.SitePort, testutil.SellerAddr, testutil.SellerAddr, up.Listener.Addr()))

	buyer := testutil.BuyerKey(t, devnet.Buyer5PrivateKey)
	buyerAddr := crypto.PubkeyToAddress(buyer.PublicKey).Hex()
	reqs := testutil.Require402(t, tester, testutil.SiteURL+"/a").PaymentRequirements
	headers := make([]string, buyers+1)
	for i := range headers {
		headers[i] = testutil.Pay(t, buyer, reqs)
	}
	buyerBefore, sellerBefore := testutil.Balance(t, buyerAddr), testutil.Balance(t, testutil.SellerAddr)

	chain := testutil.ActiveChain(t)
	chain.PauseMining()
	defer chain.ResumeMining()

	// While the chain stalls: every buyer is answered pending, with the
	// transaction and the advice to retry with the same header.
	txs := make([]string, buyers)
	var wg sync.WaitGroup
	for i := 0; i < buyers; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			resp, b := testutil.Get(t, tester, testutil.SiteURL+"/a", map[string]string{"X-Payment": headers[i]})
			var out struct {
				Error  string `json:"error"`
				TxHash string `json:"txHash"`
				Retry  string `json:"retry"`
			}
			_ = json.Unmarshal(b, &out)
			if resp.StatusCode != http.StatusPaymentRequired || out.Error != x402.ErrTextPending ||
				!strings.Contains(out.Retry, "same X-PAYMENT header") || resp.Header.Get("Retry-After") == "" {
				t.Errorf("buyer %d during the stall: status %d, Retry-After %q, body %s", i, resp.StatusCode, resp.Header.Get("Retry-After"), b)
				return
			}
			pr := paymentResponseOf(t, resp)
			if pr.Success || len(pr.TxHash) != 66 || pr.TxHash != out.TxHash {
				t.Errorf("buyer %d: X-PAYMENT-RESPONSE %+v, body txHash %q", i, pr, out.TxHash)
			}
			txs[i] = out.TxHash
		}(i)
	}
	// One more buyer hangs up before any answer.
	hungUp := headers[buyers]
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, testutil.SiteURL+"/a", nil)
	req.Header.Set("X-Payment", hungUp)
	if resp, err := tester.Client.Do(req); err == nil {
		resp.Body.Close()
		t.Errorf("the hung-up request got an answer: %d", resp.StatusCode)
	}
	cancel()
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}

	// Reuse at another route is refused, pending or not.
	resp, b := testutil.Get(t, tester, testutil.SiteURL+"/b", map[string]string{"X-Payment": headers[0]})
	if resp.StatusCode != http.StatusPaymentRequired || !strings.Contains(string(b), `"error":"`+x402.ErrTextAlreadyUsed+`"`) {
		t.Errorf("pending payment at another route: %d %s", resp.StatusCode, b)
	}
	if ran.Load() != 0 {
		t.Fatalf("the upstream ran %d times while nothing was settled", ran.Load())
	}

	// The stall shows in the signer's nonce lag: transactions the node
	// holds but does not mine (health, and so /metrics, refresh within a second).
	sk, _ := evm.ParseKey(devnet.SignerPrivateKey)
	lagLabels := map[string]string{"network": devnet.Network, "signer": strings.ToLower(crypto.PubkeyToAddress(sk.PublicKey).Hex())}
	waitNonceLag(t, lagLabels, func(v float64) bool { return v >= buyers }, "at least the stalled payments")

	chain.ResumeMining()
	// Every retry with the same header gets the resource once the
	// transaction is in a block.
	for i, h := range headers {
		deadline := time.Now().Add(20 * time.Second)
		for {
			resp, b := testutil.Get(t, tester, testutil.SiteURL+"/a", map[string]string{"X-Payment": h})
			if resp.StatusCode == http.StatusOK {
				pr := paymentResponseOf(t, resp)
				if !pr.Success || (i < buyers && pr.TxHash != txs[i]) || string(b) != "resource tx="+pr.TxHash {
					t.Errorf("buyer %d: retry answered %s with X-PAYMENT-RESPONSE %+v (pending tx %s)", i, b, pr, txs[min(i, buyers-1)])
				}
				break
			}
			if resp.StatusCode != http.StatusPaymentRequired || !strings.Contains(string(b), x402.ErrTextPending) || time.Now().After(deadline) {
				t.Fatalf("buyer %d: retry answered %d %s", i, resp.StatusCode, b)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	if got := ran.Load(); got != buyers+1 {
		t.Errorf("the upstream ran %d times for %d payments", got, buyers+1)
	}

	// Delivered: the same header again, here or elsewhere, is refused.
	for _, path := range []string{"/a", "/b"} {
		resp, b := testutil.Get(t, tester, testutil.SiteURL+path, map[string]string{"X-Payment": headers[1]})
		if resp.StatusCode != http.StatusPaymentRequired || !strings.Contains(string(b), `"error":"`+x402.ErrTextAlreadyUsed+`"`) {
			t.Errorf("delivered payment again at %s: %d %s", path, resp.StatusCode, b)
		}
	}
	if got := ran.Load(); got != buyers+1 {
		t.Errorf("the upstream ran %d times for %d payments", got, buyers+1)
	}
	testutil.AssertDelta(t, "buyer", buyerBefore, testutil.Balance(t, buyerAddr), -13*(buyers+1))
	testutil.AssertDelta(t, "seller", sellerBefore, testutil.Balance(t, testutil.SellerAddr), 13*(buyers+1))
}

// TestSettleAfterReservesFirst sends many copies of one X-PAYMENT at once
// to a settle-after route: the upstream runs once, one buyer gets the
// resource, every other copy is answered at once: 409 with Retry-After
// while the first is served, 402 Authorization already used after.
func TestSettleAfterReservesFirst(t *testing.T) {
	const copies = 40
	up, ran := countingUpstream(t, 300*time.Millisecond)
	tester := testutil.NewTester(t, testutil.GlobalBlock("")+fmt.Sprintf(`
:%d {
	x402 {
		pay_to %s
		amount 17
		settle after
	}
	reverse_proxy %s
}
`, testutil.SitePort, testutil.SellerAddr, up.Listener.Addr()))
	buyer := testutil.BuyerKey(t, devnet.Buyer5PrivateKey)
	buyerAddr := crypto.PubkeyToAddress(buyer.PublicKey).Hex()
	header := testutil.Pay(t, buyer, testutil.Require402(t, tester, testutil.SiteURL+"/x").PaymentRequirements)
	before := testutil.Balance(t, buyerAddr)

	var ok, refused atomic.Int32
	var wg sync.WaitGroup
	for i := 0; i < copies; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, b := testutil.Get(t, tester, testutil.SiteURL+"/x", map[string]string{"X-Payment": header})
			switch {
			case resp.StatusCode == http.StatusOK:
				ok.Add(1)
			case resp.StatusCode == http.StatusConflict && strings.Contains(string(b), `"error":"`+textInFlight+`"`) && resp.Header.Get("Retry-After") == "2",
				resp.StatusCode == http.StatusPaymentRequired && strings.Contains(string(b), `"error":"`+x402.ErrTextAlreadyUsed+`"`):
				refused.Add(1)
			default:
				t.Errorf("copy answered %d %s", resp.StatusCode, b)
			}
		}()
	}
	wg.Wait()
	if ok.Load() != 1 || refused.Load() != copies-1 || ran.Load() != 1 {
		t.Errorf("%d copies: %d got the resource, %d refused, upstream ran %d times; want 1, %d, 1",
			copies, ok.Load(), refused.Load(), ran.Load(), copies-1)
	}
	testutil.AssertDelta(t, "buyer", before, testutil.Balance(t, buyerAddr), -17)
}

// TestSettleAfterPayerReservations: a payer who can afford one payment
// sends 30 distinct valid authorizations at once to a settle-after route.
// The embedded facilitator reserves each at verify against the payer's
// balance: one is served, the upstream runs once, at most one transaction
// is broadcast, and the 29 others get 402 with the token's reason before
// the upstream runs (before: the upstream ran 30 times for one payment).
func TestSettleAfterPayerReservations(t *testing.T) {
	const n, price = 30, 17
	up, ran := countingUpstream(t, 0)
	tester := testutil.NewTester(t, testutil.GlobalBlock("")+fmt.Sprintf(`
:%d {
	x402 {
		pay_to %s
		amount %d
		settle after
	}
	reverse_proxy %s
}
`, testutil.SitePort, testutil.SellerAddr, price, up.Listener.Addr()))
	chain := testutil.ActiveChain(t)
	ctx := context.Background()
	buyer, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	buyerAddr := crypto.PubkeyToAddress(buyer.PublicKey)
	if err := chain.Mint(ctx, buyerAddr, big.NewInt(price)); err != nil {
		t.Fatal(err)
	}
	reqs := testutil.Require402(t, tester, testutil.SiteURL+"/x").PaymentRequirements
	headers := make([]string, n)
	for i := range headers {
		headers[i] = testutil.Pay(t, buyer, reqs)
	}
	sellerBefore := testutil.Balance(t, testutil.SellerAddr)
	testutil.Balance(t, testutil.SellerAddr) // dials testutil.ChainClient
	sent0, err := testutil.ChainClient.NonceAt(ctx, chain.Signer().Address, nil)
	if err != nil {
		t.Fatal(err)
	}

	var ok, refused atomic.Int32
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			resp, b := testutil.Get(t, tester, testutil.SiteURL+"/x", map[string]string{"X-Payment": headers[i]})
			switch {
			case resp.StatusCode == http.StatusOK:
				ok.Add(1)
			case resp.StatusCode == http.StatusPaymentRequired && strings.Contains(string(b), `"invalidReason":"`+x402.ErrTextInsufficientFunds+`"`):
				refused.Add(1)
			default:
				t.Errorf("payment %d answered %d %s", i, resp.StatusCode, b)
			}
		})
	}
	wg.Wait()
	if ok.Load() != 1 || refused.Load() != n-1 || ran.Load() != 1 {
		t.Errorf("%d authorizations from a payer who can afford one: %d served, %d refused, upstream ran %d times; want 1, %d, 1",
			n, ok.Load(), refused.Load(), ran.Load(), n-1)
	}
	sent, err := testutil.ChainClient.NonceAt(ctx, chain.Signer().Address, nil)
	if err != nil || sent-sent0 != 1 {
		t.Errorf("the facilitator broadcast %d transactions (%v), want 1", sent-sent0, err)
	}
	testutil.AssertDelta(t, "seller", sellerBefore, testutil.Balance(t, testutil.SellerAddr), price)
	if got := testutil.Balance(t, buyerAddr.Hex()); got.Sign() != 0 {
		t.Errorf("buyer balance %s, want 0", got)
	}
}

// TestSettleAfterUpgrade checks that a WebSocket upgrade through
// reverse_proxy on a settle-after route is taken over only once the
// payment has settled: with a payment that fails to settle, the buyer gets
// the 402 and no byte reaches the backend's tunnel.
func TestSettleAfterUpgrade(t *testing.T) {
	var tunnelled atomic.Int32
	spoil := make(chan bool, 1)
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if <-spoil {
			// Spend the authorization on chain first, from another
			// account, so that the paywall's settle fails when the
			// backend answers 101. (Through the paywall's facilitator it
			// cannot be: the paywall holds the authorization.)
			spendOnChain(t, r.Header.Get("X-Payment"))
		}
		conn, brw, err := http.NewResponseController(w).Hijack()
		if err != nil {
			t.Errorf("backend hijack: %v", err)
			return
		}
		defer conn.Close()
		fmt.Fprint(brw, "HTTP/1.1 101 Switching Protocols\r\nUpgrade: echo\r\nConnection: Upgrade\r\n\r\n")
		brw.Flush()
		buf := make([]byte, 64)
		for {
			n, err := brw.Read(buf)
			if n > 0 {
				tunnelled.Add(int32(n))
				conn.Write(buf[:n])
			}
			if err != nil {
				return
			}
		}
	}))
	t.Cleanup(backend.Close)
	tester := testutil.NewTester(t, testutil.GlobalBlock("")+fmt.Sprintf(`
:%d {
	x402 {
		pay_to %s
		amount 19
		settle after
		# the backend spends the payment itself to make the settle fail
		forward_payment_header
	}
	reverse_proxy %s
}
`, testutil.SitePort, testutil.SellerAddr, backend.Listener.Addr()))
	reqs := testutil.Require402(t, tester, testutil.SiteURL+"/ws").PaymentRequirements
	buyer := testutil.BuyerKey(t, devnet.Buyer5PrivateKey)

	// upgrade asks for an upgrade and, without waiting for the answer,
	// sends the first bytes meant for the tunnel, as a client that
	// expects the upgrade to succeed may.
	upgrade := func(header string) (string, string) {
		conn, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", testutil.SitePort))
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		conn.SetDeadline(time.Now().Add(10 * time.Second))
		fmt.Fprintf(conn, "GET /ws HTTP/1.1\r\nHost: localhost:%d\r\nConnection: Upgrade\r\nUpgrade: echo\r\nX-Payment: %s\r\n\r\nping", testutil.SitePort, header)
		br := bufio.NewReader(conn)
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatalf("reading the answer to the upgrade: %v", err)
		}
		if resp.StatusCode != http.StatusSwitchingProtocols {
			return resp.Status, ""
		}
		conn.SetDeadline(time.Now().Add(2 * time.Second))
		echo := make([]byte, 4)
		n, _ := io.ReadFull(br, echo)
		return resp.Status, string(echo[:n])
	}

	// Settled: the tunnel opens.
	spoil <- false
	if status, echo := upgrade(testutil.Pay(t, buyer, reqs)); !strings.HasPrefix(status, "101") || echo != "ping" {
		t.Errorf("paid upgrade: status %q, echo %q; want 101 and ping", status, echo)
	}
	before := tunnelled.Load()
	// Settle fails: 402, and the tunnel never opens.
	spoil <- true
	if status, echo := upgrade(testutil.Pay(t, buyer, reqs)); !strings.HasPrefix(status, "402") || echo != "" {
		t.Errorf("upgrade whose settle failed: status %q, echo %q; want 402 and nothing", status, echo)
	}
	time.Sleep(300 * time.Millisecond)
	if n := tunnelled.Load() - before; n != 0 {
		t.Errorf("%d bytes reached the backend through an unpaid tunnel", n)
	}
}

// spendOnChain sends the payment's transferWithAuthorization itself, from
// the devnet's minter account, and waits until it is mined.
func spendOnChain(t *testing.T, header string) {
	t.Helper()
	p, err := x402.DecodePaymentHeader(header)
	if err == nil {
		err = p.ParsePayload()
	}
	if err != nil {
		t.Errorf("decoding the payment to spend it: %v", err)
		return
	}
	testutil.Balance(t, testutil.SellerAddr) // dials testutil.ChainClient
	key, err := evm.ParseKey(devnet.MinterPrivateKey)
	if err != nil {
		t.Fatal(err)
	}
	opts, err := bind.NewKeyedTransactorWithChainID(key, big.NewInt(devnet.ChainID))
	if err != nil {
		t.Fatal(err)
	}
	a := &p.Authorization
	tx, err := testutil.ChainToken.TransferWithAuthorization(opts, a.From, a.To, a.Value, a.ValidAfter, a.ValidBefore, a.Nonce, p.Signature)
	if err != nil {
		t.Errorf("spending the authorization on chain: %v", err)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if rc, err := bind.WaitMined(ctx, testutil.ChainClient, tx); err != nil || rc.Status != 1 {
		t.Errorf("spending the authorization on chain: %v %+v", err, rc)
	}
}

// TestReloadOneEngine reloads the config, with a changed x402 app, during
// a burst of paid requests: once with other settings (settle_timeout), once
// with other networks (an alias added, so that the new facilitator serves
// other networks). The new facilitator's engine joins the running one (one
// engine per signer key): every payment settles exactly once, the signer's
// nonces have no gap and no repeat, and balances are exact. Requests the
// reload cut are retried with the same header. Two engines on the key (the
// code before) made 27 transactions for 24 payments.
func TestReloadOneEngine(t *testing.T) {
	for _, tc := range []struct{ name, before, after string }{
		{"settings", "settle_timeout 20s", "settle_timeout 25s"},
		{"networks", "settle_timeout 20s", "settle_timeout 20s\n\t\tnetwork cronos-testnet {\n\t\t\talias devchain\n\t\t}"},
	} {
		t.Run(tc.name, func(t *testing.T) { testReloadOneEngine(t, tc.before, tc.after) })
	}
}

// reloadSite returns the Caddyfile of a site that charges amount in front
// of upstream, with extra in the x402 app's global options.
func reloadSite(amount int, upstream string) func(extra string) string {
	return func(extra string) string {
		return testutil.GlobalBlock(extra) + fmt.Sprintf(`
:%d {
	x402 {
		pay_to %s
		amount %d
	}
	reverse_proxy %s
}
`, testutil.SitePort, testutil.SellerAddr, amount, upstream)
	}
}

func testReloadOneEngine(t *testing.T, before, after string) {
	const burst = 24
	up, ran := countingUpstream(t, 0)
	site := reloadSite(23, up.Listener.Addr().String())
	tester := testutil.NewTester(t, site(before))
	first := testutil.ActiveFacilitator(t)
	chain := testutil.ActiveChain(t)
	signer := chain.Signer().Address
	_, nonceBefore, err := chain.NonceAt(context.Background(), signer)
	if err != nil {
		t.Fatal(err)
	}
	buyer := testutil.BuyerKey(t, devnet.Buyer5PrivateKey)
	buyerAddr := crypto.PubkeyToAddress(buyer.PublicKey).Hex()
	reqs := testutil.Require402(t, tester, testutil.SiteURL+"/r").PaymentRequirements
	buyerBefore, sellerBefore := testutil.Balance(t, buyerAddr), testutil.Balance(t, testutil.SellerAddr)

	txs := make([]string, burst)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := 0; i < burst; i++ {
		header := testutil.Pay(t, buyer, reqs)
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			<-start
			time.Sleep(time.Duration(i) * 25 * time.Millisecond) // spread over the reload
			deadline := time.Now().Add(30 * time.Second)
			for time.Now().Before(deadline) {
				req, _ := http.NewRequest(http.MethodGet, testutil.SiteURL+"/r", nil)
				req.Header.Set("X-Payment", header)
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					time.Sleep(100 * time.Millisecond) // cut by the reload: retry
					continue
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode == http.StatusOK {
					txs[i] = paymentResponseOf(t, resp).TxHash
					return
				}
				if resp.StatusCode == http.StatusPaymentRequired && strings.Contains(string(b), x402.ErrTextPending) ||
					resp.StatusCode == http.StatusBadGateway || resp.StatusCode == http.StatusServiceUnavailable {
					time.Sleep(100 * time.Millisecond)
					continue
				}
				t.Errorf("payment %d: %d %s", i, resp.StatusCode, b)
				return
			}
			t.Errorf("payment %d: no resource within 30 s", i)
		}(i)
	}
	close(start)
	time.Sleep(250 * time.Millisecond)
	testutil.LoadConfig(t, site(after))
	wg.Wait()

	if second := testutil.ActiveFacilitator(t); second == first {
		t.Errorf("the reload kept the facilitator; it should start one with the new config that joins the running engine")
	}
	if got := ran.Load(); got != burst {
		t.Errorf("the upstream ran %d times for %d payments", got, burst)
	}
	_, nonceAfter, err := chain.NonceAt(context.Background(), signer)
	if err != nil {
		t.Fatal(err)
	}
	nonces := map[uint64]string{}
	for i, h := range txs {
		if h == "" {
			continue
		}
		tx, _, err := testutil.ChainClient.TransactionByHash(context.Background(), common.HexToHash(h))
		if err != nil {
			t.Fatalf("payment %d: transaction %s: %v", i, h, err)
		}
		if other, dup := nonces[tx.Nonce()]; dup {
			t.Errorf("nonce %d used by %s and %s", tx.Nonce(), other, h)
		}
		nonces[tx.Nonce()] = h
	}
	for n := nonceBefore; n < nonceBefore+burst; n++ {
		if _, ok := nonces[n]; !ok {
			t.Errorf("signer nonce %d has no settlement of the burst", n)
		}
	}
	if nonceAfter != nonceBefore+burst {
		t.Errorf("the signer sent %d transactions for %d payments", nonceAfter-nonceBefore, burst)
	}
	testutil.AssertDelta(t, "buyer", buyerBefore, testutil.Balance(t, buyerAddr), -23*burst)
	testutil.AssertDelta(t, "seller", sellerBefore, testutil.Balance(t, testutil.SellerAddr), 23*burst)
}

// TestReloadWhileStalled reloads the config, with other networks, while
// the chain is not mining and paid requests wait for their blocks. The new
// config's engine takes over the old one's settlements: every waiting
// buyer gets the resource on the request it sent (no "Settlement pending",
// no retry), once, with one transaction per payment and exact balances.
// (With an engine per config, the old one stopped with its config and
// every waiting buyer was answered 402 "Settlement pending".)
func TestReloadWhileStalled(t *testing.T) {
	const buyers = 6
	up, ran := countingUpstream(t, 0)
	site := reloadSite(29, up.Listener.Addr().String())
	tester := testutil.NewTester(t, site("settle_timeout 30s"))
	chain := testutil.ActiveChain(t)
	signer := chain.Signer().Address
	_, nonce0, err := chain.NonceAt(context.Background(), signer)
	if err != nil {
		t.Fatal(err)
	}
	buyer := testutil.BuyerKey(t, devnet.Buyer3PrivateKey)
	buyerAddr := crypto.PubkeyToAddress(buyer.PublicKey).Hex()
	reqs := testutil.Require402(t, tester, testutil.SiteURL+"/s").PaymentRequirements
	buyerBefore, sellerBefore := testutil.Balance(t, buyerAddr), testutil.Balance(t, testutil.SellerAddr)

	chain.PauseMining()
	defer chain.ResumeMining()
	codes := make([]int, buyers)
	var wg sync.WaitGroup
	for i := range buyers {
		header := testutil.Pay(t, buyer, reqs)
		wg.Add(1)
		go func() {
			defer wg.Done()
			req, _ := http.NewRequest(http.MethodGet, testutil.SiteURL+"/s", nil)
			req.Header.Set("X-Payment", header)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Errorf("payment %d: %v", i, err)
				return
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if codes[i] = resp.StatusCode; resp.StatusCode != http.StatusOK {
				t.Errorf("payment %d, waiting for its block across the reload: %d %s", i, resp.StatusCode, b)
			}
		}()
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		if _, pending, err := chain.NonceAt(context.Background(), signer); err == nil && pending >= nonce0+buyers {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the payments were not broadcast within 20 s")
		}
		time.Sleep(20 * time.Millisecond)
	}
	testutil.LoadConfig(t, site("settle_timeout 30s\n\t\tnetwork cronos-testnet {\n\t\t\talias devchain\n\t\t}"))
	time.Sleep(300 * time.Millisecond) // the old config is gone
	chain.ResumeMining()
	wg.Wait()

	if got := ran.Load(); got != buyers {
		t.Errorf("the upstream ran %d times for %d payments", got, buyers)
	}
	latest, pending, err := chain.NonceAt(context.Background(), signer)
	if err != nil || latest != nonce0+buyers || pending != latest {
		t.Errorf("the signer sent %d transactions (%d pending) for %d payments (%v)", latest-nonce0, pending-latest, buyers, err)
	}
	testutil.AssertDelta(t, "buyer", buyerBefore, testutil.Balance(t, buyerAddr), -29*buyers)
	testutil.AssertDelta(t, "seller", sellerBefore, testutil.Balance(t, testutil.SellerAddr), 29*buyers)
}

func caddyActiveApp() (*app.App, error) {
	a, err := caddy.ActiveContext().App("x402")
	if err != nil {
		return nil, err
	}
	return a.(*app.App), nil
}

// activeFacilitatorOf is activeFacilitator for a goroutine with no t.
func activeFacilitatorOf() *facilitator.Facilitator {
	app, err := caddyActiveApp()
	if err != nil {
		return nil
	}
	return app.Facilitator()
}

// TestPaidMeansDeliveredRemote is TestPaidMeansDelivered through a remote
// facilitator: the paywall keeps the txHash the facilitator answered
// pending with, and looks the outcome up at its settlements route.
func TestPaidMeansDeliveredRemote(t *testing.T) {
	const buyers = 3
	up, ran := countingUpstream(t, 0)
	tester := testutil.NewTester(t, testutil.GlobalBlock("settle_timeout 1s")+fmt.Sprintf(`
:%d {
	x402_facilitator {
		rate_limit off
	}
}

:%d {
	x402 {
		pay_to %s
		amount 31
		facilitator http://127.0.0.1:%d
	}
	reverse_proxy %s
}
`, testutil.FacPort, testutil.SitePort, testutil.SellerAddr, testutil.FacPort, up.Listener.Addr()))
	buyer := testutil.BuyerKey(t, devnet.Buyer5PrivateKey)
	buyerAddr := crypto.PubkeyToAddress(buyer.PublicKey).Hex()
	reqs := testutil.Require402(t, tester, testutil.SiteURL+"/remote").PaymentRequirements
	headers := make([]string, buyers)
	for i := range headers {
		headers[i] = testutil.Pay(t, buyer, reqs)
	}
	buyerBefore, sellerBefore := testutil.Balance(t, buyerAddr), testutil.Balance(t, testutil.SellerAddr)

	chain := testutil.ActiveChain(t)
	chain.PauseMining()
	defer chain.ResumeMining()
	txs := make([]string, buyers)
	for i, h := range headers {
		resp, b := testutil.Get(t, tester, testutil.SiteURL+"/remote", map[string]string{"X-Payment": h})
		if resp.StatusCode != http.StatusPaymentRequired || !strings.Contains(string(b), `"error":"`+x402.ErrTextPending+`"`) {
			t.Fatalf("payment %d during the stall: %d %s", i, resp.StatusCode, b)
		}
		txs[i] = paymentResponseOf(t, resp).TxHash
		if len(txs[i]) != 66 {
			t.Fatalf("payment %d: pending answer without the transaction: %s", i, b)
		}
	}
	chain.ResumeMining()
	for i, h := range headers {
		for end := time.Now().Add(20 * time.Second); ; time.Sleep(100 * time.Millisecond) {
			resp, b := testutil.Get(t, tester, testutil.SiteURL+"/remote", map[string]string{"X-Payment": h})
			if resp.StatusCode == http.StatusOK {
				if got := paymentResponseOf(t, resp).TxHash; got != txs[i] || string(b) != "resource tx="+txs[i] {
					t.Errorf("payment %d: delivered with tx %s, body %s; pending tx was %s", i, got, b, txs[i])
				}
				break
			}
			if !strings.Contains(string(b), x402.ErrTextPending) || time.Now().After(end) {
				t.Fatalf("payment %d: retry answered %d %s", i, resp.StatusCode, b)
			}
		}
		if resp, b := testutil.Get(t, tester, testutil.SiteURL+"/remote", map[string]string{"X-Payment": h}); resp.StatusCode != http.StatusPaymentRequired ||
			!strings.Contains(string(b), x402.ErrTextAlreadyUsed) {
			t.Errorf("payment %d after delivery: %d %s", i, resp.StatusCode, b)
		}
	}
	if got := ran.Load(); got != buyers {
		t.Errorf("the upstream ran %d times for %d payments", got, buyers)
	}
	testutil.AssertDelta(t, "buyer", buyerBefore, testutil.Balance(t, buyerAddr), -31*buyers)
	testutil.AssertDelta(t, "seller", sellerBefore, testutil.Balance(t, testutil.SellerAddr), 31*buyers)
}

// TestReloadMovingJournalRefused reloads to a config that keeps the signer
// key but moves the journal to another file. A second engine on the key
// would race the running one for its nonces, so the reload is refused with
// the reason and what to do; the running config stays and its payments
// settle. (Before, the reload went through and two engines ran on the key,
// which was only logged.)
func TestReloadMovingJournalRefused(t *testing.T) {
	dir := t.TempDir()
	site := func(journal string) string {
		return testutil.GlobalBlock("journal "+filepath.Join(dir, journal)) +
			fmt.Sprintf(":%d {\n\tx402 {\n\t\tpay_to %s\n\t\tamount 37\n\t}\n\trespond \"paid\"\n}\n", testutil.SitePort, testutil.SellerAddr)
	}
	// The configs of the other tests run the key on the devnet's journal
	// in memory: this test starts, and the next one goes on, once no such
	// config runs (a config without the x402 app in between).
	noX402 := fmt.Sprintf("{\n\tadmin localhost:%d\n\thttp_port %d\n\thttps_port %d\n\tgrace_period 1s\n}\n:%d {\n\trespond ok\n}\n",
		testutil.AdminPort, testutil.SitePort, testutil.HTTPSPort, testutil.SitePort)
	testutil.NewTester(t, noX402)
	t.Cleanup(func() { testutil.LoadConfig(t, noX402) })
	tester := testutil.NewTester(t, site("a.db"))
	first := testutil.ActiveFacilitator(t)

	status, b := testutil.PostLoad(t, site("b.db"), "text/caddyfile")
	for _, want := range []string{
		"a signer key of this config runs with another settlement journal (signer 0x",
		filepath.Join(dir, "a.db"), filepath.Join(dir, "b.db"),
		"The running config stays; move a journal with a restart of Caddy (stop, then start), not a reload",
	} {
		if status == http.StatusOK || !strings.Contains(strings.ToLower(string(b)), strings.ToLower(want)) {
			t.Fatalf("reload moving the journal: %d %s; want a refusal saying %q", status, b, want)
		}
	}
	if testutil.ActiveFacilitator(t) != first {
		t.Fatal("the refused reload replaced the running facilitator")
	}
	if _, err := os.Stat(filepath.Join(dir, "b.db")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the refused reload created its journal file b.db (%v)", err)
	}

	// The running config still takes payments, on its journal.
	buyer := testutil.BuyerKey(t, devnet.Buyer4PrivateKey)
	buyerAddr := crypto.PubkeyToAddress(buyer.PublicKey).Hex()
	reqs := testutil.Require402(t, tester, testutil.SiteURL+"/j").PaymentRequirements
	buyerBefore, sellerBefore := testutil.Balance(t, buyerAddr), testutil.Balance(t, testutil.SellerAddr)
	presp, pb := testutil.Get(t, tester, testutil.SiteURL+"/j", map[string]string{"X-Payment": testutil.Pay(t, buyer, reqs)})
	if presp.StatusCode != http.StatusOK || string(pb) != "paid" {
		t.Fatalf("paid request after the refused reload: %d %s", presp.StatusCode, pb)
	}
	tx := paymentResponseOf(t, presp).TxHash
	if rec, err := first.Settlement(tx); err != nil || rec.Event != x402.EventSettled {
		t.Errorf("the running facilitator's journal has %s as %+v, %v", tx, rec, err)
	}
	testutil.AssertDelta(t, "buyer", buyerBefore, testutil.Balance(t, buyerAddr), -37)
	testutil.AssertDelta(t, "seller", sellerBefore, testutil.Balance(t, testutil.SellerAddr), 37)
}
