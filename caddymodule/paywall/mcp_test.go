package paywall

import (
	"bytes"
	"compress/flate"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"crypto/ecdsa"
	"math/big"

	"github.com/caddyserver/caddy/v2/caddyconfig"
	"github.com/caddyserver/caddy/v2/caddytest"
	"github.com/ethereum/go-ethereum/accounts/abi/bind"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/caddy-x402/caddy-x402/caddymodule/internal/testutil"
	"github.com/caddy-x402/caddy-x402/caddymodule/paywall/mcp"
	"github.com/caddy-x402/caddy-x402/caddymodule/x402cmd"
	"github.com/caddy-x402/caddy-x402/facilitator"
	"github.com/caddy-x402/caddy-x402/facilitator/devnet"
	"github.com/caddy-x402/caddy-x402/facilitator/exact"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// mcpServer is a small MCP server (streamable HTTP): it answers in JSON,
// or as an event stream (a progress notification, then the response)
// under a path with sse/. It keeps every request body and header it got.
type mcpServer struct {
	mu      sync.Mutex
	bodies  []string
	headers []http.Header
	calls   map[string]int // tools/call by tool name
	hook    func()         // run by the next tools/call, then cleared
}

func newMCPServer(t *testing.T) (*mcpServer, *httptest.Server) {
	s := &mcpServer{calls: map[string]int{}}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return s, srv
}

func (s *mcpServer) called(tool string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls[tool]
}

func (s *mcpServer) last() (string, http.Header) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.bodies[len(s.bodies)-1], s.headers[len(s.headers)-1]
}

func (s *mcpServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("X-Saw-Last-Event-Id", r.Header.Get("Last-Event-ID"))
		fmt.Fprintf(w, "%s passed", r.Method)
		return
	}
	b, _ := io.ReadAll(r.Body)
	var msg struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			Name      string         `json:"name"`
			Arguments map[string]any `json:"arguments"`
		} `json:"params"`
	}
	_ = json.Unmarshal(b, &msg)
	s.mu.Lock()
	s.bodies = append(s.bodies, string(b))
	s.headers = append(s.headers, r.Header.Clone())
	hook := s.hook
	if msg.Method == "tools/call" {
		s.calls[msg.Params.Name]++
		s.hook = nil
	}
	s.mu.Unlock()
	if hook != nil && msg.Method == "tools/call" {
		hook()
	}
	w.Header().Set("Mcp-Session-Id", "sess-1")
	w.Header().Set("X-Saw-Session", r.Header.Get("Mcp-Session-Id"))
	var result string
	switch msg.Method {
	case "initialize":
		result = `{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"test","version":"1"}}`
	case "tools/list":
		result = `{"tools":[{"name":"weather","description":"Weather by city","inputSchema":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}},` +
			`{"name":"broken","inputSchema":{"type":"object"}},{"name":"echo","inputSchema":{"type":"object"}}]}`
	case "tools/call":
		switch msg.Params.Name {
		case "weather":
			result = fmt.Sprintf(`{"content":[{"type":"text","text":"sunny in %v"}]}`, msg.Params.Arguments["city"])
		case "zipped":
			result = `{"content":[{"type":"text","text":"compressed secret"}]}`
		case "huge":
			result = `{"content":[{"type":"text","text":"` + strings.Repeat("x", 5000) + `"}]}`
		case "flaky":
			if s.calls["flaky"]%2 == 1 { // fails every other call
				fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32603,"message":"temporarily unavailable"}}`, msg.ID)
				return
			}
			result = `{"content":[{"type":"text","text":"flaky ok"}]}`
		case "broken":
			result = `{"content":[{"type":"text","text":"the weather service is down"}],"isError":true}`
		default:
			result = `{"content":[{"type":"text","text":"free"}]}`
		}
	default:
		w.WriteHeader(http.StatusAccepted) // a notification
		return
	}
	resp := fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, msg.ID, result)
	if msg.Params.Name == "zipped" {
		// A server that compresses whatever the client asked for, in
		// an encoding the proxy does not decode.
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Encoding", "deflate")
		zw, _ := flate.NewWriter(w, flate.BestSpeed)
		fmt.Fprint(zw, resp)
		zw.Close()
		return
	}
	if strings.Contains(r.URL.Path, "sse/") {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progress\":1}}\n\n")
		w.(http.Flusher).Flush()
		fmt.Fprintf(w, "event: message\ndata: %s\n\n", resp)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprint(w, resp)
}

// mcpPost posts a JSON-RPC body and returns the answer and the JSON-RPC
// response in it (from the event stream when the answer is one).
func mcpPost(t *testing.T, tester *caddytest.Tester, url, body string, hdr map[string]string) (*http.Response, []byte, map[string]json.RawMessage) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := tester.Client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	raw := b
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		raw = nil
		for _, line := range strings.Split(string(b), "\n") {
			if d, ok := strings.CutPrefix(line, "data: "); ok && (strings.Contains(d, `"result"`) || strings.Contains(d, `"error"`)) {
				raw = []byte(d)
			}
		}
	}
	var m map[string]json.RawMessage
	_ = json.Unmarshal(raw, &m)
	return resp, b, m
}

func toolCall(id int, tool string, args string, meta string) string {
	p := fmt.Sprintf(`{"name":%q,"arguments":%s`, tool, args)
	if meta != "" {
		p += `,"_meta":` + meta
	}
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":%s}}`, id, p)
}

// mcpResult is a tool result as the tests read it.
type mcpResult struct {
	IsError           bool            `json:"isError"`
	StructuredContent json.RawMessage `json:"structuredContent"`
	Content           []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	Meta map[string]json.RawMessage `json:"_meta"`
}

