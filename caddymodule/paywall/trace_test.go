package paywall

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"
	coltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/caddy-x402/caddy-x402/caddymodule/internal/testutil"
	"github.com/caddy-x402/caddy-x402/facilitator/devnet"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// otlpReceiver is a real OTLP/HTTP receiver (POST /v1/traces, protobuf),
// keeping every span it is sent.
type otlpReceiver struct {
	mu    sync.Mutex
	spans []*tracepb.Span
}

func (o *otlpReceiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	var req coltrace.ExportTraceServiceRequest
	if r.URL.Path != "/v1/traces" || proto.Unmarshal(b, &req) != nil {
		http.Error(w, "want POST /v1/traces with an ExportTraceServiceRequest", http.StatusBadRequest)
		return
	}
	o.mu.Lock()
	for _, rs := range req.ResourceSpans {
		for _, ss := range rs.ScopeSpans {
			o.spans = append(o.spans, ss.Spans...)
		}
	}
	o.mu.Unlock()
	out, _ := proto.Marshal(&coltrace.ExportTraceServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	_, _ = w.Write(out)
}

// exportTraces has the Caddy of this test (its tracing's autoexport)
// send its spans by OTLP/HTTP to h, served until the test ends.
func exportTraces(t testing.TB, h http.Handler) {
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", srv.URL)
	t.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf")
	t.Setenv("OTEL_TRACES_EXPORTER", "otlp")
}

// trace waits until the trace id holds spans of every name in names (the
// batch exporter sends them soon after they end) and returns its spans.
func (o *otlpReceiver) trace(t *testing.T, id []byte, names ...string) []*tracepb.Span {
	t.Helper()
	for end := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		var got []*tracepb.Span
		have := map[string]bool{}
		o.mu.Lock()
		for _, s := range o.spans {
			if bytes.Equal(s.TraceId, id) {
				got = append(got, s)
				have[s.Name] = true
			}
		}
		o.mu.Unlock()
		missing := []string{}
		for _, n := range names {
			if !have[n] {
				missing = append(missing, n)
			}
		}
		if len(missing) == 0 {
			return got
		}
		if time.Now().After(end) {
			t.Fatalf("trace %x: no span %v among %s", id, missing, spanNames(got))
		}
	}
}

// rooted waits for a trace whose root span is named root and that holds a
// span named child with a transaction, and returns the two.
func (o *otlpReceiver) rooted(t *testing.T, root, child string) (*tracepb.Span, *tracepb.Span) {
	t.Helper()
	for end := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		o.mu.Lock()
		for _, r := range o.spans {
			if r.Name != root || len(r.ParentSpanId) != 0 {
				continue
			}
			for _, c := range o.spans {
				if c.Name == child && bytes.Equal(c.TraceId, r.TraceId) && attrs(c)["x402.transaction"] != "" {
					o.mu.Unlock()
					return r, c
				}
			}
		}
		o.mu.Unlock()
		if time.Now().After(end) {
			t.Fatalf("no trace rooted at %s with a %s that has a transaction", root, child)
		}
	}
}

func spanNames(spans []*tracepb.Span) string {
	var n []string
	for _, s := range spans {
		n = append(n, s.Name)
	}
	return strings.Join(n, ", ")
}

// named is the one span of spans named name.
func named(t *testing.T, spans []*tracepb.Span, name string) *tracepb.Span {
	t.Helper()
	var found *tracepb.Span
	for _, s := range spans {
		if s.Name == name {
			if found != nil {
				t.Fatalf("two spans named %s", name)
			}
			found = s
		}
	}
	if found == nil {
		t.Fatalf("no span named %s among %s", name, spanNames(spans))
	}
	return found
}

// attrs is a span's string attributes.
func attrs(s *tracepb.Span) map[string]string {
	m := map[string]string{}
	for _, kv := range s.Attributes {
		m[kv.Key] = kv.Value.GetStringValue()
	}
	return m
}

