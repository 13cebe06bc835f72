package paywall

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/caddy-x402/caddy-x402/caddymodule/internal/testutil"
	"github.com/caddy-x402/caddy-x402/caddymodule/x402cmd"
	"github.com/caddy-x402/caddy-x402/facilitator/devnet"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// channelMeterPayTo is the seller of the metered channel tests, paid by
// no other test.
const channelMeterPayTo = "0x0000000000000000000000000000000000c4a126"

const channelMeterCaddyfile = `
:%[1]d {
	handle_path /m/* {
		x402 {
			pay_to %[2]s
			amount 10000
			scheme batch-settlement
			meter json usage.total_tokens 2
			claim_every %[4]s
		}
		reverse_proxy %[3]s
	}
	handle_path /small/* {
		x402 {
			pay_to %[2]s
			amount 10000
			scheme batch-settlement
			meter json usage.total_tokens 2
			meter_max_bytes 1KiB
		}
		reverse_proxy %[3]s
	}
	handle_path /nometer/* {
		x402 {
			pay_to %[2]s
			amount 10000
			scheme batch-settlement
		}
		reverse_proxy %[3]s
	}
}
`

// channelStreamUpstream is meteredUpstream (its /sse waits for release)
// with /ssehdr: a server-sent events answer that states its charge in
// Settlement-Overrides (?o=) and sends its second event only after
// release. Each request's path goes to seen, when there is room.
func channelStreamUpstream(t *testing.T, release <-chan struct{}, seen chan<- string) *httptest.Server {
	metered := meteredUpstream(t, release).Config.Handler
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case seen <- r.URL.Path:
		default:
		}
		if r.URL.Path == "/ws" {
			// An upgrade: 101, then one line echoed.
			conn, brw, err := http.NewResponseController(w).Hijack()
			if err != nil {
				return
			}
			defer conn.Close()
			fmt.Fprint(brw, "HTTP/1.1 101 Switching Protocols\r\nUpgrade: echo\r\nConnection: Upgrade\r\n\r\n")
			brw.Flush()
			line, _ := brw.ReadString('\n')
			fmt.Fprint(brw, "echo: "+line)
			brw.Flush()
			return
		}
		if r.URL.Path != "/ssehdr" {
			metered.ServeHTTP(w, r)
			return
		}
		w.Header().Set(HeaderSettlementOverrides, r.URL.Query().Get("o"))
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "data: {\"delta\":\"Hel\"}\n\n")
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-time.After(20 * time.Second):
		}
		fmt.Fprint(w, "data: {\"delta\":\"lo\"}\n\ndata: [DONE]\n\n")
	}))
	t.Cleanup(up.Close)
	return up
}

// channelReceipt is what PAYMENT-RESPONSE of a channel request says.
type channelReceipt struct {
	ok                bool
	transaction       string
	charged, snapshot string // chargedAmount, channelState.chargedCumulativeAmount
}

func channelReceiptOf(t *testing.T, v string) channelReceipt {
	t.Helper()
	if v == "" {
		return channelReceipt{}
	}
	var rs x402.ReferenceSettleResponse
	if err := x402.DecodeBase64JSON(v, &rs); err != nil {
		t.Fatalf("PAYMENT-RESPONSE %q: %v", v, err)
	}
	cs, _ := rs.Extra["channelState"].(map[string]any)
	c, _ := rs.Extra["chargedAmount"].(string)
	s, _ := cs["chargedCumulativeAmount"].(string)
	return channelReceipt{ok: rs.Success, transaction: rs.Transaction, charged: c, snapshot: s}
}