func resultOf(t *testing.T, m map[string]json.RawMessage, raw []byte) mcpResult {
	t.Helper()
	var r mcpResult
	if err := json.Unmarshal(m["result"], &r); err != nil || m["result"] == nil {
		t.Fatalf("no JSON-RPC result in %s", raw)
	}
	return r
}

// mcpPaymentRequired checks an unpaid or refused call's result: isError,
// structuredContent the PaymentRequired with errText, content[0].text
// the same JSON. It returns the PaymentRequired.
func mcpPaymentRequired(t *testing.T, resp *http.Response, raw []byte, m map[string]json.RawMessage, payTo, amount, errText string) x402.PaymentRequiredV2 {
	t.Helper()
	return mcpPaymentRequiredFor(t, resp, raw, m, "weather", "Weather by city", payTo, amount, errText)
}

// mcpPaymentRequiredFor is mcpPaymentRequired for any tool; description
// "" is the default one ("Tool: <name>").
func mcpPaymentRequiredFor(t *testing.T, resp *http.Response, raw []byte, m map[string]json.RawMessage, tool, description, payTo, amount, errText string) x402.PaymentRequiredV2 {
	t.Helper()
	undescribed := description == ""
	if undescribed {
		description = "Tool: " + tool
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d, want 200: %s", resp.StatusCode, raw)
	}
	r := resultOf(t, m, raw)
	if !r.IsError || len(r.Content) != 1 || r.Content[0].Type != "text" || r.Content[0].Text != string(r.StructuredContent) {
		t.Fatalf("not a PaymentRequired result (isError, content[0].text = structuredContent): %s", raw)
	}
	var pr x402.PaymentRequiredV2
	if err := json.Unmarshal(r.StructuredContent, &pr); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf(`{"x402Version":2,"error":%q,"resource":{"url":"mcp://tool/%s","description":%q,"mimeType":"application/json"},`+
		`"accepts":[{"scheme":"exact","network":"eip155:338","amount":"%s","asset":"%s","payTo":"%s","maxTimeoutSeconds":300,"extra":{"name":"%s","version":"%s"}}]`,
		errText, tool, description, amount, devnet.TokenAddress.Hex(), payTo, devnet.TokenName, devnet.TokenVersion)
	if !strings.HasPrefix(string(r.StructuredContent), want) {
		t.Errorf("PaymentRequired:\n got %s\nwant %s...", r.StructuredContent, want)
	}
	var ext struct {
		Extensions map[string]json.RawMessage `json:"extensions"`
	}
	_ = json.Unmarshal(r.StructuredContent, &ext)
	if tool == "weather" && undescribed { // the /down route, with discovery off, declares nothing
		if ext.Extensions[x402.ExtBazaar] != nil {
			t.Errorf("a route with discovery off declared its tool: %s", ext.Extensions[x402.ExtBazaar])
		}
	} else if _, _, err := facilitator.ValidateBazaar(ext.Extensions[x402.ExtBazaar]); err != nil {
		t.Errorf("the bazaar declaration is not valid: %v: %s", err, ext.Extensions[x402.ExtBazaar])
	}
	return pr
}

// mcpPay signs the PaymentRequired's first option and returns the
// PaymentPayload's JSON.
func mcpPay(t *testing.T, pr x402.PaymentRequiredV2, buyer string) string {
	t.Helper()
	header, _, err := exact.CreatePaymentV2(testutil.BuyerKey(t, buyer), pr.Accepts[0], pr.Resource, exact.PaymentOptions{})
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := x402.DecodeBase64(header)
	return string(raw)
}

