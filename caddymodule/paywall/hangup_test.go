package paywall

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/caddy-x402/caddy-x402/caddymodule/internal/testutil"
	"github.com/caddy-x402/caddy-x402/caddymodule/paywall/mcp"
	"github.com/caddy-x402/caddy-x402/facilitator/devnet"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// The sellers of the hang-up tests, paid by no other test.
const (
	hangUptoPayTo  = "0x0000000000000000000000000000000000320201"
	hangAfterPayTo = "0x0000000000000000000000000000000000320202"
	hangChanPayTo  = "0x0000000000000000000000000000000000320203"
	hangMCPPayTo   = "0x0000000000000000000000000000000000320204"
)

const hangUpCaddyfile = `
:%[1]d {
	handle_path /upto/* {
		x402 {
			pay_to %[2]s
			price 0.01
			scheme upto
			meter json usage.total_tokens 0.000002
		}
		reverse_proxy %[6]s
	}
	handle_path /after/* {
		x402 {
			pay_to %[3]s
			amount 17
			settle after
		}
		reverse_proxy %[6]s
	}
	handle_path /afterpid/* {
		x402 {
			pay_to %[3]s
			amount 17
			network eip155:338
			settle after
		}
		reverse_proxy %[6]s
	}
	handle_path /chan/* {
		x402 {
			pay_to %[4]s
			amount 10000
			scheme batch-settlement
			meter json usage.total_tokens 2
		}
		reverse_proxy %[6]s
	}
	handle_path /mcp/* {
		x402 {
			pay_to %[5]s
			network eip155:338
			mcp_tool slow 0.01
		}
		reverse_proxy %[6]s
	}
}
`

// hangUpstream is an upstream that counts its runs by path and, under
// /slow and for the MCP tool "slow", holds its answer until the paywall
// gives up its request (the buyer hung up): each run is announced on
// entered, so that the buyer hangs up once the request is upstream. /fast
// answers a metered JSON at once.
type hangUpstream struct {
	mu      sync.Mutex
	runs    map[string]int
	entered chan struct{}
}

func newHangUpstream(t *testing.T) (*hangUpstream, *httptest.Server) {
	u := &hangUpstream{runs: map[string]int{}, entered: make(chan struct{}, 16)}
	srv := httptest.NewServer(u)
	t.Cleanup(srv.Close)
	return u, srv
}

func (u *hangUpstream) ran(path string) int {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.runs[path]
}