// TestChannelMeter: a metered channel route charges what the answer says
// (Settlement-Overrides, else the meter, else the price; capped at the
// price; nothing for an error answer), says so in PAYMENT-RESPONSE
// (chargedAmount and the channel's chargedCumulativeAmount), and the
// buyer's next voucher, signed from that cumulative as the published
// client signs it, is served without a corrective 402. The claim round
// pays the seller exactly the sum of the charges.
func TestChannelMeter(t *testing.T) {
	release := make(chan struct{})
	close(release)
	up := channelStreamUpstream(t, release, nil)
	tester := testutil.NewTester(t, testutil.GlobalBlock("")+fmt.Sprintf(channelMeterCaddyfile, testutil.SitePort, channelMeterPayTo, up.Listener.Addr(), "1s"))
	cb := newChannelBuyer(t, tester, devnet.Buyer1PrivateKey, testutil.SiteURL+"/m/json", time.Now().UnixNano())
	sellerBefore := testutil.Balance(t, channelMeterPayTo)
	o := func(amount string) string { return url.QueryEscape(`{"amount":"` + amount + `"}`) }
	metered := func(source string) float64 {
		v, _ := testutil.Sample(testutil.Scrape(t), "x402_metered_smallest_units_total",
			map[string]string{"network": "cronos-testnet", "route": "10000 to " + strings.ToLower(channelMeterPayTo), "source": source})
		return v
	}
	meteredBefore := map[string]float64{}
	for _, s := range []string{ChargeHeader, ChargeMeter, ChargeMaximum} {
		meteredBefore[s] = metered(s)
	}

	// The deposit's request is metered too: 100 tokens at 2.
	resp, b := testutil.Get(t, tester, testutil.SiteURL+"/m/json?tokens=100", map[string]string{x402.HeaderPaymentSignature: cb.header(t, cb.deposit(t, 100000, 10000))})
	rc := channelReceiptOf(t, resp.Header.Get(x402.HeaderPaymentResponseV2))
	if resp.StatusCode != 200 || !strings.Contains(string(b), `"answer":"42"`) || !rc.ok || rc.transaction == "" || rc.charged != "200" || rc.snapshot != "200" {
		t.Fatalf("deposit: %d %s %+v", resp.StatusCode, b, rc)
	}
	cumulative := int64(200)
	for _, tc := range []struct {
		name, path string
		status     int
		charge     int64
		body       string
	}{
		{"header, smallest units", "/m/header?o=" + o("1234"), 200, 1234, "metered by header"},
		{"header, whole tokens", "/m/header?o=" + url.QueryEscape(`{"amount":"$0.005"}`), 200, 5000, "metered by header"},
		{"header, percent", "/m/header?o=" + o("25%"), 200, 2500, "metered by header"},
		{"header above the price: capped", "/m/header?o=" + o("20000"), 200, 10000, "metered by header"},
		{"header, 0", "/m/header?o=" + o("0"), 200, 0, "metered by header"},
		{"meter, JSON body", "/m/json?tokens=1234", 200, 2468, `"answer":"42"`},
		{"meter, 0", "/m/json?tokens=0", 200, 0, `"answer":"42"`},
		{"meter above the price: capped", "/m/json?tokens=99999", 200, 10000, `"answer":"42"`},
		{"meter finds nothing: the price", "/m/plain", 200, 10000, "no meter here"},
		{"error answer: nothing", "/m/error", http.StatusBadGateway, 0, "upstream failed"},
		{"server-sent events, held and metered", "/m/sse?tokens=321", 200, 642, "data: [DONE]"},
		{"held answer within meter_max_bytes", "/m/big?tokens=5", 200, 10, `"total_tokens":5}}`},
		{"held answer over meter_max_bytes: the price", "/small/big?tokens=5", 200, 10000, `"total_tokens":5}}`},
		{"no meter: the price", "/nometer/plain", 200, 10000, "no meter here"},
		{"no meter, header", "/nometer/header?o=" + o("77"), 200, 77, "metered by header"},
		{"no meter, error answer: nothing", "/nometer/error", http.StatusBadGateway, 0, "upstream failed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Signed from the last receipt's cumulative, as the published
			// client signs: served, never a corrective 402.
			resp, b := testutil.Get(t, tester, testutil.SiteURL+tc.path, map[string]string{x402.HeaderPaymentSignature: cb.header(t, cb.voucher(t, cb.key, cumulative+10000))})
			if resp.StatusCode != tc.status || !strings.Contains(string(b), tc.body) {
				t.Fatalf("%d %s, want %d with %q", resp.StatusCode, b, tc.status, tc.body)
			}
			if v := resp.Header.Get(HeaderSettlementOverrides); v != "" {
				t.Errorf("the buyer saw Settlement-Overrides %q", v)
			}
			rc := channelReceiptOf(t, resp.Header.Get(x402.HeaderPaymentResponseV2))
			cumulative += tc.charge
			if !rc.ok || rc.transaction != "" || rc.charged != fmt.Sprint(tc.charge) || rc.snapshot != fmt.Sprint(cumulative) {
				t.Errorf("receipt %+v, want chargedAmount %d, chargedCumulativeAmount %d", rc, tc.charge, cumulative)
			}
		})
	}
	// The metrics carry each charge by its source (an error answer, charged
	// nothing, is not counted).
	for source, want := range map[string]float64{ChargeHeader: 1234 + 5000 + 2500 + 10000 + 0 + 77,
		ChargeMeter: 200 + 2468 + 0 + 10000 + 642 + 10, ChargeMaximum: 3 * 10000} {
		if got := metered(source) - meteredBefore[source]; got != want {
			t.Errorf("x402_metered_smallest_units_total{source=%q} grew by %v, want %v", source, got, want)
		}
	}
	// A voucher signed from the reserved cumulative (the price, not the
	// charge) is corrected to the metered one.
	resp, _ = testutil.Get(t, tester, testutil.SiteURL+"/m/json", map[string]string{x402.HeaderPaymentSignature: cb.header(t, cb.voucher(t, cb.key, cumulative+10000+10000))})
	var pr x402.PaymentRequiredV2
	_ = x402.DecodeBase64JSON(resp.Header.Get(x402.HeaderPaymentRequired), &pr)
	if resp.StatusCode != 402 || pr.Error != reasonCumulativeMismatch {
		t.Fatalf("a voucher from the wrong cumulative: %d %+v", resp.StatusCode, pr)
	}
	if cs, _ := pr.Accepts[0].Extra["channelState"].(map[string]any); cs["chargedCumulativeAmount"] != fmt.Sprint(cumulative) {
		t.Errorf("corrective channelState %+v, want chargedCumulativeAmount %d", cs, cumulative)
	}

	// The claim round pays the seller what was charged, not what was
	// reserved.
	deadline := time.Now().Add(30 * time.Second)
	want := new(big.Int).Add(sellerBefore, big.NewInt(cumulative))
	for testutil.Balance(t, channelMeterPayTo).Cmp(want) != 0 && time.Now().Before(deadline) {
		time.Sleep(200 * time.Millisecond)
	}
	testutil.AssertDelta(t, "seller after the claim round", sellerBefore, testutil.Balance(t, channelMeterPayTo), cumulative)
}