// TestMCP charges per tool call in front of an MCP server (JSON and event
// stream answers, settle before and after) through a real Caddy and the
// devnet: the unpaid call gets the PaymentRequired result, the paid one
// the tool's result with the settlement in _meta and the price moved
// once, the server never sees the payment; the same payment again, and a
// failed tool after, move nothing; free methods and tools are free; a
// body too large and a batch with a priced call are refused clearly.
func TestMCP(t *testing.T) {
	server, up := newMCPServer(t)
	const payBefore, payAfter = "0x3c9e3c9e3c9e3c9e3c9e3c9e3c9e3c9e3c9e3c91", "0x3c9e3c9e3c9e3c9e3c9e3c9e3c9e3c9e3c9e3c92"
	tester := testutil.NewTester(t, testutil.GlobalBlock("")+fmt.Sprintf(`
:%d {
	@before path /json/* /sse/*
	x402 @before {
		pay_to %[2]s
		network eip155:338
		settle before
		mcp_tool weather 0.01
		mcp_tool broken 0.02
		mcp_tool flaky 0.01
		mcp_max_body 4KiB
	}
	@after path /after-json/* /after-sse/*
	x402 @after {
		pay_to %[3]s
		network eip155:338
		mcp_tool weather 0.01
		mcp_tool broken 0.02 {
			description "Always fails"
			input_schema `+"`"+`{"type":"object","properties":{"day":{"type":"string"}}}`+"`"+`
		}
		mcp_tool huge 0.01
		mcp_tool zipped 0.01
		mcp_max_answer 2KiB
	}
	x402_facilitator
	@down path /down/*
	x402 @down {
		pay_to %[2]s
		network eip155:338
		label down
		discovery off
		settle before
		mcp_tool weather 0.01
	}
	reverse_proxy @down 127.0.0.1:%[5]d
	reverse_proxy %[4]s
}
`, testutil.SitePort, payBefore, payAfter, up.URL, testutil.FreePort(t)))

	// tools/list passes free, with each priced tool's accepts in its
	// _meta, and teaches the route the tools' descriptions and schemas.
	for _, path := range []string{"/json/mcp", "/sse/mcp", "/after-json/mcp"} {
		resp, raw, m := mcpPost(t, tester, testutil.SiteURL+path, `{"jsonrpc":"2.0","id":"l","method":"tools/list"}`, nil)
		var list struct {
			Tools []struct {
				Name string                     `json:"name"`
				Meta map[string]json.RawMessage `json:"_meta"`
			} `json:"tools"`
		}
		if resp.StatusCode != 200 || json.Unmarshal(m["result"], &list) != nil || len(list.Tools) != 3 {
			t.Fatalf("tools/list %s: %d %s", path, resp.StatusCode, raw)
		}
		payTo := payBefore
		if strings.HasPrefix(path, "/after") {
			payTo = payAfter
		}
		wantAccepts := fmt.Sprintf(`[{"scheme":"exact","network":"eip155:338","amount":"10000","asset":"%s","payTo":"%s","maxTimeoutSeconds":300,"extra":{"name":"%s","version":"%s"}}]`,
			devnet.TokenAddress.Hex(), payTo, devnet.TokenName, devnet.TokenVersion)
		if got := string(list.Tools[0].Meta[mcp.MetaAccepts]); got != wantAccepts {
			t.Errorf("tools/list %s: weather's _meta[x402/accepts] = %s, want %s", path, got, wantAccepts)
		}
		if list.Tools[2].Meta != nil {
			t.Errorf("tools/list %s: the free tool got _meta %v", path, list.Tools[2].Meta)
		}
	}

	buyer := devnet.Buyer3PrivateKey
	metricsBefore := testutil.Scrape(t) // the counters outlive a test run (-count)
	buyerAddr := crypto.PubkeyToAddress(testutil.BuyerKey(t, buyer).PublicKey).Hex()
	for _, c := range []struct {
		path, payTo string
		after       bool
	}{
		{"/json/mcp", payBefore, false},
		{"/sse/mcp", payBefore, false},
		{"/after-json/mcp", payAfter, true},
		{"/after-sse/mcp", payAfter, true},
	} {
		t.Run(strings.ReplaceAll(c.path, "/", "_"), func(t *testing.T) {
			url := testutil.SiteURL + c.path
			ran := server.called("weather")
			before := testutil.Balance(t, c.payTo)

			// Unpaid: the PaymentRequired result, HTTP 200; the tool does not run.
			resp, raw, m := mcpPost(t, tester, url, toolCall(1, "weather", `{"city":"Oslo"}`, ""), nil)
			pr := mcpPaymentRequired(t, resp, raw, m, c.payTo, "10000", mcp.TextPaymentRequired)
			if string(m["id"]) != "1" || server.called("weather") != ran {
				t.Fatalf("unpaid call: id %s, tool ran %d times", m["id"], server.called("weather")-ran)
			}

			// Paid in _meta (beside another _meta key): the tool's result
			// with the settlement; the server never sees the payment.
			payment := mcpPay(t, pr, buyer)
			resp, raw, m = mcpPost(t, tester, url, toolCall(2, "weather", `{"city":"Oslo"}`, `{"progressToken":7,"x402/payment":`+payment+`}`),
				map[string]string{"Mcp-Session-Id": "sess-1"})
			r := resultOf(t, m, raw)
			if resp.StatusCode != 200 || r.IsError || len(r.Content) != 1 || r.Content[0].Text != "sunny in Oslo" {
				t.Fatalf("paid call: %d %s", resp.StatusCode, raw)
			}
			var sr x402.ReferenceSettleResponse
			if err := json.Unmarshal(r.Meta[mcp.MetaPaymentResponse], &sr); err != nil || !sr.Success || sr.Network != "eip155:338" ||
				!strings.EqualFold(sr.Payer, buyerAddr) || len(sr.Transaction) != 66 || sr.Amount != "10000" {
				t.Errorf("_meta[x402/payment-response] = %s", r.Meta[mcp.MetaPaymentResponse])
			}
			if resp.Header.Get("Payment-Response") == "" || resp.Header.Get("X-Saw-Session") != "sess-1" || resp.Header.Get("Mcp-Session-Id") != "sess-1" {
				t.Errorf("headers of the paid answer: %v", resp.Header)
			}
			if strings.Contains(c.path, "sse/") {
				if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" || !strings.Contains(string(raw), "notifications/progress") {
					t.Errorf("the event stream was not passed on as one: %s %s", ct, raw)
				}
			}
			body, hdr := server.last()
			if strings.Contains(body, "x402/payment") || !strings.Contains(body, `"_meta":{"progressToken":7}`) ||
				hdr.Get("Payment-Signature") != "" || hdr.Get("X-Payment") != "" {
				t.Errorf("the server saw the payment: %s %v", body, hdr)
			}
			testutil.AssertDelta(t, "seller", before, testutil.Balance(t, c.payTo), 10000)

			// The same payment again moves nothing, and runs nothing.
			ran = server.called("weather")
			resp, raw, m = mcpPost(t, tester, url, toolCall(3, "weather", `{"city":"Oslo"}`, `{"x402/payment":`+payment+`}`), nil)
			mcpPaymentRequired(t, resp, raw, m, c.payTo, "10000", x402.ErrTextAlreadyUsed)
			if server.called("weather") != ran {
				t.Errorf("the same payment ran the tool again")
			}
			testutil.AssertDelta(t, "seller", before, testutil.Balance(t, c.payTo), 10000)

			// A tool that fails: settled before it ran (settle before), or
			// not at all (settle after); its result goes back either way.
			resp, raw, m = mcpPost(t, tester, url, toolCall(4, "broken", `{}`, ""), nil)
			r = resultOf(t, m, raw)
			var prBroken x402.PaymentRequiredV2
			_ = json.Unmarshal(r.StructuredContent, &prBroken)
			if len(prBroken.Accepts) != 1 || prBroken.Accepts[0].Amount != "20000" {
				t.Fatalf("broken's PaymentRequired: %s", raw)
			}
			resp, raw, m = mcpPost(t, tester, url, toolCall(5, "broken", `{}`, `{"x402/payment":`+mcpPay(t, prBroken, buyer)+`}`), nil)
			r = resultOf(t, m, raw)
			if resp.StatusCode != 200 || !r.IsError || r.Content[0].Text != "the weather service is down" {
				t.Fatalf("failed tool: %d %s", resp.StatusCode, raw)
			}
			want := int64(10000 + 20000)
			if c.after {
				want = 10000
				if r.Meta[mcp.MetaPaymentResponse] != nil {
					t.Errorf("a failed tool after got a payment response: %s", raw)
				}
			} else if r.Meta[mcp.MetaPaymentResponse] == nil {
				t.Errorf("a failed tool paid before has no payment response: %s", raw)
			}
			testutil.AssertDelta(t, "seller", before, testutil.Balance(t, c.payTo), want)

			// Free: other tools, initialize, notifications.
			free := []string{toolCall(6, "echo", `{}`, ""), `{"jsonrpc":"2.0","id":7,"method":"initialize","params":{}}`,
				`{"jsonrpc":"2.0","method":"notifications/initialized"}`}
			for _, b := range free {
				resp, raw, _ := mcpPost(t, tester, url, b, nil)
				if resp.StatusCode != 200 && resp.StatusCode != 202 {
					t.Errorf("free %s: %d %s", b, resp.StatusCode, raw)
				}
			}
			testutil.AssertDelta(t, "seller", before, testutil.Balance(t, c.payTo), want)
		})
	}

	// The payment in the PAYMENT-SIGNATURE header works too (clients of
	// servers that answer 402 on the MCP POST).
	before := testutil.Balance(t, payBefore)
	resp, raw, m := mcpPost(t, tester, testutil.SiteURL+"/json/mcp", toolCall(8, "weather", `{"city":"Rome"}`, ""), nil)
	pr := mcpPaymentRequired(t, resp, raw, m, payBefore, "10000", mcp.TextPaymentRequired)
	header, _, err := exact.CreatePaymentV2(testutil.BuyerKey(t, buyer), pr.Accepts[0], pr.Resource, exact.PaymentOptions{})
	if err != nil {
		t.Fatal(err)
	}
	resp, raw, m = mcpPost(t, tester, testutil.SiteURL+"/json/mcp", toolCall(9, "weather", `{"city":"Rome"}`, ""), map[string]string{x402.HeaderPaymentSignature: header})
	if r := resultOf(t, m, raw); r.IsError || r.Content[0].Text != "sunny in Rome" || r.Meta[mcp.MetaPaymentResponse] == nil || resp.Header.Get("Payment-Response") == "" {
		t.Errorf("paid by header: %s", raw)
	}
	testutil.AssertDelta(t, "seller", before, testutil.Balance(t, payBefore), 10000)

	// Settle before, and the server answers a JSON-RPC error, no tool
	// result: the buyer is told it paid, and the same payment again calls
	// the tool again without paying (paid, not delivered).
	t.Run("paid call without a result", func(t *testing.T) {
		url := testutil.SiteURL + "/json/mcp"
		before := testutil.Balance(t, payBefore)
		resp, raw, m := mcpPost(t, tester, url, toolCall(30, "flaky", `{}`, ""), nil)
		var pr x402.PaymentRequiredV2
		_ = json.Unmarshal(resultOf(t, m, raw).StructuredContent, &pr)
		payment := mcpPay(t, pr, buyer)
		resp, raw, m = mcpPost(t, tester, url, toolCall(31, "flaky", `{}`, `{"x402/payment":`+payment+`}`), nil)
		var rpcErr struct {
			Code    int                        `json:"code"`
			Message string                     `json:"message"`
			Data    map[string]json.RawMessage `json:"data"`
		}
		if resp.StatusCode != 200 || json.Unmarshal(m["error"], &rpcErr) != nil || rpcErr.Code != -32603 || rpcErr.Message != "temporarily unavailable" ||
			rpcErr.Data[mcp.MetaPaymentResponse] == nil || string(rpcErr.Data["retry"]) != `"`+mcp.TextRetryPaid+`"` {
			t.Fatalf("paid call answered a JSON-RPC error: %d %s", resp.StatusCode, raw)
		}
		testutil.AssertDelta(t, "seller", before, testutil.Balance(t, payBefore), 10000)
		resp, raw, m = mcpPost(t, tester, url, toolCall(32, "flaky", `{}`, `{"x402/payment":`+payment+`}`), nil)
		if r := resultOf(t, m, raw); r.IsError || r.Content[0].Text != "flaky ok" || r.Meta[mcp.MetaPaymentResponse] == nil {
			t.Errorf("the same payment again: %s", raw)
		}
		resp, raw, m = mcpPost(t, tester, url, toolCall(33, "flaky", `{}`, `{"x402/payment":`+payment+`}`), nil)
		mcpPaymentRequiredFor(t, resp, raw, m, "flaky", "", payBefore, "10000", x402.ErrTextAlreadyUsed)
		testutil.AssertDelta(t, "seller", before, testutil.Balance(t, payBefore), 10000)
		if n := server.called("flaky"); n != 2 {
			t.Errorf("flaky ran %d times, want 2", n)
		}
	})

	// The same payment twice at once: one call runs the tool and pays,
	// the copy is told to come back (the paywall's 409), nothing more moves.
	t.Run("copy in flight", func(t *testing.T) {
		url := testutil.SiteURL + "/json/mcp"
		before := testutil.Balance(t, payBefore)
		_, raw, m := mcpPost(t, tester, url, toolCall(70, "weather", `{"city":"Bern"}`, ""), nil)
		pr := mcpPaymentRequired(t, &http.Response{StatusCode: 200}, raw, m, payBefore, "10000", mcp.TextPaymentRequired)
		body := toolCall(71, "weather", `{"city":"Bern"}`, `{"x402/payment":`+mcpPay(t, pr, buyer)+`}`)
		entered, release := make(chan struct{}), make(chan struct{})
		server.mu.Lock()
		server.hook = func() { close(entered); <-release }
		server.mu.Unlock()
		ran := server.called("weather")
		first := make(chan []byte)
		go func() {
			_, raw, _ := mcpPost(t, tester, url, body, nil)
			first <- raw
		}()
		<-entered
		resp, raw, m := mcpPost(t, tester, url, body, nil)
		close(release)
		var rpcErr struct {
			Code    int            `json:"code"`
			Message string         `json:"message"`
			Data    map[string]any `json:"data"`
		}
		if resp.StatusCode != 200 || json.Unmarshal(m["error"], &rpcErr) != nil || rpcErr.Code != mcp.CodePaymentFailed ||
			rpcErr.Message != textInFlight || rpcErr.Data["status"] != float64(409) {
			t.Errorf("the copy in flight: %d %s", resp.StatusCode, raw)
		}
		if got := <-first; !strings.Contains(string(got), "sunny in Bern") || !strings.Contains(string(got), mcp.MetaPaymentResponse) {
			t.Errorf("the first call: %s", got)
		}
		if n := server.called("weather") - ran; n != 1 {
			t.Errorf("the tool ran %d times, want 1", n)
		}
		testutil.AssertDelta(t, "seller", before, testutil.Balance(t, payBefore), 10000)
	})

	// The server cannot be reached for a call paid before: the buyer is
	// told it paid and to call again with the same payment.
	t.Run("server down", func(t *testing.T) {
		url := testutil.SiteURL + "/down/mcp"
		before := testutil.Balance(t, payBefore)
		_, raw, m := mcpPost(t, tester, url, toolCall(60, "weather", `{}`, ""), nil)
		pr := mcpPaymentRequiredFor(t, &http.Response{StatusCode: 200}, raw, m, "weather", "", payBefore, "10000", mcp.TextPaymentRequired)
		resp, raw, m := mcpPost(t, tester, url, toolCall(61, "weather", `{}`, `{"x402/payment":`+mcpPay(t, pr, buyer)+`}`), nil)
		var rpcErr struct {
			Code    int                        `json:"code"`
			Message string                     `json:"message"`
			Data    map[string]json.RawMessage `json:"data"`
		}
		if resp.StatusCode != 200 || json.Unmarshal(m["error"], &rpcErr) != nil || rpcErr.Code != -32603 || rpcErr.Message != "the MCP server could not answer this call" ||
			rpcErr.Data[mcp.MetaPaymentResponse] == nil || string(rpcErr.Data["retry"]) != `"`+mcp.TextRetryPaid+`"` {
			t.Errorf("paid call to a server that is down: %d %s", resp.StatusCode, raw)
		}
		testutil.AssertDelta(t, "seller", before, testutil.Balance(t, payBefore), 10000)
	})

	// An answer over mcp_max_answer is not delivered, and not settled after.
	t.Run("answer too large", func(t *testing.T) {
		url := testutil.SiteURL + "/after-json/mcp"
		before := testutil.Balance(t, payAfter)
		_, raw, m := mcpPost(t, tester, url, toolCall(40, "huge", `{}`, ""), nil)
		var pr x402.PaymentRequiredV2
		_ = json.Unmarshal(resultOf(t, m, raw).StructuredContent, &pr)
		resp, raw, _ := mcpPost(t, tester, url, toolCall(41, "huge", `{}`, `{"x402/payment":`+mcpPay(t, pr, buyer)+`}`), nil)
		want := `{"error":{"code":-32603,"message":"the tool's answer exceeds the size this gateway reads (mcp_max_answer), so it is not delivered; nothing was charged"},"id":41,"jsonrpc":"2.0"}`
		if resp.StatusCode != 200 || string(raw) != want {
			t.Errorf("answer too large: %d %s\nwant %s", resp.StatusCode, raw, want)
		}
		testutil.AssertDelta(t, "seller", before, testutil.Balance(t, payAfter), 0)
	})

	// A 2xx answer that holds no readable response (here compressed
	// whatever was asked: a client could decode it) does not go out, and
	// is not settled after.
	t.Run("unreadable answer", func(t *testing.T) {
		url := testutil.SiteURL + "/after-json/mcp"
		before := testutil.Balance(t, payAfter)
		_, raw, m := mcpPost(t, tester, url, toolCall(50, "zipped", `{}`, ""), nil)
		var pr x402.PaymentRequiredV2
		_ = json.Unmarshal(resultOf(t, m, raw).StructuredContent, &pr)
		resp, raw, _ := mcpPost(t, tester, url, toolCall(51, "zipped", `{}`, `{"x402/payment":`+mcpPay(t, pr, buyer)+`}`), nil)
		want := `{"error":{"code":-32603,"message":"the MCP server's answer holds no response to this call that this gateway can read (JSON, or an event stream, without Content-Encoding); nothing was charged"},"id":51,"jsonrpc":"2.0"}`
		if resp.StatusCode != 200 || string(raw) != want {
			t.Errorf("unreadable answer: %d %s\nwant %s", resp.StatusCode, raw, want)
		}
		testutil.AssertDelta(t, "seller", before, testutil.Balance(t, payAfter), 0)
	})

	// Settle after, and the settle fails once the tool has run (the buyer
	// moved its tokens away meanwhile): only the payment error comes back,
	// never the tool's content, and nothing moves.
	t.Run("settle fails after the tool ran", func(t *testing.T) {
		url := testutil.SiteURL + "/after-json/mcp"
		drained := testutil.BuyerKey(t, devnet.Buyer5PrivateKey)
		keeper := testutil.BuyerKey(t, devnet.Buyer4PrivateKey)
		balance := testutil.Balance(t, crypto.PubkeyToAddress(drained.PublicKey).Hex())
		sellerBefore := testutil.Balance(t, payAfter)
		resp, raw, m := mcpPost(t, tester, url, toolCall(20, "weather", `{"city":"Oslo"}`, ""), nil)
		pr := mcpPaymentRequired(t, resp, raw, m, payAfter, "10000", mcp.TextPaymentRequired)
		payment := mcpPay(t, pr, devnet.Buyer5PrivateKey)
		moveTokens := func(from *ecdsa.PrivateKey, to common.Address, value *big.Int) {
			opts, _ := bind.NewKeyedTransactorWithChainID(from, big.NewInt(devnet.ChainID))
			tx, err := testutil.ChainToken.Transfer(opts, to, value)
			if err == nil {
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
				defer cancel()
				_, err = bind.WaitMined(ctx, testutil.ChainClient, tx)
			}
			if err != nil {
				t.Errorf("moving tokens: %v", err)
			}
		}
		server.mu.Lock()
		server.hook = func() { moveTokens(drained, crypto.PubkeyToAddress(keeper.PublicKey), balance) }
		server.mu.Unlock()
		ran := server.called("weather")
		resp, raw, m = mcpPost(t, tester, url, toolCall(21, "weather", `{"city":"Oslo"}`, `{"x402/payment":`+payment+`}`), nil)
		moveTokens(keeper, crypto.PubkeyToAddress(drained.PublicKey), balance) // give them back
		if server.called("weather") != ran+1 {
			t.Fatalf("the tool did not run once")
		}
		if strings.Contains(string(raw), "sunny") {
			t.Errorf("the tool's content went out although the settle failed: %s", raw)
		}
		mcpPaymentRequired(t, resp, raw, m, payAfter, "10000", mcp.TextSettleFailed+"ERC20: transfer amount exceeds balance")
		testutil.AssertDelta(t, "seller", sellerBefore, testutil.Balance(t, payAfter), 0)
	})

	// caddy x402 pay --mcp-tool calls and pays a tool.
	before = testutil.Balance(t, payBefore)
	var out, errOut bytes.Buffer
	o := x402cmd.PayOptions{Key: devnet.Buyer3PrivateKey, MaxAmount: "10000", Timeout: 30 * time.Second, MCPTool: "weather", MCPArgs: `{"city":"Lima"}`}
	if err := x402cmd.RunPay(context.Background(), testutil.SiteURL+"/sse/mcp", o, &out, &errOut); err != nil {
		t.Fatalf("pay --mcp-tool: %v\n%s", err, errOut.String())
	}
	if !strings.Contains(out.String(), `"content":[{"type":"text","text":"sunny in Lima"}]`) || !strings.Contains(errOut.String(), `"success":true`) {
		t.Errorf("pay --mcp-tool printed %s / %s", out.String(), errOut.String())
	}
	testutil.AssertDelta(t, "seller", before, testutil.Balance(t, payBefore), 10000)
	// A paid call that got no tool result is called again with the same
	// payment, once more, never paid twice.
	before = testutil.Balance(t, payBefore)
	out.Reset()
	errOut.Reset()
	flaky := o
	flaky.MCPTool, flaky.MCPArgs = "flaky", ""
	if err := x402cmd.RunPay(context.Background(), testutil.SiteURL+"/json/mcp", flaky, &out, &errOut); err != nil {
		t.Fatalf("pay --mcp-tool flaky: %v\n%s", err, errOut.String())
	}
	if !strings.Contains(out.String(), `"text":"flaky ok"`) || !strings.Contains(errOut.String(), "temporarily unavailable; the call is paid: calling again with the same payment") {
		t.Errorf("pay --mcp-tool flaky printed %s / %s", out.String(), errOut.String())
	}
	testutil.AssertDelta(t, "seller", before, testutil.Balance(t, payBefore), 10000)
	o.MaxAmount = "9999" // never signs for more than --max-amount
	if err := x402cmd.RunPay(context.Background(), testutil.SiteURL+"/sse/mcp", o, &out, &errOut); err == nil || !strings.Contains(err.Error(), "9999") {
		t.Errorf("pay --mcp-tool over --max-amount: %v", err)
	}

	// GET (the server's stream) and DELETE (the end of a session) pass;
	// with settle after, a stream is not resumed (Last-Event-ID), which
	// could replay a result not paid for.
	for _, c := range []struct{ method, path, sawLastEvent string }{
		{http.MethodGet, "/json/mcp", "ev-7"}, {http.MethodDelete, "/json/mcp", "ev-7"}, {http.MethodGet, "/after-sse/mcp", ""},
	} {
		req, _ := http.NewRequest(c.method, testutil.SiteURL+c.path, nil)
		req.Header.Set("Last-Event-ID", "ev-7")
		resp, err := tester.Client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || string(b) != c.method+" passed" || resp.Header.Get("X-Saw-Last-Event-Id") != c.sawLastEvent {
			t.Errorf("%s %s: %d %s, the server saw Last-Event-ID %q", c.method, c.path, resp.StatusCode, b, resp.Header.Get("X-Saw-Last-Event-Id"))
		}
	}

	// Discovery lists each priced tool with its price and schema.
	_, b := testutil.Get(t, tester, testutil.SiteURL+"/.well-known/x402.json", nil)
	var manifest struct {
		Items []json.RawMessage `json:"items"`
	}
	if err := json.Unmarshal(b, &manifest); err != nil || len(manifest.Items) != 14 {
		t.Fatalf("/.well-known/x402.json: %s", b)
	}
	wantItem := `{"resource":{"url":"` + testutil.SiteURL + `/after-json/*","description":"Always fails","mimeType":"application/json"},"type":"mcp",` +
		`"accepts":[{"scheme":"exact","network":"eip155:338","amount":"20000","asset":"` + devnet.TokenAddress.Hex() + `","payTo":"` + payAfter + `","maxTimeoutSeconds":300,"extra":{"name":"` + devnet.TokenName + `","version":"` + devnet.TokenVersion + `"}}],` +
		`"input":{"toolName":"broken","transport":"streamable-http","inputSchema":{"properties":{"day":{"type":"string"}},"type":"object"}}}`
	got := ""
	for _, it := range manifest.Items {
		if strings.Contains(string(it), `/after-json/*"`) && strings.Contains(string(it), `"toolName":"broken"`) {
			got = string(it)
		}
	}
	if got != wantItem {
		t.Errorf("/.well-known/x402.json's item of broken at /after-json/* =\n%s\nwant\n%s", got, wantItem)
	}
	_, b = testutil.Get(t, tester, testutil.SiteURL+"/v2/x402/discovery/resources?type=mcp", nil)
	var list struct {
		Items []x402.DiscoveryItem `json:"items"`
	}
	if err := json.Unmarshal(b, &list); err != nil || len(list.Items) != 14 {
		t.Fatalf("discovery list: %s", b)
	}
	var gotList []string
	for _, it := range list.Items {
		decl, _ := json.Marshal(it.Extensions[x402.ExtBazaar])
		_, in, err := facilitator.ValidateBazaar(decl)
		gotList = append(gotList, fmt.Sprintf("%s %s %s %s %v", strings.TrimPrefix(it.Resource, testutil.SiteURL), it.Type, in.Tool, it.Accepts[0].Amount, err))
	}
	if want := "/after-json/* mcp weather 10000 <nil>,/after-json/* mcp broken 20000 <nil>,/after-json/* mcp huge 10000 <nil>,/after-json/* mcp zipped 10000 <nil>," +
		"/after-sse/* mcp weather 10000 <nil>,/after-sse/* mcp broken 20000 <nil>,/after-sse/* mcp huge 10000 <nil>,/after-sse/* mcp zipped 10000 <nil>," +
		"/json/* mcp weather 10000 <nil>,/json/* mcp broken 20000 <nil>,/json/* mcp flaky 10000 <nil>,/sse/* mcp weather 10000 <nil>,/sse/* mcp broken 20000 <nil>,/sse/* mcp flaky 10000 <nil>"; strings.Join(gotList, ",") != want {
		t.Errorf("discovery list:\n%s\nwant\n%s", strings.Join(gotList, ","), want)
	}

	// The search finds tools by the words of their names and descriptions.
	_, b = testutil.Get(t, tester, testutil.SiteURL+"/v2/x402/discovery/search?query=always+fails+weather&type=mcp&limit=3", nil)
	var found struct {
		Resources  []x402.DiscoveryItem `json:"resources"`
		Partial    bool                 `json:"partialResults"`
		Pagination struct {
			Limit  int     `json:"limit"`
			Cursor *string `json:"cursor"`
		} `json:"pagination"`
	}
	if err := json.Unmarshal(b, &found); err != nil || len(found.Resources) != 3 || found.Pagination.Cursor == nil || *found.Pagination.Cursor != "3" {
		t.Fatalf("search: %s", b)
	}
	for i, want := range []string{"/after-json/* Always fails", "/after-sse/* Always fails", "/after-json/* Weather by city"} {
		if got := strings.TrimPrefix(found.Resources[i].Resource, testutil.SiteURL) + " " + found.Resources[i].Description; got != want {
			t.Errorf("search result %d = %q, want %q (best first)", i, got, want)
		}
	}
	if resp, b := testutil.Get(t, tester, testutil.SiteURL+"/v2/x402/discovery/search?type=mcp", nil); resp.StatusCode != 400 ||
		strings.TrimSpace(string(b)) != `{"error":"query is required: the words to search for, such as query=weather"}` {
		t.Errorf("search without a query: %d %s", resp.StatusCode, b)
	}

	// Metrics per tool (only configured tools' names), on the settle
	// before route: paid in json, sse, by header, in flight and by pay
	// --mcp-tool; unpaid in json, sse, before the header payment, before
	// the copy in flight and twice by pay (the second over --max-amount);
	// the same payment again in json and sse; the copy in flight failed.
	samples := testutil.Scrape(t)
	for _, c := range []struct {
		tool, outcome string
		want          float64
	}{
		{"weather", mcp.OutcomePaid, 5}, {"weather", mcp.OutcomePaymentRequired, 6}, {"weather", mcp.OutcomeFailed, 1}, {"weather", mcp.OutcomeRefused, 2},
		{"broken", mcp.OutcomeToolError, 2},
	} {
		labels := map[string]string{"tool": c.tool, "outcome": c.outcome, "route": "mcp to " + payBefore}
		v, _ := testutil.Sample(samples, "x402_mcp_tool_calls_total", labels)
		was, _ := testutil.Sample(metricsBefore, "x402_mcp_tool_calls_total", labels)
		if v -= was; v != c.want {
			t.Errorf("x402_mcp_tool_calls_total{tool=%s,outcome=%s} = %v, want %v", c.tool, c.outcome, v, c.want)
		}
	}

	// Refused clearly: a body over mcp_max_body, a batch with a priced
	// call, a body that is not JSON.
	refusals := []struct {
		name, body string
		status     int
		want       string
	}{
		{"too large", toolCall(10, "weather", `{"city":"`+strings.Repeat("x", 5000)+`"}`, ""), 413,
			`{"error":{"code":-32600,"message":"the request body exceeds 4.0 KiB (mcp_max_body of this server): send a smaller request"},"id":null,"jsonrpc":"2.0"}`},
		{"batch", "[" + toolCall(11, "echo", `{}`, "") + "," + toolCall(12, "weather", `{}`, "") + "]", 400,
			`{"error":{"code":-32600,"message":"a JSON-RPC batch must not call a priced tool: send each paid tools/call as a request of its own"},"id":null,"jsonrpc":"2.0"}`},
		{"priced notification", `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"weather"}}`, 400,
			`{"error":{"code":-32600,"message":"tools/call of \"weather\" is priced, so it must be a request with an id, not a notification"},"id":null,"jsonrpc":"2.0"}`},
		{"not JSON", `{"jsonrpc":`, 400,
			`{"error":{"code":-32700,"message":"parse error: the body is not a JSON-RPC message: unexpected end of JSON input"},"id":null,"jsonrpc":"2.0"}`},
	}
	for _, c := range refusals {
		resp, raw, _ := mcpPost(t, tester, testutil.SiteURL+"/json/mcp", c.body, nil)
		if resp.StatusCode != c.status || string(raw) != c.want {
			t.Errorf("%s: %d %s\nwant %d %s", c.name, resp.StatusCode, raw, c.status, c.want)
		}
	}
	// A batch of free calls passes.
	if resp, raw, _ := mcpPost(t, tester, testutil.SiteURL+"/json/mcp", "["+toolCall(13, "echo", `{}`, "")+"]", nil); resp.StatusCode != 202 {
		t.Errorf("free batch: %d %s", resp.StatusCode, raw)
	}
}