func (u *hangUpstream) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	key := r.URL.Path
	var msg struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if r.Method == http.MethodPost {
		b, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(b, &msg)
		key += " " + msg.Method
	}
	u.mu.Lock()
	u.runs[key]++
	u.mu.Unlock()
	if key == "/fast" {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"answer":"fast","usage":{"total_tokens":100}}`)
		return
	}
	if key == "/partial" {
		// The answer begins, and breaks off when the buyer hangs up:
		// the meter has read 5 tokens of it. (The pause lets the proxy
		// read the beginning before the buyer hangs up.)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"usage":{"total_tokens":5},"answer":"`)
		w.(http.Flusher).Flush()
		time.Sleep(300 * time.Millisecond)
	}
	select {
	case u.entered <- struct{}{}:
	default:
	}
	select {
	case <-r.Context().Done():
		return
	case <-time.After(30 * time.Second):
	}
	w.Header().Set("Content-Type", "application/json")
	if msg.Method != "" {
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"slow"}]}}`, msg.ID)
		return
	}
	fmt.Fprint(w, `{"answer":"slow","usage":{"total_tokens":5}}`)
}

// hangUpOn sends a request and hangs up as soon as the upstream has it.
// It answers the paywall's answer, or hungUp true when the request went
// upstream (and the buyer hung up).
func hangUpOn(t *testing.T, u *hangUpstream, method, url, body string, hdr map[string]string) (resp *http.Response, b []byte, hungUp bool) {
	t.Helper()
	for len(u.entered) > 0 {
		<-u.entered // none left over from an earlier request
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, method, url, strings.NewReader(body))
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	type answer struct {
		resp *http.Response
		body []byte
		err  error
	}
	done := make(chan answer, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			done <- answer{err: err}
			return
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		done <- answer{resp, b, err}
	}()
	select {
	case <-u.entered:
		cancel()
		<-done
		return nil, nil, true
	case a := <-done:
		if a.err != nil {
			t.Fatalf("%s %s: %v", method, url, a.err)
		}
		return a.resp, a.body, false
	}
}

// retryHungUp sends the payment of a buyer who hung up again, as often as
// a copy in flight is answered 409 (the first request still settling),
// and returns the first other answer. The upstream must not run.
func retryHungUp(t *testing.T, u *hangUpstream, method, url, body string, hdr map[string]string) (*http.Response, []byte) {
	t.Helper()
	for i := 0; ; i++ {
		resp, b, hung := hangUpOn(t, u, method, url, body, hdr)
		if hung {
			t.Fatalf("retry %d of a payment whose buyer hung up ran the upstream again", i)
		}
		if !busyPayment(resp, b) || i == 200 {
			return resp, b
		}
		time.Sleep(50 * time.Millisecond) // the first request is still being charged
	}
}

// busyPayment reports an answer that the payment is still being served
// (409 with Retry-After): on an MCP route, a JSON-RPC error whose data
// holds that status, with Retry-After, in an HTTP 200.
func busyPayment(resp *http.Response, b []byte) bool {
	if resp.Header.Get("Retry-After") == "" {
		return false
	}
	if resp.StatusCode == http.StatusConflict {
		return true
	}
	var m struct {
		Error struct {
			Data struct {
				Status int `json:"status"`
			} `json:"data"`
		} `json:"error"`
	}
	return json.Unmarshal(b, &m) == nil && m.Error.Data.Status == http.StatusConflict
}

// awaitCharge waits (at most 20 s) until charged reports the first
// request's charge made, as a buyer's retry would come later.
func awaitCharge(charged func() bool) {
	for end := time.Now().Add(20 * time.Second); time.Now().Before(end) && !charged(); time.Sleep(100 * time.Millisecond) {
	}
}

// errorOf is the error an answer states: PAYMENT-REQUIRED's (version
// 2), else its JSON body's.
func errorOf(resp *http.Response, body []byte) string {
	var e struct {
		Error string `json:"error"`
	}
	if v := resp.Header.Get(x402.HeaderPaymentRequired); v != "" {
		_ = x402.DecodeBase64JSON(v, &e)
		return e.Error
	}
	_ = json.Unmarshal(body, &e)
	return e.Error
}

// TestHangUpRunsUpstreamOnce (issue 32, finding 2): a buyer who hangs up
// once its paid request is upstream, and sends the same payment four
// times more, runs the upstream once and is charged, on an upto route
// (settle before, meter json: the maximum, nothing read), a settle after
// route (the price), a metered channel route (the price stays in the
// channel's charged) and an MCP tool (settle after: the price); the
// retries get 402 textAnswerLost (the channel: the corrective 402 with
// the charge), and the upstream does not run again.
func TestHangUpRunsUpstreamOnce(t *testing.T) {
	u, up := newHangUpstream(t)
	tester := testutil.NewTester(t, testutil.GlobalBlock("")+fmt.Sprintf(hangUpCaddyfile, testutil.SitePort,
		hangUptoPayTo, hangAfterPayTo, hangChanPayTo, hangMCPPayTo, up.Listener.Addr()))

	// hangUpFive sends one payment five times: the first hangs up once
	// it is upstream; the four others get the answer of a payment spent.
	hangUpFive := func(t *testing.T, method, url, body string, hdr map[string]string, charged func() bool,
		check func(t *testing.T, resp *http.Response, b []byte)) {
		t.Helper()
		if _, _, hung := hangUpOn(t, u, method, url, body, hdr); !hung {
			t.Fatal("the first request did not reach the upstream")
		}
		awaitCharge(charged)
		for i := 0; i < 4; i++ {
			resp, b := retryHungUp(t, u, method, url, body, hdr)
			check(t, resp, b)
		}
	}
	lost := func(t *testing.T, resp *http.Response, b []byte) {
		t.Helper()
		if resp.StatusCode != http.StatusPaymentRequired || errorOf(resp, b) != textAnswerLost {
			t.Fatalf("retry: %d %q (%s), want 402 %q", resp.StatusCode, errorOf(resp, b), b, textAnswerLost)
		}
	}
	moved := func(addr string, before *big.Int) func() bool {
		return func() bool { return testutil.Balance(t, addr).Cmp(before) != 0 }
	}

	t.Run("upto settle before, meter json", func(t *testing.T) {
		// Buyer4, like the other upto tests: TestUptoPayCommand needs Buyer3
		// without a Permit2 allowance.
		buyer := testutil.BuyerKey(t, devnet.Buyer4PrivateKey)
		approvePermit2(t, buyer)
		url := testutil.SiteURL + "/upto/slow"
		pay := payUpto(t, tester, buyer, url)
		before := testutil.Balance(t, hangUptoPayTo)
		hangUpFive(t, http.MethodGet, url, "", map[string]string{x402.HeaderPaymentSignature: pay}, moved(hangUptoPayTo, before), lost)
		if n := u.ran("/slow"); n != 1 {
			t.Errorf("the upstream ran %d times, want 1", n)
		}
		testutil.AssertDelta(t, "seller", before, testutil.Balance(t, hangUptoPayTo), 10000) // the maximum: nothing was read
	})

	t.Run("upto settle before, the answer begun", func(t *testing.T) {
		buyer := testutil.BuyerKey(t, devnet.Buyer4PrivateKey)
		url := testutil.SiteURL + "/upto/partial"
		pay := payUpto(t, tester, buyer, url)
		before := testutil.Balance(t, hangUptoPayTo)
		hangUpFive(t, http.MethodGet, url, "", map[string]string{x402.HeaderPaymentSignature: pay}, moved(hangUptoPayTo, before), lost)
		if n := u.ran("/partial"); n != 1 {
			t.Errorf("the upstream ran %d times, want 1", n)
		}
		// The reading so far: 5 tokens at 2 smallest units. (Had the
		// proxy read nothing of the answer before the buyer hung up, the
		// maximum.)
		switch delta := new(big.Int).Sub(testutil.Balance(t, hangUptoPayTo), before); delta.Int64() {
		case 10:
		case 10000:
			t.Logf("the proxy had read nothing of the answer when the buyer hung up: charged the maximum")
		default:
			t.Errorf("the seller's balance changed by %s, want 10 (the reading so far)", delta)
		}
	})

	t.Run("exact settle after", func(t *testing.T) {
		url := testutil.SiteURL + "/after/slow"
		pay := testutil.Pay(t, testutil.BuyerKey(t, devnet.Buyer3PrivateKey), testutil.Require402(t, tester, url).PaymentRequirements)
		before := testutil.Balance(t, hangAfterPayTo)
		ranBefore := u.ran("/slow")
		hangUpFive(t, http.MethodGet, url, "", map[string]string{"X-Payment": pay}, moved(hangAfterPayTo, before), lost)
		if n := u.ran("/slow") - ranBefore; n != 1 {
			t.Errorf("the upstream ran %d times, want 1", n)
		}
		testutil.AssertDelta(t, "seller", before, testutil.Balance(t, hangAfterPayTo), 17)
	})

	t.Run("settle after, with a payment identifier", func(t *testing.T) {
		url := testutil.SiteURL + "/afterpid/slow"
		pay := payWithID(t, testutil.BuyerKey(t, devnet.Buyer3PrivateKey), offerV2(t, tester, url), "pay_hangup32hangup32hangup32", nil)
		before := testutil.Balance(t, hangAfterPayTo)
		ranBefore := u.ran("/slow")
		hangUpFive(t, http.MethodGet, url, "", map[string]string{x402.HeaderPaymentSignature: pay}, moved(hangAfterPayTo, before), lost)
		if n := u.ran("/slow") - ranBefore; n != 1 {
			t.Errorf("the upstream ran %d times, want 1", n)
		}
		testutil.AssertDelta(t, "seller", before, testutil.Balance(t, hangAfterPayTo), 17)
	})

	t.Run("metered channel", func(t *testing.T) {
		cb := newChannelBuyer(t, tester, devnet.Buyer2PrivateKey, testutil.SiteURL+"/chan/fast", time.Now().UnixNano())
		resp, b := testutil.Get(t, tester, testutil.SiteURL+"/chan/fast", map[string]string{x402.HeaderPaymentSignature: cb.header(t, cb.deposit(t, 100000, 10000))})
		rc := channelReceiptOf(t, resp.Header.Get(x402.HeaderPaymentResponseV2))
		if resp.StatusCode != 200 || rc.snapshot != "200" {
			t.Fatalf("deposit: %d %s %+v", resp.StatusCode, b, rc)
		}
		route := map[string]string{"network": "cronos-testnet", "route": "10000 to " + strings.ToLower(hangChanPayTo), "source": ChargeMaximum}
		meteredMax := func() float64 {
			v, _ := testutil.Sample(testutil.Scrape(t), "x402_metered_smallest_units_total", route)
			return v
		}
		was := meteredMax()
		ranBefore := u.ran("/slow")
		hdr := map[string]string{x402.HeaderPaymentSignature: cb.header(t, cb.voucher(t, cb.key, 200+10000))}
		hangUpFive(t, http.MethodGet, testutil.SiteURL+"/chan/slow", "", hdr, func() bool { return meteredMax() != was },
			func(t *testing.T, resp *http.Response, b []byte) {
				t.Helper()
				var pr x402.PaymentRequiredV2
				_ = x402.DecodeBase64JSON(resp.Header.Get(x402.HeaderPaymentRequired), &pr)
				if resp.StatusCode != 402 || pr.Error != reasonCumulativeMismatch || len(pr.Accepts) != 1 {
					t.Fatalf("retry: %d %+v %s, want the corrective 402", resp.StatusCode, pr, b)
				}
				// The store's charged: the price the hang-up was charged.
				if cs, _ := pr.Accepts[0].Extra["channelState"].(map[string]any); cs["chargedCumulativeAmount"] != "10200" {
					t.Fatalf("channelState %+v, want chargedCumulativeAmount 10200", cs)
				}
			})
		if n := u.ran("/slow") - ranBefore; n != 1 {
			t.Errorf("the upstream ran %d times, want 1", n)
		}
		if got := meteredMax() - was; got != 10000 {
			t.Errorf("x402_metered_smallest_units_total{source=maximum} grew by %v, want 10000", got)
		}

		// The answer begun: the reading so far (5 tokens at 2), else (the
		// proxy read nothing of it before the buyer hung up) the price.
		meter := map[string]string{"network": "cronos-testnet", "route": route["route"], "source": ChargeMeter}
		meteredRead := func() float64 {
			v, _ := testutil.Sample(testutil.Scrape(t), "x402_metered_smallest_units_total", meter)
			return v
		}
		wasRead, wasMax := meteredRead(), meteredMax()
		hdr = map[string]string{x402.HeaderPaymentSignature: cb.header(t, cb.voucher(t, cb.key, 10200+10000))}
		var charged string
		hangUpFive(t, http.MethodGet, testutil.SiteURL+"/chan/partial", "", hdr, func() bool { return meteredRead() != wasRead || meteredMax() != wasMax },
			func(t *testing.T, resp *http.Response, b []byte) {
				t.Helper()
				var pr x402.PaymentRequiredV2
				_ = x402.DecodeBase64JSON(resp.Header.Get(x402.HeaderPaymentRequired), &pr)
				if resp.StatusCode != 402 || pr.Error != reasonCumulativeMismatch || len(pr.Accepts) != 1 {
					t.Fatalf("retry: %d %+v %s, want the corrective 402", resp.StatusCode, pr, b)
				}
				cs, _ := pr.Accepts[0].Extra["channelState"].(map[string]any)
				charged, _ = cs["chargedCumulativeAmount"].(string)
			})
		switch charged {
		case "10210":
		case "20200":
			t.Logf("the proxy had read nothing of the answer when the buyer hung up: charged the price")
		default:
			t.Errorf("chargedCumulativeAmount %q, want 10210 (the reading so far)", charged)
		}
		if n := u.ran("/partial"); n != 2 { // once here, once on the upto route
			t.Errorf("the upstream ran %d times, want 2", n)
		}
	})

	t.Run("MCP settle after", func(t *testing.T) {
		url := testutil.SiteURL + "/mcp/rpc"
		resp, raw, m := mcpPost(t, tester, url, toolCall(1, "slow", `{}`, ""), nil)
		pr := mcpPaymentRequiredFor(t, resp, raw, m, "slow", "", hangMCPPayTo, "10000", mcp.TextPaymentRequired)
		call := toolCall(2, "slow", `{}`, `{"x402/payment":`+mcpPay(t, pr, devnet.Buyer3PrivateKey)+`}`)
		hdr := map[string]string{"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
		before := testutil.Balance(t, hangMCPPayTo)
		hangUpFive(t, http.MethodPost, url, call, hdr, moved(hangMCPPayTo, before), func(t *testing.T, resp *http.Response, b []byte) {
			t.Helper()
			var m map[string]json.RawMessage
			_ = json.Unmarshal(b, &m)
			mcpPaymentRequiredFor(t, resp, b, m, "slow", "", hangMCPPayTo, "10000", textAnswerLost)
		})
		if n := u.ran("/rpc tools/call"); n != 1 {
			t.Errorf("the MCP tool ran %d times, want 1", n)
		}
		testutil.AssertDelta(t, "seller", before, testutil.Balance(t, hangMCPPayTo), 10000)
	})
}