// TestChannelMeterStream: an answer whose charge the upstream states in
// Settlement-Overrides streams at once on a channel route, event by
// event, its receipt in the header (the charge is known before the first
// byte goes out).
func TestChannelMeterStream(t *testing.T) {
	release := make(chan struct{})
	up := channelStreamUpstream(t, release, nil)
	tester := testutil.NewTester(t, testutil.GlobalBlock("")+fmt.Sprintf(channelMeterCaddyfile, testutil.SitePort, channelMeterPayTo, up.Listener.Addr(), "1m"))
	cb := newChannelBuyer(t, tester, devnet.Buyer1PrivateKey, testutil.SiteURL+"/m/json", time.Now().UnixNano())
	resp, b := testutil.Get(t, tester, testutil.SiteURL+"/m/json?tokens=1", map[string]string{x402.HeaderPaymentSignature: cb.header(t, cb.deposit(t, 50000, 10000))})
	if resp.StatusCode != 200 || channelReceiptOf(t, resp.Header.Get(x402.HeaderPaymentResponseV2)).snapshot != "2" {
		t.Fatalf("deposit: %d %s", resp.StatusCode, b)
	}
	req, _ := http.NewRequest(http.MethodGet, testutil.SiteURL+"/m/ssehdr?o="+url.QueryEscape(`{"amount":"600"}`), nil)
	req.Header.Set(x402.HeaderPaymentSignature, cb.header(t, cb.voucher(t, cb.key, 10002)))
	sresp, err := tester.Client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer sresp.Body.Close()
	rc := channelReceiptOf(t, sresp.Header.Get(x402.HeaderPaymentResponseV2))
	if sresp.StatusCode != 200 || rc.charged != "600" || rc.snapshot != "602" {
		t.Fatalf("stream: %d, receipt %+v", sresp.StatusCode, rc)
	}
	rd := bufio.NewReader(sresp.Body)
	if first, err := rd.ReadString('\n'); err != nil || !strings.Contains(first, `"Hel"`) {
		t.Fatalf("first event, before the upstream sends the second: %q %v", first, err)
	}
	close(release)
	if rest, err := io.ReadAll(rd); err != nil || !strings.HasSuffix(string(rest), "data: [DONE]\n\n") {
		t.Fatalf("rest of the stream: %q %v", rest, err)
	}
	// The next voucher, from 602.
	resp, b = testutil.Get(t, tester, testutil.SiteURL+"/m/json?tokens=3", map[string]string{x402.HeaderPaymentSignature: cb.header(t, cb.voucher(t, cb.key, 10602))})
	if rc := channelReceiptOf(t, resp.Header.Get(x402.HeaderPaymentResponseV2)); resp.StatusCode != 200 || rc.charged != "6" || rc.snapshot != "608" {
		t.Fatalf("next voucher: %d %s %+v", resp.StatusCode, b, rc)
	}
}