// wantAttrs checks the x402.* and error.type attributes of s exactly, and
// its status (error when error.type is set).
func wantAttrs(t *testing.T, s *tracepb.Span, want map[string]string) {
	t.Helper()
	got := map[string]string{}
	for k, v := range attrs(s) {
		if strings.HasPrefix(k, "x402.") || k == "error.type" {
			got[k] = v
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("span %s: attributes\n%v, want\n%v", s.Name, got, want)
	}
	wantErr := want["error.type"] != ""
	if isErr := s.GetStatus().GetCode() == tracepb.Status_STATUS_CODE_ERROR; isErr != wantErr {
		t.Errorf("span %s: status %v, want error %v", s.Name, s.GetStatus(), wantErr)
	}
}

// under checks that child's parent is parent.
func under(t *testing.T, child, parent *tracepb.Span) {
	t.Helper()
	if !bytes.Equal(child.ParentSpanId, parent.SpanId) {
		t.Errorf("span %s is not under %s", child.Name, parent.Name)
	}
}

// traceparent is a W3C traceparent of a new sampled trace, and its id.
func traceparent(t *testing.T) (string, []byte) {
	id, parent := make([]byte, 16), make([]byte, 8)
	if _, err := rand.Read(id); err != nil {
		t.Fatal(err)
	}
	_, _ = rand.Read(parent)
	return fmt.Sprintf("00-%x-%x-01", id, parent), id
}

// serverSpan is Caddy's server span of a trace sent with a traceparent:
// the span whose parent is the caller's.
func serverSpan(t *testing.T, spans []*tracepb.Span, tp string) *tracepb.Span {
	t.Helper()
	parent, _ := hex.DecodeString(strings.Split(tp, "-")[2])
	for _, s := range spans {
		if bytes.Equal(s.ParentSpanId, parent) && s.Kind == tracepb.Span_SPAN_KIND_SERVER {
			return s
		}
	}
	t.Fatalf("no server span under the traceparent among %s", spanNames(spans))
	return nil
}

const tracingCaddyfile = `
:%[1]d {
	tracing
	handle /paid {
		x402 {
			pay_to %[3]s
			amount 1000
			label traced
		}
		respond "{http.x402.tx_hash}"
	}
	handle /channel {
		x402 {
			pay_to %[3]s
			amount 1000
			scheme batch-settlement
			label traced-channel
			claim_every 1s
		}
		respond "paid content"
	}
	handle_path /upto/* {
		x402 {
			pay_to %[3]s
			price 0.01
			scheme upto
			label traced-upto
			meter json usage.total_tokens 0.000002
		}
		reverse_proxy %[5]s
	}
	handle /remote {
		x402 {
			pay_to %[3]s
			amount 1000
			label traced-remote
			facilitator http://127.0.0.1:%[2]d
		}
		respond "{http.x402.tx_hash}"
	}
	handle /mcp {
		x402 {
			pay_to %[3]s
			network eip155:338
			label traced-mcp
			mcp_tool weather 0.01
		}
		reverse_proxy %[4]s
	}
}
:%[2]d {
	tracing
	x402_facilitator
}
`

// TestTracing: under Caddy's `tracing`, exported by OTLP/HTTP to a
// receiver the test runs, a paid exact request sent with a traceparent
// has the paywall's, the facilitator's and the engine's spans under
// Caddy's server span, one with the settlement's transaction; an unpaid
// 402, a refused payment (its reason), the facilitator API's settle and a
// channel's voucher and corrective 402 have theirs. No attribute carries
// the payment header or a signature.
func TestTracing(t *testing.T) {
	rcv := &otlpReceiver{}
	exportTraces(t, rcv)
	t.Setenv("OTEL_BSP_SCHEDULE_DELAY", "50")
	const payTo = "0x0000000000000000000000000000000000007ACE"
	_, mcpUp := newMCPServer(t)
	metered := meteredUpstream(t, nil)
	tester := testutil.NewTester(t, testutil.GlobalBlock("")+fmt.Sprintf(tracingCaddyfile, testutil.SitePort, testutil.FacPort, payTo, mcpUp.URL,
		metered.Listener.Addr()))
	u := testutil.SiteURL + "/paid"
	network := devnet.Network
	var headers []string // every payment header sent: none may be in an attribute

	// An unpaid request: the quote, no error.
	tp, id := traceparent(t)
	resp, b := testutil.Get(t, tester, u, map[string]string{"traceparent": tp})
	if resp.StatusCode != http.StatusPaymentRequired {
		t.Fatalf("unpaid: %d %s", resp.StatusCode, b)
	}
	spans := rcv.trace(t, id, spanPaywall, spanQuote)
	pw := named(t, spans, spanPaywall)
	under(t, pw, serverSpan(t, spans, tp))
	under(t, named(t, spans, spanQuote), pw)
	wantAttrs(t, pw, map[string]string{"x402.route": "traced", "x402.scheme": "exact", "x402.network": network, "x402.amount": "1000"})
	wantAttrs(t, named(t, spans, spanQuote), map[string]string{})

	// A paid request: every step, the transaction.
	reqs := testutil.Require402(t, tester, u).Accepts[0]
	buyer := testutil.BuyerKey(t, devnet.Buyer2PrivateKey)
	payer := crypto.PubkeyToAddress(buyer.PublicKey).Hex()
	header := testutil.Pay(t, buyer, reqs)
	headers = append(headers, header)
	tp, id = traceparent(t)
	resp, b = testutil.Get(t, tester, u, map[string]string{"traceparent": tp, "X-PAYMENT": header})
	tx := string(b)
	if resp.StatusCode != http.StatusOK || len(tx) != 66 {
		t.Fatalf("paid: %d %s", resp.StatusCode, b)
	}
	spans = rcv.trace(t, id, spanPaywall, spanVerify, "x402.facilitator.verify", "x402.check", "x402.chain_reads", spanClaim, spanRecord,
		spanSettle, "x402.facilitator.settle", "x402.broadcast", "x402.receipt_wait", spanAnswer, spanUpstream)
	pw = named(t, spans, spanPaywall)
	under(t, pw, serverSpan(t, spans, tp))
	wantAttrs(t, pw, map[string]string{"x402.route": "traced", "x402.scheme": "exact", "x402.network": network, "x402.amount": "1000",
		"x402.payer": payer, "x402.transaction": tx})
	verify, fverify := named(t, spans, spanVerify), named(t, spans, "x402.facilitator.verify")
	under(t, verify, pw)
	under(t, fverify, verify)
	wantAttrs(t, verify, map[string]string{}) // a v1 verify answer names no payer
	wantAttrs(t, fverify, map[string]string{"x402.scheme": "exact", "x402.network": network, "x402.amount": "1000", "x402.payer": payer})
	under(t, named(t, spans, spanClaim), pw)
	under(t, named(t, spans, spanUpstream), pw)
	settle, fsettle := named(t, spans, spanSettle), named(t, spans, "x402.facilitator.settle")
	under(t, settle, pw)
	under(t, fsettle, settle)
	wantAttrs(t, settle, map[string]string{"x402.payer": payer, "x402.transaction": tx})
	wantAttrs(t, fsettle, map[string]string{"x402.scheme": "exact", "x402.network": network, "x402.amount": "1000", "x402.payer": payer, "x402.transaction": tx})
	for _, n := range []string{"x402.broadcast", "x402.receipt_wait"} {
		s := named(t, spans, n)
		under(t, s, fsettle)
		wantAttrs(t, s, map[string]string{"x402.transaction": tx})
	}
	wantAttrs(t, named(t, spans, spanAnswer), map[string]string{"x402.transaction": tx})
	records := 0
	for _, s := range spans {
		if s.Name == spanRecord {
			records++
			under(t, s, pw)
		}
	}
	if records != 2 {
		t.Errorf("%d record spans, want 2 (settling, paid)", records)
	}

	// A refused payment: a payer without funds; its reason on the
	// paywall's span and the verify's.
	poor, _ := crypto.GenerateKey()
	header = testutil.Pay(t, poor, reqs)
	headers = append(headers, header)
	tp, id = traceparent(t)
	resp, b = testutil.Get(t, tester, u, map[string]string{"traceparent": tp, "X-PAYMENT": header})
	if resp.StatusCode != http.StatusPaymentRequired || !strings.Contains(string(b), `"invalidReason":"`+x402.ErrTextInsufficientFunds+`"`) {
		t.Fatalf("unfunded: %d %s", resp.StatusCode, b)
	}
	spans = rcv.trace(t, id, spanPaywall, spanVerify, spanQuote)
	poorAddr := crypto.PubkeyToAddress(poor.PublicKey).Hex()
	wantAttrs(t, named(t, spans, spanPaywall), map[string]string{"x402.route": "traced", "x402.scheme": "exact", "x402.network": network,
		"x402.amount": "1000", "x402.payer": poorAddr, "error.type": "insufficient_funds"})
	wantAttrs(t, named(t, spans, spanVerify), map[string]string{"error.type": "insufficient_funds"})
	wantAttrs(t, named(t, spans, "x402.facilitator.verify"), map[string]string{"x402.scheme": "exact", "x402.network": network,
		"x402.amount": "1000", "x402.payer": poorAddr, "error.type": "insufficient_funds"})

	// The facilitator API's settle.
	header = testutil.Pay(t, buyer, reqs)
	headers = append(headers, header)
	body, _ := json.Marshal(x402.Request{X402Version: 1, PaymentHeader: header, PaymentRequirements: reqs})
	tp, id = traceparent(t)
	req, _ := http.NewRequest(http.MethodPost, fmt.Sprintf("http://localhost:%d%s", testutil.FacPort, x402.PathSettle), bytes.NewReader(body))
	req.Header.Set("traceparent", tp)
	req.Header.Set("Content-Type", "application/json")
	fresp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var sr x402.SettleResponse
	err = json.NewDecoder(fresp.Body).Decode(&sr)
	fresp.Body.Close()
	if err != nil || fresp.StatusCode != http.StatusOK || !sr.Settled() {
		t.Fatalf("POST %s: %d %+v %v", x402.PathSettle, fresp.StatusCode, sr, err)
	}
	spans = rcv.trace(t, id, "x402.facilitator.api", "x402.facilitator.settle", "x402.broadcast", "x402.receipt_wait")
	api := named(t, spans, "x402.facilitator.api")
	under(t, api, serverSpan(t, spans, tp))
	wantAttrs(t, api, map[string]string{"x402.route": x402.PathSettle})
	fsettle = named(t, spans, "x402.facilitator.settle")
	under(t, fsettle, api)
	wantAttrs(t, fsettle, map[string]string{"x402.scheme": "exact", "x402.network": network, "x402.amount": "1000", "x402.payer": payer, "x402.transaction": sr.TxHash})

	// A channel: the deposit, then a voucher (its charge), then the same
	// voucher again (the corrective 402).
	cu := testutil.SiteURL + "/channel"
	cb := newChannelBuyer(t, tester, devnet.Buyer1PrivateKey, cu, time.Now().UnixNano())
	chPayer := cb.cfg.Payer.Hex()
	send := func(payload map[string]any, want int) []byte {
		t.Helper()
		h := cb.header(t, payload)
		headers = append(headers, h)
		tp, id := traceparent(t)
		resp, b := testutil.Get(t, tester, cu, map[string]string{"traceparent": tp, x402.HeaderPaymentSignature: h})
		if resp.StatusCode != want {
			t.Fatalf("channel payload %v: %d %s, want %d", payload["type"], resp.StatusCode, b, want)
		}
		return id
	}
	send(cb.deposit(t, 10000, 1000), http.StatusOK)
	id = send(cb.voucher(t, cb.key, 2000), http.StatusOK)
	spans = rcv.trace(t, id, spanPaywall, spanVoucher, spanUpstream)
	pw = named(t, spans, spanPaywall)
	wantAttrs(t, pw, map[string]string{"x402.route": "traced-channel", "x402.scheme": "batch-settlement", "x402.network": network,
		"x402.amount": "1000", "x402.payer": chPayer, "x402.charged": "1000"})
	under(t, named(t, spans, spanVoucher), pw)
	wantAttrs(t, named(t, spans, spanVoucher), map[string]string{"x402.payer": chPayer, "x402.charged": "1000"})
	id = send(cb.voucher(t, cb.key, 2000), http.StatusPaymentRequired)
	spans = rcv.trace(t, id, spanPaywall, spanVoucher)
	wantAttrs(t, named(t, spans, spanPaywall), map[string]string{"x402.route": "traced-channel", "x402.scheme": "batch-settlement", "x402.network": network,
		"x402.amount": "1000", "x402.payer": chPayer, "error.type": reasonCumulativeMismatch})

	// The claim round: a trace of its own (the route's last traced
	// request's provider), its claim settled by the facilitator in it.
	round, fsettle := rcv.rooted(t, "x402.channel.claim", "x402.facilitator.settle")
	wantAttrs(t, round, map[string]string{"x402.route": "traced-channel", "x402.scheme": "batch-settlement", "x402.network": network})
	if a := attrs(fsettle); a["x402.scheme"] != "batch-settlement" || len(a["x402.transaction"]) != 66 {
		t.Errorf("the claim's settle: %v", a)
	}

	// An upto payment: its maximum asked, its charge metered from the
	// answer (1234 tokens at 2 units) and settled.
	uptoBuyer := testutil.BuyerKey(t, devnet.Buyer4PrivateKey)
	approvePermit2(t, uptoBuyer)
	uu := testutil.SiteURL + "/upto/json?tokens=1234"
	header = payUpto(t, tester, uptoBuyer, uu)
	headers = append(headers, header)
	tp, id = traceparent(t)
	resp, b = testutil.Get(t, tester, uu, map[string]string{"traceparent": tp, x402.HeaderPaymentSignature: header})
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(b), `"answer":"42"`) {
		t.Fatalf("upto: %d %s", resp.StatusCode, b)
	}
	spans = rcv.trace(t, id, spanPaywall, spanVerify, "x402.facilitator.reserve", spanUpstream, spanMeter, spanSettle, "x402.facilitator.settle", "x402.broadcast")
	pw = named(t, spans, spanPaywall)
	utx := attrs(pw)["x402.transaction"]
	uptoPayer := crypto.PubkeyToAddress(uptoBuyer.PublicKey).Hex()
	wantAttrs(t, pw, map[string]string{"x402.route": "traced-upto", "x402.scheme": "upto", "x402.network": network, "x402.amount": "10000",
		"x402.payer": uptoPayer, "x402.charged": "2468", "x402.transaction": utx})
	if len(utx) != 66 {
		t.Errorf("upto transaction %q", utx)
	}
	under(t, named(t, spans, spanUpstream), pw)
	under(t, named(t, spans, spanMeter), pw)
	wantAttrs(t, named(t, spans, "x402.facilitator.settle"), map[string]string{"x402.charged": "2468", "x402.payer": uptoPayer, "x402.transaction": utx})

	// A route with a remote facilitator (this Caddy's x402_facilitator):
	// the trace goes on over HTTP, the facilitator's server span under
	// the paywall's settle.
	ru := testutil.SiteURL + "/remote"
	header = testutil.Pay(t, buyer, testutil.Require402(t, tester, ru).Accepts[0])
	headers = append(headers, header)
	tp, id = traceparent(t)
	resp, b = testutil.Get(t, tester, ru, map[string]string{"traceparent": tp, "X-PAYMENT": header})
	if resp.StatusCode != http.StatusOK || len(b) != 66 {
		t.Fatalf("paid at the remote route: %d %s", resp.StatusCode, b)
	}
	spans = rcv.trace(t, id, spanPaywall, spanSettle, "x402.facilitator.api", "x402.facilitator.settle", "x402.broadcast")
	settle = named(t, spans, spanSettle)
	wantAttrs(t, settle, map[string]string{"x402.payer": payer, "x402.transaction": string(b)})
	var remoteServer *tracepb.Span
	for _, s := range spans {
		if bytes.Equal(s.ParentSpanId, settle.SpanId) && s.Kind == tracepb.Span_SPAN_KIND_SERVER {
			remoteServer = s
		}
	}
	if remoteServer == nil {
		t.Fatalf("no server span of the facilitator under the paywall's settle among %s", spanNames(spans))
	}
	var remoteAPI *tracepb.Span
	for _, s := range spans {
		if s.Name == "x402.facilitator.api" && bytes.Equal(s.ParentSpanId, remoteServer.SpanId) {
			remoteAPI = s
		}
	}
	if remoteAPI == nil {
		t.Fatal("no x402.facilitator.api under the facilitator's server span")
	}
	wantAttrs(t, remoteAPI, map[string]string{"x402.route": x402.PathSettle})
	under(t, named(t, spans, "x402.facilitator.settle"), remoteAPI)

	// A priced MCP tool call: its span as the MCP conventions name it,
	// the paywall's under it (settle after, the default with mcp_tool).
	mu := testutil.SiteURL + "/mcp"
	_, raw, m := mcpPost(t, tester, mu, toolCall(6, "weather", `{"city":"Oslo"}`, ""), nil)
	var pr x402.PaymentRequiredV2
	if err := json.Unmarshal(resultOf(t, m, raw).StructuredContent, &pr); err != nil || len(pr.Accepts) != 1 {
		t.Fatalf("unpaid tool call: %v %s", err, raw)
	}
	payment := mcpPay(t, pr, devnet.Buyer2PrivateKey)
	headers = append(headers, payment)
	tp, id = traceparent(t)
	resp, raw, m = mcpPost(t, tester, mu, toolCall(7, "weather", `{"city":"Oslo"}`, `{"x402/payment":`+payment+`}`), map[string]string{"traceparent": tp})
	if r := resultOf(t, m, raw); resp.StatusCode != http.StatusOK || r.IsError {
		t.Fatalf("paid tool call: %d %s", resp.StatusCode, raw)
	}
	spans = rcv.trace(t, id, "tools/call weather", spanPaywall, spanVerify, spanSettle, spanUpstream)
	call := named(t, spans, "tools/call weather")
	under(t, call, serverSpan(t, spans, tp))
	if a := attrs(call); a["mcp.method.name"] != "tools/call" || a["gen_ai.tool.name"] != "weather" || a["jsonrpc.request.id"] != "7" ||
		a["gen_ai.operation.name"] != "execute_tool" {
		t.Errorf("tool call span: %v", a)
	}
	pw = named(t, spans, spanPaywall)
	under(t, pw, call)
	mtx := attrs(pw)["x402.transaction"]
	wantAttrs(t, pw, map[string]string{"x402.route": "traced-mcp", "x402.scheme": "exact", "x402.network": network, "x402.amount": "10000",
		"x402.payer": payer, "x402.transaction": mtx})
	if len(mtx) != 66 {
		t.Errorf("tool call's transaction %q", mtx)
	}

	// No attribute holds a payment header, or is about a signature.
	rcv.mu.Lock()
	defer rcv.mu.Unlock()
	for _, s := range rcv.spans {
		for k, v := range attrs(s) {
			for _, h := range headers {
				if strings.Contains(v, h) || strings.Contains(strings.ToLower(k), "signature") {
					t.Errorf("span %s: attribute %s = %q", s.Name, k, v)
				}
			}
		}
	}
}
