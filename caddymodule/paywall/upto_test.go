package paywall

import (
	"bufio"
	"bytes"
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2/caddytest"
	"github.com/ethereum/go-ethereum/accounts/abi/bind"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/caddy-x402/caddy-x402/caddymodule/internal/testutil"
	"github.com/caddy-x402/caddy-x402/caddymodule/x402cmd"
	"github.com/caddy-x402/caddy-x402/facilitator/devnet"
	"github.com/caddy-x402/caddy-x402/facilitator/exact"
	"github.com/caddy-x402/caddy-x402/facilitator/permit2"
	"github.com/caddy-x402/caddy-x402/facilitator/upto"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// uptoPayTo is the seller of the upto tests, paid by no other test.
const uptoPayTo = "0x0000000000000000000000000000000000b0B025"

// meteredUpstream is a real HTTP upstream that answers as a metered API
// does: /header states the charge in Settlement-Overrides (?o=), /json
// and /sse count tokens (?tokens=) in usage.total_tokens, /plain says
// nothing, /error fails. /sse sends its first event, then waits for
// release before the one that carries the usage.
func meteredUpstream(t *testing.T, release <-chan struct{}) *httptest.Server {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		tokens := q.Get("tokens")
		if tokens == "" {
			tokens = "999"
		}
		switch r.URL.Path {
		case "/header":
			w.Header().Set(HeaderSettlementOverrides, q.Get("o"))
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"answer":"metered by header","usage":{"total_tokens":%s}}`, tokens)
		case "/json":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"answer":"42","usage":{"prompt_tokens":1,"total_tokens":%s}}`, tokens)
		case "/plain":
			fmt.Fprint(w, "no meter here")
		case "/big":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"pad":"%s","usage":{"total_tokens":%s}}`, strings.Repeat("x", 4096), tokens)
		case "/broken":
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprint(w, "data: {\"usage\":null}\n\n")
			w.(http.Flusher).Flush()
			conn, _, err := http.NewResponseController(w).Hijack()
			if err == nil {
				conn.Close() // the upstream dies mid-answer
			}
		case "/error":
			w.Header().Set(HeaderSettlementOverrides, `{"amount":"100"}`)
			http.Error(w, "upstream failed", http.StatusBadGateway)
		case "/sse":
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprint(w, "data: {\"choices\":[{\"delta\":\"Hel\"}],\"usage\":null}\n\n")
			w.(http.Flusher).Flush()
			select {
			case <-release:
			case <-time.After(20 * time.Second):
			}
			fmt.Fprintf(w, "data: {\"choices\":[{\"delta\":\"lo\"}],\"usage\":{\"total_tokens\":%s}}\n\ndata: [DONE]\n\n", tokens)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(up.Close)
	return up
}

// approvePermit2 has a buyer approve Permit2 on the devnet token, as a
// real buyer does once before paying through Permit2.
func approvePermit2(t *testing.T, key *ecdsa.PrivateKey) {
	t.Helper()
	testutil.Balance(t, crypto.PubkeyToAddress(key.PublicKey).Hex()) // dials the chain
	opts, err := bind.NewKeyedTransactorWithChainID(key, big.NewInt(devnet.ChainID))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	opts.Context = ctx
	tx, err := testutil.ChainToken.Approve(opts, devnet.Permit2Address, new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(1)))
	if err != nil {
		t.Fatal(err)
	}
	if rc, err := bind.WaitMined(ctx, testutil.ChainClient, tx); err != nil || rc.Status != 1 {
		t.Fatalf("approve: %v %+v", err, rc)
	}
}

// payUpto asks for a route's PAYMENT-REQUIRED and signs an upto payment
// of its maximum.
func payUpto(t *testing.T, tester *caddytest.Tester, key *ecdsa.PrivateKey, u string) string {
	t.Helper()
	resp, b := testutil.Get(t, tester, u, nil)
	if resp.StatusCode != http.StatusPaymentRequired {
		t.Fatalf("GET %s unpaid: %d %s", u, resp.StatusCode, b)
	}
	var pr x402.PaymentRequiredV2
	if err := x402.DecodeBase64JSON(resp.Header.Get(x402.HeaderPaymentRequired), &pr); err != nil || len(pr.Accepts) != 1 {
		t.Fatalf("PAYMENT-REQUIRED of %s: %v %+v", u, err, pr)
	}
	h, err := upto.CreatePayment(key, pr.Accepts[0], pr.Resource, permit2.PaymentOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

const uptoCaddyfile = `
:%[1]d {
	handle_path /before/* {
		x402 {
			pay_to %[2]s
			price 0.01
			scheme upto
			meter json usage.total_tokens 0.000002
		}
		reverse_proxy %[3]s
	}
	handle_path /after/* {
		x402 {
			pay_to %[2]s
			price 0.01
			scheme upto
			meter json usage.total_tokens 0.000002
			settle after
		}
		reverse_proxy %[3]s
	}
	handle_path /small/* {
		x402 {
			pay_to %[2]s
			price 0.01
			scheme upto
			meter json usage.total_tokens 0.000002
			meter_max_bytes 1KiB
		}
		reverse_proxy %[3]s
	}
	handle_path /smallafter/* {
		x402 {
			pay_to %[2]s
			price 0.01
			scheme upto
			meter json usage.total_tokens 0.000002
			meter_max_bytes 1KiB
			settle after
		}
		reverse_proxy %[3]s
	}
	handle_path /p2/* {
		x402 {
			pay_to %[2]s
			amount 10000
			network eip155:338
			asset_transfer permit2
		}
		reverse_proxy %[3]s
	}
	handle_path /nometer/* {
		x402 {
			pay_to %[2]s
			amount 10000
			scheme upto
		}
		reverse_proxy %[3]s
	}
}
`

// TestUptoCharges: each charge source moves exactly the metered amount
// from the buyer to the seller, on the devnet, through a real upstream:
// the Settlement-Overrides header in its three forms (removed from the
// answer), the JSON meter, the maximum when neither says; 0 moves
// nothing, more than the maximum moves the maximum, an error answer
// moves nothing. The receipt's amount is the charge.
func TestUptoCharges(t *testing.T) {
	release := make(chan struct{})
	close(release)
	up := meteredUpstream(t, release)
	tester := testutil.NewTester(t, testutil.GlobalBlock("")+fmt.Sprintf(uptoCaddyfile, testutil.SitePort, uptoPayTo, up.Listener.Addr()))
	buyer := testutil.BuyerKey(t, devnet.Buyer4PrivateKey)
	from := crypto.PubkeyToAddress(buyer.PublicKey).Hex()
	approvePermit2(t, buyer)

	o := func(amount string) string { return url.QueryEscape(`{"amount":"` + amount + `"}`) }
	label := "10000 to " + strings.ToLower(uptoPayTo)
	metered := func(source string) float64 {
		v, _ := testutil.Sample(testutil.Scrape(t), "x402_metered_smallest_units_total", map[string]string{"network": "cronos-testnet", "route": label, "source": source})
		return v
	}
	meteredBefore := map[string]float64{}
	for _, s := range []string{ChargeHeader, ChargeMeter, ChargeMaximum} {
		meteredBefore[s] = metered(s)
	}
	for _, tc := range []struct {
		name, path string
		status     int
		charge     int64
		body       string
	}{
		{"header, smallest units", "/before/header?o=" + o("1234"), 200, 1234, "metered by header"},
		{"header, whole tokens", "/before/header?o=" + url.QueryEscape(`{"amount":"$0.005"}`), 200, 5000, "metered by header"},
		{"header, percent", "/before/header?o=" + o("25%"), 200, 2500, "metered by header"},
		{"header, above the maximum", "/before/header?o=" + o("20000"), 200, 10000, "metered by header"},
		{"header, 0", "/before/header?o=" + o("0"), 200, 0, "metered by header"},
		{"header not readable: the meter", "/before/header?tokens=7&o=" + url.QueryEscape(`nonsense`), 200, 14, "metered by header"},
		{"meter, JSON body", "/before/json?tokens=1234", 200, 2468, `"answer":"42"`},
		{"meter, 0", "/before/json?tokens=0", 200, 0, `"answer":"42"`},
		{"meter, above the maximum", "/before/json?tokens=99999", 200, 10000, `"answer":"42"`},
		{"meter finds nothing: the maximum", "/before/plain", 200, 10000, "no meter here"},
		{"no meter: the maximum", "/nometer/plain", 200, 10000, "no meter here"},
		{"error answer", "/before/error", http.StatusBadGateway, 0, "upstream failed"},
		{"settle after, meter", "/after/json?tokens=100", 200, 200, `"answer":"42"`},
		{"settle after, header", "/after/header?o=" + o("777"), 200, 777, "metered by header"},
		{"settle after, error answer", "/after/error", http.StatusBadGateway, 0, "upstream failed"},
		{"held answer within meter_max_bytes", "/before/big?tokens=5", 200, 10, `"total_tokens":5}}`},
		{"held answer over meter_max_bytes: the maximum", "/small/big?tokens=5", 200, 10000, `"total_tokens":5}}`},
		{"streamed answer over meter_max_bytes: the maximum", "/smallafter/big?tokens=5", 200, 10000, `"total_tokens":5}}`},
		{"header with an answer over meter_max_bytes", "/small/header?o=" + o("3"), 200, 3, "metered by header"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u := testutil.SiteURL + tc.path
			pay := payUpto(t, tester, buyer, u)
			bBefore, sBefore := testutil.Balance(t, from), testutil.Balance(t, uptoPayTo)
			resp, b := testutil.Get(t, tester, u, map[string]string{x402.HeaderPaymentSignature: pay})
			if resp.StatusCode != tc.status || !strings.Contains(string(b), tc.body) {
				t.Fatalf("paid request: %d %s, want %d with %q", resp.StatusCode, b, tc.status, tc.body)
			}
			testutil.AssertDelta(t, "buyer", bBefore, testutil.Balance(t, from), -tc.charge)
			testutil.AssertDelta(t, "seller", sBefore, testutil.Balance(t, uptoPayTo), tc.charge)
			if v := resp.Header.Get(HeaderSettlementOverrides); v != "" {
				t.Errorf("the buyer saw Settlement-Overrides %q", v)
			}
			receipt := resp.Header.Get(x402.HeaderPaymentResponseV2)
			if strings.HasPrefix(tc.path, "/after/") || strings.HasPrefix(tc.path, "/smallafter/") {
				if receipt != "" {
					t.Errorf("settle after: PAYMENT-RESPONSE in the header, want it in the trailer")
				}
				receipt = resp.Trailer.Get(x402.HeaderPaymentResponseV2)
			}
			if tc.status >= 400 {
				if receipt != "" {
					t.Errorf("an error answer carries a receipt %q", receipt)
				}
				return
			}
			var rs x402.ReferenceSettleResponse
			if err := x402.DecodeBase64JSON(receipt, &rs); err != nil || !rs.Success || rs.Amount != fmt.Sprint(tc.charge) {
				t.Errorf("receipt %q: %+v %v, want success with amount %d", receipt, rs, err, tc.charge)
			}
			if (rs.Transaction == "") != (tc.charge == 0) {
				t.Errorf("receipt transaction %q for a charge of %d", rs.Transaction, tc.charge)
			}
			// The same payment again is refused, and moves nothing more.
			resp, b = testutil.Get(t, tester, u, map[string]string{x402.HeaderPaymentSignature: pay})
			if resp.StatusCode != http.StatusPaymentRequired || !strings.Contains(string(b), x402.ErrTextAlreadyUsed) {
				t.Errorf("the payment sent again: %d %s", resp.StatusCode, b)
			}
		})
	}
	// The metrics carry each charge by its source.
	for source, want := range map[string]float64{ChargeHeader: 1234 + 5000 + 2500 + 10000 + 0 + 777 + 3,
		ChargeMeter: 14 + 2468 + 0 + 10000 + 200 + 10, ChargeMaximum: 4 * 10000} {
		if got := metered(source) - meteredBefore[source]; got != want {
			t.Errorf("x402_metered_smallest_units_total{source=%q} grew by %v, want %v", source, got, want)
		}
	}
}

// TestUptoStream: a server-sent-events answer reaches the buyer event by
// event (the first is read before the upstream sends the second), and
// its charge, read from the last event that carries the usage, is
// settled when it ends, the receipt in the trailer.
func TestUptoStream(t *testing.T) {
	release := make(chan struct{})
	up := meteredUpstream(t, release)
	tester := testutil.NewTester(t, testutil.GlobalBlock("")+fmt.Sprintf(uptoCaddyfile, testutil.SitePort, uptoPayTo, up.Listener.Addr()))
	buyer := testutil.BuyerKey(t, devnet.Buyer4PrivateKey)
	from := crypto.PubkeyToAddress(buyer.PublicKey).Hex()
	approvePermit2(t, buyer)

	u := testutil.SiteURL + "/after/sse?tokens=321"
	pay := payUpto(t, tester, buyer, u)
	bBefore, sBefore := testutil.Balance(t, from), testutil.Balance(t, uptoPayTo)
	req, _ := http.NewRequest(http.MethodGet, u, nil)
	req.Header.Set(x402.HeaderPaymentSignature, pay)
	resp, err := tester.Client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("status %d, Content-Type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	rd := bufio.NewReader(resp.Body)
	first, err := rd.ReadString('\n')
	if err != nil || !strings.Contains(first, `"Hel"`) {
		t.Fatalf("first event: %q %v", first, err)
	}
	// Nothing is charged while the answer streams.
	testutil.AssertDelta(t, "buyer during the stream", bBefore, testutil.Balance(t, from), 0)
	close(release)
	rest, err := io.ReadAll(rd)
	if err != nil || !strings.Contains(string(rest), `"total_tokens":321`) || !strings.HasSuffix(string(rest), "data: [DONE]\n\n") {
		t.Fatalf("rest of the stream: %q %v", rest, err)
	}
	testutil.AssertDelta(t, "buyer", bBefore, testutil.Balance(t, from), -642)
	testutil.AssertDelta(t, "seller", sBefore, testutil.Balance(t, uptoPayTo), 642)
	var rs x402.ReferenceSettleResponse
	if err := x402.DecodeBase64JSON(resp.Trailer.Get(x402.HeaderPaymentResponseV2), &rs); err != nil || !rs.Success || rs.Amount != "642" || rs.Transaction == "" {
		t.Errorf("trailer receipt: %+v %v", rs, err)
	}
}

// TestUptoBrokenStream: an answer the upstream breaks off moves nothing:
// streamed (settle after), the buyer got part of it, without a charge
// stated (no header, no reading); held (settle before), the buyer gets a
// 502 instead.
func TestUptoBrokenStream(t *testing.T) {
	up := meteredUpstream(t, nil)
	tester := testutil.NewTester(t, testutil.GlobalBlock("")+fmt.Sprintf(uptoCaddyfile, testutil.SitePort, uptoPayTo, up.Listener.Addr()))
	buyer := testutil.BuyerKey(t, devnet.Buyer4PrivateKey)
	from := crypto.PubkeyToAddress(buyer.PublicKey).Hex()
	approvePermit2(t, buyer)
	for path, status := range map[string]int{"/after/broken": 200, "/before/broken": http.StatusBadGateway} {
		u := testutil.SiteURL + path
		pay := payUpto(t, tester, buyer, u)
		bBefore := testutil.Balance(t, from)
		req, _ := http.NewRequest(http.MethodGet, u, nil)
		req.Header.Set(x402.HeaderPaymentSignature, pay)
		resp, err := tester.Client.Do(req)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		_, _ = io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != status {
			t.Errorf("%s: status %d, want %d", path, resp.StatusCode, status)
		}
		testutil.AssertDelta(t, "buyer "+path, bBefore, testutil.Balance(t, from), 0)
	}
}

// TestUptoCopyWhileStreaming: a copy of an upto payment sent while its
// answer streams is answered 409 (the upstream does not run twice), and
// once the first is charged, a copy is refused as used: one charge.
func TestUptoCopyWhileStreaming(t *testing.T) {
	release := make(chan struct{})
	var hits atomic.Int32
	inner := meteredUpstream(t, release)
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		target, _ := url.Parse(inner.URL)
		httputil.NewSingleHostReverseProxy(target).ServeHTTP(w, r)
	}))
	t.Cleanup(up.Close)
	tester := testutil.NewTester(t, testutil.GlobalBlock("")+fmt.Sprintf(uptoCaddyfile, testutil.SitePort, uptoPayTo, up.Listener.Addr()))
	buyer := testutil.BuyerKey(t, devnet.Buyer4PrivateKey)
	approvePermit2(t, buyer)
	u := testutil.SiteURL + "/after/sse?tokens=10"
	pay := payUpto(t, tester, buyer, u)
	sBefore := testutil.Balance(t, uptoPayTo)
	req, _ := http.NewRequest(http.MethodGet, u, nil)
	req.Header.Set(x402.HeaderPaymentSignature, pay)
	resp, err := tester.Client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	rd := bufio.NewReader(resp.Body)
	if _, err := rd.ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	copyResp, b := testutil.Get(t, tester, u, map[string]string{x402.HeaderPaymentSignature: pay})
	if copyResp.StatusCode != http.StatusConflict {
		t.Errorf("a copy while the first streams: %d %s, want 409", copyResp.StatusCode, b)
	}
	close(release)
	if _, err := io.ReadAll(rd); err != nil {
		t.Fatal(err)
	}
	copyResp, b = testutil.Get(t, tester, u, map[string]string{x402.HeaderPaymentSignature: pay})
	if copyResp.StatusCode != http.StatusPaymentRequired || !strings.Contains(string(b), x402.ErrTextAlreadyUsed) {
		t.Errorf("a copy after the charge: %d %s", copyResp.StatusCode, b)
	}
	testutil.AssertDelta(t, "seller", sBefore, testutil.Balance(t, uptoPayTo), 20)
	if n := hits.Load(); n != 1 {
		t.Errorf("the upstream ran %d times for one payment", n)
	}
}

// TestUptoSettleAfterFails: a buyer who empties its wallet while its
// answer streams (settle after) gets the whole answer, but the receipt in
// the trailer says the payment failed, and no money moves: the receipt
// never claims a payment that did not happen.
func TestUptoSettleAfterFails(t *testing.T) {
	release := make(chan struct{})
	up := meteredUpstream(t, release)
	tester := testutil.NewTester(t, testutil.GlobalBlock("")+fmt.Sprintf(uptoCaddyfile, testutil.SitePort, uptoPayTo, up.Listener.Addr()))
	key := testutil.BuyerKey(t, devnet.Buyer2PrivateKey)
	from := crypto.PubkeyToAddress(key.PublicKey)
	approvePermit2(t, key)
	t.Cleanup(func() { clearUptoAfterCoolOffs(t) }) // the refused settle makes the payer cool off (upto_after.go)
	u := testutil.SiteURL + "/after/sse?tokens=50"
	pay := payUpto(t, tester, key, u)
	sBefore := testutil.Balance(t, uptoPayTo)
	req, _ := http.NewRequest(http.MethodGet, u, nil)
	req.Header.Set(x402.HeaderPaymentSignature, pay)
	resp, err := tester.Client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	rd := bufio.NewReader(resp.Body)
	if first, err := rd.ReadString('\n'); err != nil || !strings.Contains(first, `"Hel"`) {
		t.Fatalf("first event: %q %v", first, err)
	}
	// The buyer moves all its tokens away, and gets them back after.
	all := testutil.Balance(t, from.Hex())
	sink := testutil.BuyerKey(t, devnet.Buyer1PrivateKey)
	move := func(k *ecdsa.PrivateKey, to string, amount *big.Int) {
		opts, _ := bind.NewKeyedTransactorWithChainID(k, big.NewInt(devnet.ChainID))
		tx, err := testutil.ChainToken.Transfer(opts, common.HexToAddress(to), amount)
		if err != nil {
			t.Fatal(err)
		}
		if rc, err := bind.WaitMined(context.Background(), testutil.ChainClient, tx); err != nil || rc.Status != 1 {
			t.Fatalf("transfer: %v", err)
		}
	}
	move(key, crypto.PubkeyToAddress(sink.PublicKey).Hex(), all)
	defer move(sink, from.Hex(), all)
	close(release)
	rest, err := io.ReadAll(rd)
	if err != nil || !strings.HasSuffix(string(rest), "data: [DONE]\n\n") {
		t.Fatalf("rest of the stream: %q %v", rest, err)
	}
	var rs x402.ReferenceSettleResponse
	if err := x402.DecodeBase64JSON(resp.Trailer.Get(x402.HeaderPaymentResponseV2), &rs); err != nil || rs.Success || rs.ErrorReason == "" {
		t.Errorf("trailer receipt of a failed settle: %+v %v", rs, err)
	}
	testutil.AssertDelta(t, "seller", sBefore, testutil.Balance(t, uptoPayTo), 0)
}

// TestUptoBuyerHangsUp: a buyer who hangs up in the middle of a streamed
// answer (settle after) is charged as if it had ended: the meter's last
// reading, here none yet, so the maximum.
func TestUptoBuyerHangsUp(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	up := meteredUpstream(t, release)
	tester := testutil.NewTester(t, testutil.GlobalBlock("")+fmt.Sprintf(uptoCaddyfile, testutil.SitePort, uptoPayTo, up.Listener.Addr()))
	buyer := testutil.BuyerKey(t, devnet.Buyer4PrivateKey)
	from := crypto.PubkeyToAddress(buyer.PublicKey).Hex()
	approvePermit2(t, buyer)
	u := testutil.SiteURL + "/after/sse"
	pay := payUpto(t, tester, buyer, u)
	sBefore := testutil.Balance(t, uptoPayTo)
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	req.Header.Set(x402.HeaderPaymentSignature, pay)
	resp, err := tester.Client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if first, err := bufio.NewReader(resp.Body).ReadString('\n'); err != nil || !strings.Contains(first, `"Hel"`) {
		t.Fatalf("first event: %q %v", first, err)
	}
	cancel()
	resp.Body.Close()
	// The settle happens when the paywall sees the buyer gone: wait for
	// the balance to move (at most 20 s), then check by how much.
	for end := time.Now().Add(20 * time.Second); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		if testutil.Balance(t, uptoPayTo).Cmp(sBefore) != 0 {
			break
		}
	}
	testutil.AssertDelta(t, "seller", sBefore, testutil.Balance(t, uptoPayTo), 10000)
	_ = from
}

// TestUptoPayCommand: caddy x402 pay pays an upto route and shows the
// receipt, from the header (settle before) or the trailer (settle after);
// without a Permit2 allowance it says why it was refused.
func TestUptoPayCommand(t *testing.T) {
	up := meteredUpstream(t, nil)
	tester := testutil.NewTester(t, testutil.GlobalBlock("")+fmt.Sprintf(uptoCaddyfile, testutil.SitePort, uptoPayTo, up.Listener.Addr()))
	_ = tester
	buyer := testutil.BuyerKey(t, devnet.Buyer4PrivateKey)
	from := crypto.PubkeyToAddress(buyer.PublicKey).Hex()
	approvePermit2(t, buyer)
	for _, tc := range []struct {
		path   string
		charge int64
	}{{"/before/json?tokens=21", 42}, {"/after/json?tokens=22", 44}} {
		bBefore := testutil.Balance(t, from)
		var stdout, stderr bytes.Buffer
		err := x402cmd.RunPay(context.Background(), testutil.SiteURL+tc.path,
			x402cmd.PayOptions{Key: devnet.Buyer4PrivateKey, Method: "GET", Timeout: 30 * time.Second}, &stdout, &stderr)
		if err != nil {
			t.Fatalf("%s: %v\n%s", tc.path, err, stderr.String())
		}
		testutil.AssertDelta(t, "buyer "+tc.path, bBefore, testutil.Balance(t, from), -tc.charge)
		if !strings.Contains(stdout.String(), `"answer":"42"`) || !strings.Contains(stderr.String(), "paying at most 10000 smallest units") ||
			!strings.Contains(stderr.String(), fmt.Sprintf(`"amount": "%d"`, tc.charge)) {
			t.Errorf("%s: stdout %q stderr %s", tc.path, stdout.String(), stderr.String())
		}
	}
	var stdout, stderr bytes.Buffer
	err := x402cmd.RunPay(context.Background(), testutil.SiteURL+"/before/json",
		x402cmd.PayOptions{Key: devnet.Buyer5PrivateKey, Method: "GET", Timeout: 30 * time.Second}, &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), "payment refused: "+x402.ReasonPermit2AllowanceRequired) {
		t.Errorf("without allowance: %v", err)
	}

	// --approve-permit2 approves first (a transaction of the buyer's),
	// then pays; a second run finds the allowance and sends none.
	buyer3 := crypto.PubkeyToAddress(testutil.BuyerKey(t, devnet.Buyer3PrivateKey).PublicKey).Hex()
	for run := range 2 {
		bBefore := testutil.Balance(t, buyer3)
		stdout.Reset()
		stderr.Reset()
		err = x402cmd.RunPay(context.Background(), testutil.SiteURL+"/before/json?tokens=5",
			x402cmd.PayOptions{Key: devnet.Buyer3PrivateKey, Method: "GET", Timeout: 30 * time.Second, ApprovePermit2: testutil.DevnetURL}, &stdout, &stderr)
		if err != nil {
			t.Fatalf("--approve-permit2, run %d: %v\n%s", run, err, stderr.String())
		}
		testutil.AssertDelta(t, "buyer 3", bBefore, testutil.Balance(t, buyer3), -10)
		if approved := strings.Contains(stderr.String(), "x402: approving Permit2"); approved != (run == 0) {
			t.Errorf("run %d: approval sent %v: %s", run, approved, stderr.String())
		}
	}
}

// TestUptoPage: a browser asking for an upto route gets a payment page
// that pays it: "at most" the maximum, a pay button, the Permit2 step, and
// the 402's version 2 requirements (with the facilitator that settles)
// for the script; an exact route with asset_transfer permit2 gets the
// Permit2 step and says "exactly".
func TestUptoPage(t *testing.T) {
	tester := testutil.NewTester(t, testutil.GlobalBlock("")+fmt.Sprintf(uptoCaddyfile, testutil.SitePort, uptoPayTo, "127.0.0.1:9"))
	browser := map[string]string{"User-Agent": chromeUA, "Accept": browserAccpt}
	resp, b := testutil.Get(t, tester, testutil.SiteURL+"/before/x", browser)
	page := string(b)
	for _, want := range []string{`id="x402-pay"`, `Pay at most 0.01 devUSDC.e with your wallet`, `<span class="atmost" id="x402-atmost">at most</span>`,
		`<li data-step="approve">Allow Permit2</li>`, `you sign a Permit2 permit for at most`, `<script type="application/json" id="x402-payment-required-v2">{"x402Version":2,`,
		`"facilitatorAddress":"` + crypto.PubkeyToAddress(testutil.BuyerKey(t, devnet.SignerPrivateKey).PublicKey).Hex() + `"`} {
		if !strings.Contains(page, want) {
			t.Errorf("the page of an upto route lacks %s", want)
		}
	}
	if resp.StatusCode != http.StatusPaymentRequired || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") ||
		strings.Contains(page, "cannot sign") || strings.Contains(page, "x402-unpayable") {
		t.Errorf("the page of an upto route: %d %s", resp.StatusCode, page)
	}
	resp, b = testutil.Get(t, tester, testutil.SiteURL+"/p2/x", browser)
	page = string(b)
	for _, want := range []string{`Pay 0.01 devUSDC.e with your wallet`, `<li data-step="approve">Allow Permit2</li>`,
		`You sign a Permit2 transfer of exactly`, `"assetTransferMethod":"permit2"`} {
		if !strings.Contains(page, want) {
			t.Errorf("the page of an exact permit2 route lacks %s", want)
		}
	}
	if resp.StatusCode != http.StatusPaymentRequired || strings.Contains(page, `id="x402-atmost"`) || strings.Contains(page, "Pay at most") {
		t.Errorf("the page of an exact permit2 route: %d %s", resp.StatusCode, page)
	}
}

// TestUptoRemote: an upto route with a remote facilitator (the
// facilitator API of a site of the same Caddy, not up yet when the route
// starts) learns its address at the first request, and the charge goes
// to the facilitator's settle as the amount.
func TestUptoRemote(t *testing.T) {
	up := meteredUpstream(t, nil)
	tester := testutil.NewTester(t, testutil.GlobalBlock("")+fmt.Sprintf(`
:%d {
	x402_facilitator {
		rate_limit off
	}
}

:%d {
	x402 {
		pay_to %s
		amount 10000
		network eip155:338
		scheme upto
		meter json usage.total_tokens 3
		facilitator http://127.0.0.1:%d
	}
	reverse_proxy %s
}
`, testutil.FacPort, testutil.SitePort, uptoPayTo, testutil.FacPort, up.Listener.Addr()))
	buyer := testutil.BuyerKey(t, devnet.Buyer4PrivateKey)
	from := crypto.PubkeyToAddress(buyer.PublicKey).Hex()
	approvePermit2(t, buyer)
	u := testutil.SiteURL + "/json?tokens=111"
	pay := payUpto(t, tester, buyer, u) // the 402 names the facilitator (payUpto fails without)
	bBefore := testutil.Balance(t, from)
	resp, b := testutil.Get(t, tester, u, map[string]string{x402.HeaderPaymentSignature: pay})
	if resp.StatusCode != 200 || !strings.Contains(string(b), `"answer":"42"`) {
		t.Fatalf("paid request: %d %s", resp.StatusCode, b)
	}
	testutil.AssertDelta(t, "buyer", bBefore, testutil.Balance(t, from), -333)
	var rs x402.ReferenceSettleResponse
	if err := x402.DecodeBase64JSON(resp.Header.Get(x402.HeaderPaymentResponseV2), &rs); err != nil || !rs.Success || rs.Amount != "333" {
		t.Errorf("receipt %+v %v", rs, err)
	}
}

// TestExactPermit2Route: an exact route with asset_transfer permit2
// offers assetTransferMethod permit2 and is paid through Permit2 (the x402
// exact proxy): exactly the price moves, once.
func TestExactPermit2Route(t *testing.T) {
	up := meteredUpstream(t, nil)
	tester := testutil.NewTester(t, testutil.GlobalBlock("")+fmt.Sprintf(uptoCaddyfile, testutil.SitePort, uptoPayTo, up.Listener.Addr()))
	buyer := testutil.BuyerKey(t, devnet.Buyer4PrivateKey)
	from := crypto.PubkeyToAddress(buyer.PublicKey).Hex()
	approvePermit2(t, buyer)
	u := testutil.SiteURL + "/p2/json?tokens=5"
	resp, _ := testutil.Get(t, tester, u, nil)
	var pr x402.PaymentRequiredV2
	if err := x402.DecodeBase64JSON(resp.Header.Get(x402.HeaderPaymentRequired), &pr); err != nil || len(pr.Accepts) != 1 {
		t.Fatalf("PAYMENT-REQUIRED: %v", err)
	}
	if a := pr.Accepts[0]; a.Scheme != "exact" || a.Amount != "10000" || a.Extra["assetTransferMethod"] != "permit2" {
		t.Fatalf("accepts[0] = %+v", a)
	}
	pay, err := exact.CreatePermit2Payment(buyer, pr.Accepts[0], pr.Resource, permit2.PaymentOptions{})
	if err != nil {
		t.Fatal(err)
	}
	bBefore, sBefore := testutil.Balance(t, from), testutil.Balance(t, uptoPayTo)
	resp, b := testutil.Get(t, tester, u, map[string]string{x402.HeaderPaymentSignature: pay})
	if resp.StatusCode != 200 || !strings.Contains(string(b), `"answer":"42"`) {
		t.Fatalf("paid request: %d %s", resp.StatusCode, b)
	}
	testutil.AssertDelta(t, "buyer", bBefore, testutil.Balance(t, from), -10000)
	testutil.AssertDelta(t, "seller", sBefore, testutil.Balance(t, uptoPayTo), 10000)
	resp, b = testutil.Get(t, tester, u, map[string]string{x402.HeaderPaymentSignature: pay})
	if resp.StatusCode != http.StatusPaymentRequired || !strings.Contains(string(b), x402.ErrTextAlreadyUsed) {
		t.Errorf("the payment sent again: %d %s", resp.StatusCode, b)
	}
}

// TestUptoNoAllowance: a buyer who never approved Permit2 gets a 402 that
// says so, and nothing reaches the upstream.
func TestUptoNoAllowance(t *testing.T) {
	hits := 0
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits++ }))
	t.Cleanup(up.Close)
	tester := testutil.NewTester(t, testutil.GlobalBlock("")+fmt.Sprintf(uptoCaddyfile, testutil.SitePort, uptoPayTo, up.Listener.Addr()))
	buyer := testutil.BuyerKey(t, devnet.Buyer5PrivateKey)
	u := testutil.SiteURL + "/before/json"
	resp, b := testutil.Get(t, tester, u, map[string]string{x402.HeaderPaymentSignature: payUpto(t, tester, buyer, u)})
	if resp.StatusCode != http.StatusPaymentRequired || !strings.Contains(string(b), x402.ReasonPermit2AllowanceRequired) {
		t.Errorf("no allowance: %d %s", resp.StatusCode, b)
	}
	if hits != 0 {
		t.Errorf("the upstream ran %d times for a refused payment", hits)
	}
}

// TestUpto402: an upto route's 402 offers scheme upto at the maximum with
// the facilitator's address and the Permit2 transfer method.
func TestUpto402(t *testing.T) {
	tester := testutil.NewTester(t, testutil.GlobalBlock("")+fmt.Sprintf(uptoCaddyfile, testutil.SitePort, uptoPayTo, "127.0.0.1:9"))
	resp, _ := testutil.Get(t, tester, testutil.SiteURL+"/before/x", nil)
	var pr x402.PaymentRequiredV2
	if err := x402.DecodeBase64JSON(resp.Header.Get(x402.HeaderPaymentRequired), &pr); err != nil || len(pr.Accepts) != 1 {
		t.Fatalf("PAYMENT-REQUIRED: %v", err)
	}
	a := pr.Accepts[0]
	signer := crypto.PubkeyToAddress(testutil.BuyerKey(t, devnet.SignerPrivateKey).PublicKey).Hex()
	if a.Scheme != "upto" || a.Amount != "10000" || a.Network != "eip155:338" || a.Extra["facilitatorAddress"] != signer ||
		a.Extra["assetTransferMethod"] != "permit2" || a.Extra["name"] != devnet.TokenName {
		b, _ := json.Marshal(a)
		t.Errorf("accepts[0] = %s", b)
	}
}