// TestChannelMeterConcurrent: a metered request of a channel settles its
// charge even when another request of the channel charged while its
// answer was held (the buyer signed that voucher from the reservation, as
// a corrective 402 tells it to): the refund is taken from the channel's
// charged as it stands, so the channel ends at the sum of the charges.
// A claim round while the answer is held claims only what is final (issue
// 32, finding 5: it claimed the reservation, 10000 more than the receipt
// then stated): the held request is charged its metered amount, and the
// chain's claimed total, the seller's balance and the store's charged end
// at the sum of the receipts' chargedAmount.
func TestChannelMeterConcurrent(t *testing.T) {
	for _, tc := range []struct {
		name, claimEvery string
		claimed          bool
	}{{"lowered from the current charged", "5m", false}, {"a claim round while held claims only the final charges", "1s", true}} {
		t.Run(tc.name, func(t *testing.T) {
			release, seen := make(chan struct{}), make(chan string, 1)
			up := channelStreamUpstream(t, release, seen)
			tester := testutil.NewTester(t, testutil.GlobalBlock("")+fmt.Sprintf(channelMeterCaddyfile, testutil.SitePort, channelMeterPayTo, up.Listener.Addr(), tc.claimEvery))
			cb := newChannelBuyer(t, tester, devnet.Buyer1PrivateKey, testutil.SiteURL+"/m/json", time.Now().UnixNano())
			sellerBefore := testutil.Balance(t, channelMeterPayTo)
			get := func(path string, max int64) (int, channelReceipt) {
				resp, _ := testutil.Get(t, tester, testutil.SiteURL+path, map[string]string{x402.HeaderPaymentSignature: cb.header(t, cb.voucher(t, cb.key, max))})
				return resp.StatusCode, channelReceiptOf(t, resp.Header.Get(x402.HeaderPaymentResponseV2))
			}
			resp, b := testutil.Get(t, tester, testutil.SiteURL+"/m/json?tokens=1", map[string]string{x402.HeaderPaymentSignature: cb.header(t, cb.deposit(t, 50000, 10000))})
			if resp.StatusCode != 200 || channelReceiptOf(t, resp.Header.Get(x402.HeaderPaymentResponseV2)).snapshot != "2" {
				t.Fatalf("deposit: %d %s", resp.StatusCode, b)
			}
			<-seen
			// A: reserves 10002, its answer (100 tokens: 200) held until release.
			type answer struct {
				status int
				rc     channelReceipt
			}
			a := make(chan answer, 1)
			go func() {
				st, rc := get("/m/sse?tokens=100", 10002)
				a <- answer{st, rc}
			}()
			if p := <-seen; p != "/sse" {
				t.Fatalf("upstream saw %q", p)
			}
			if tc.claimed {
				// The claim round while A is held claims the deposit's
				// charge (2, final), not A's reservation (10000 more).
				waitBalance(t, channelMeterPayTo, add(sellerBefore, 2))
				testutil.AssertDelta(t, "seller: the final charge claimed while A is held", sellerBefore, testutil.Balance(t, channelMeterPayTo), 2)
				if on := chainChannel(t, cb.id); on.TotalClaimed.Int64() != 2 {
					t.Fatalf("chain claimed %s while A is held, want 2 (the final charges)", on.TotalClaimed)
				}
			}
			// B, signed from the reservation: 3 tokens, 6.
			if st, rc := get("/m/json?tokens=3", 20002); st != 200 || rc.charged != "6" || rc.snapshot != "10008" {
				t.Fatalf("B: %d %+v", st, rc)
			}
			close(release)
			got := <-a
			want, next := channelReceipt{ok: true, charged: "200", snapshot: "208"}, int64(208)
			if got.status != 200 || got.rc != want {
				t.Fatalf("A: %d %+v, want %+v", got.status, got.rc, want)
			}
			// The next voucher, from A's receipt.
			if st, rc := get("/m/json?tokens=1", next+10000); st != 200 || rc.snapshot != fmt.Sprint(next+2) {
				t.Fatalf("next voucher: %d %+v", st, rc)
			}
			if tc.claimed {
				// The receipts: 2 + 200 + 6 + 2 = 210, claimed and paid
				// exactly; the store's charged is the same.
				waitBalance(t, channelMeterPayTo, add(sellerBefore, 210))
				testutil.AssertDelta(t, "seller after the claim rounds", sellerBefore, testutil.Balance(t, channelMeterPayTo), 210)
				if on := chainChannel(t, cb.id); on.TotalClaimed.Int64() != 210 {
					t.Errorf("chain claimed %s, want 210 (the receipts' sum)", on.TotalClaimed)
				}
				rec, err := activeChannels(t).Channel(context.Background(), strings.ToLower(cb.id.Hex()))
				if err != nil || rec == nil || rec.Charged.Int64() != 210 || rec.Claimed.Int64() != 210 {
					t.Errorf("record: %+v %v, want charged and claimed 210", rec, err)
				}
			}
		})
	}
}