// TestMCPConfigErrors: MCP settings the Caddyfile adapter refuses, each
// with a text that says what to change.
func TestMCPConfigErrors(t *testing.T) {
	site := func(body string) string {
		return ":8080 {\nx402 {\n pay_to 0x1111111111111111111111111111111111111111\n" + body + "\n}\n}\n"
	}
	for _, tc := range []struct{ name, caddyfile, want string }{
		{"route price too", site("price 1\nmcp_tool a 0.01"), "x402: an MCP route (mcp_tool) is priced per tool: remove price and amount (every other method and tool is free)"},
		{"no price", site("mcp_tool a"), "x402: mcp_tool takes a tool name and its price in whole tokens, such as: mcp_tool get_weather 0.01"},
		{"bad price", site("mcp_tool a ten"), `x402: mcp_tool "a": price "ten" is not a positive decimal number; write the price in whole tokens, such as 0.01`},
		{"placeholder price", site("mcp_tool a {vars.p}"), `x402: mcp_tool "a" needs a fixed price in whole tokens, such as 0.01`},
		{"twice", site("mcp_tool a 0.01\nmcp_tool a 0.02"), `x402: mcp_tool "a" is listed twice`},
		{"schema not an object", site("mcp_tool a 0.01 {\ninput_schema `[1]`\n}"), `x402: mcp_tool "a": input_schema must be a JSON object (the tool's JSON Schema)`},
		{"unknown sub-option", site("mcp_tool a 0.01 {\nprice 2\n}"), `x402: mcp_tool: unrecognized option "price" (description, input_schema)`},
		{"bounds without tools", site("price 1\nmcp_max_body 1KiB"), "x402: mcp_max_body and mcp_max_answer need mcp_tool lines: they bound an MCP route"},
		{"bad size", site("mcp_tool a 0.01\nmcp_max_answer lots"), `x402: mcp_max_answer: "lots" is not a size such as 1MiB`},
		{"timeout without tools", site("price 1\nmcp_call_timeout 1m"), "x402: mcp_call_timeout needs mcp_tool lines: it bounds a priced tool call of an MCP route"},
		{"bad timeout", site("mcp_tool a 0.01\nmcp_call_timeout 10ms"), `x402: mcp_call_timeout "10ms": want a duration of at least 1s, such as 2m`},
		{"access window", site("mcp_tool a 0.01\naccess 1h"), "x402: access windows are not supported on an MCP route (mcp_tool): each tool call is paid"},
		{"upto", site("mcp_tool a 0.01\nscheme upto"), "x402: an MCP route (mcp_tool) takes exact payments by EIP-3009: remove scheme upto and asset_transfer permit2 (each tool call is paid its price)"},
		{"permit2", site("mcp_tool a 0.01\nasset_transfer permit2"), "x402: an MCP route (mcp_tool) takes exact payments by EIP-3009: remove scheme upto and asset_transfer permit2 (each tool call is paid its price)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := caddyconfig.GetAdapter("caddyfile").Adapt([]byte(tc.caddyfile), nil)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Adapt = %v, want %q", err, tc.want)
			}
		})
	}
}