// TestChannelMeterUpgrade: a connection the upstream takes over (101
// Switching Protocols) goes through on a channel route, metered or not,
// at the price (what goes through it cannot be metered), the receipt in
// the 101's header.
func TestChannelMeterUpgrade(t *testing.T) {
	up := channelStreamUpstream(t, nil, nil)
	tester := testutil.NewTester(t, testutil.GlobalBlock("")+fmt.Sprintf(channelMeterCaddyfile, testutil.SitePort, channelMeterPayTo, up.Listener.Addr(), "1m"))
	cb := newChannelBuyer(t, tester, devnet.Buyer1PrivateKey, testutil.SiteURL+"/m/json", time.Now().UnixNano())
	resp, b := testutil.Get(t, tester, testutil.SiteURL+"/m/json?tokens=1", map[string]string{x402.HeaderPaymentSignature: cb.header(t, cb.deposit(t, 50000, 10000))})
	if resp.StatusCode != 200 {
		t.Fatalf("deposit: %d %s", resp.StatusCode, b)
	}
	cumulative := int64(2)
	for _, path := range []string{"/m/ws", "/nometer/ws"} {
		conn, err := net.Dial("tcp", strings.TrimPrefix(testutil.SiteURL, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		_ = conn.SetDeadline(time.Now().Add(20 * time.Second))
		fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: localhost\r\nConnection: Upgrade\r\nUpgrade: echo\r\n%s: %s\r\n\r\n",
			path, x402.HeaderPaymentSignature, cb.header(t, cb.voucher(t, cb.key, cumulative+10000)))
		rd := bufio.NewReader(conn)
		resp, err := http.ReadResponse(rd, nil)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		cumulative += 10000
		rc := channelReceiptOf(t, resp.Header.Get(x402.HeaderPaymentResponseV2))
		if resp.StatusCode != http.StatusSwitchingProtocols || rc.charged != "10000" || rc.snapshot != fmt.Sprint(cumulative) {
			t.Fatalf("%s: %d %+v", path, resp.StatusCode, rc)
		}
		fmt.Fprint(conn, "hello\n")
		if line, err := rd.ReadString('\n'); err != nil || line != "echo: hello\n" {
			t.Fatalf("%s: through the connection: %q %v", path, line, err)
		}
	}
}

// TestChannelMeterPayCommand: "caddy x402 pay" on a metered channel route
// takes the metered chargedAmount into its channel record and signs its
// next voucher from it: each call is one payment, none corrected.
func TestChannelMeterPayCommand(t *testing.T) {
	up := channelStreamUpstream(t, nil, nil)
	testutil.NewTester(t, testutil.GlobalBlock("")+fmt.Sprintf(channelMeterCaddyfile, testutil.SitePort, channelMeterPayTo, up.Listener.Addr(), "1m"))
	o := x402cmd.PayOptions{Key: devnet.Buyer2PrivateKey, MaxAmount: "10000", Timeout: 30 * time.Second, Channels: t.TempDir(), ChannelSalt: fmt.Sprint(time.Now().UnixNano())}
	cumulative := 0
	for _, tc := range []struct {
		path   string
		charge int
	}{{"/m/json?tokens=5", 10}, {"/m/json?tokens=1234", 2468}, {"/m/header?o=" + url.QueryEscape(`{"amount":"0"}`), 0}, {"/m/json?tokens=99999", 10000}, {"/m/json?tokens=3", 6}} {
		var stdout, stderr strings.Builder
		if err := x402cmd.RunPay(t.Context(), testutil.SiteURL+tc.path, o, &stdout, &stderr); err != nil {
			t.Fatalf("%s: %v\n%s", tc.path, err, stderr.String())
		}
		cumulative += tc.charge
		want := fmt.Sprintf("x402: paid %d smallest units from channel ", tc.charge)
		if !strings.Contains(stderr.String(), want) || !strings.Contains(stderr.String(), fmt.Sprintf(": charged cumulative %d, ", cumulative)) ||
			strings.Contains(stderr.String(), "resynchronis") {
			t.Fatalf("%s: want %q and charged cumulative %d, no resynchronisation:\n%s", tc.path, want, cumulative, stderr.String())
		}
	}
}
