package paywall

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/caddy-x402/caddy-x402/caddymodule/internal/testutil"
	"github.com/caddy-x402/caddy-x402/caddymodule/paywall/mcp"
	"github.com/caddy-x402/caddy-x402/facilitator/devnet"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// endlessMCPServer is an MCP server (streamable HTTP) whose event
// streams never end: tools/call of forever sends a progress notification
// and then nothing, of late sends the call's response and keeps the
// stream open. Each stream, once its request is cancelled, says so on
// cut.
func endlessMCPServer(t *testing.T, cut chan<- string) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Params struct {
				Name string `json:"name"`
			} `json:"params"`
		}
		_ = json.Unmarshal(b, &msg)
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progress\":1}}\n\n")
		if msg.Params.Name == "late" {
			fmt.Fprintf(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"late but whole\"}]}}\n\n", msg.ID)
		}
		w.(http.Flusher).Flush()
		<-r.Context().Done() // never ends the stream itself
		cut <- msg.Params.Name
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestMCPCallTimeout: a priced call whose MCP server never ends its event
// stream is cut at mcp_call_timeout (the server's request is cancelled)
// and answered as a call without a result: a JSON-RPC error saying so,
// nothing charged with settle after; paid before, with the settlement and
// the retry note; a response to the call that came within the limit is
// delivered, and paid, whatever the stream does after it.
func TestMCPCallTimeout(t *testing.T) {
	cut := make(chan string, 8)
	up := endlessMCPServer(t, cut)
	const payBefore, payAfter = "0x7100000000000000000000000000000000000b01", "0x7100000000000000000000000000000000000a01"
	tester := testutil.NewTester(t, testutil.GlobalBlock("")+fmt.Sprintf(`
:%d {
	@before path /before/*
	x402 @before {
		pay_to %[2]s
		network eip155:338
		settle before
		mcp_tool forever 0.01
		mcp_tool late 0.01
		mcp_call_timeout 1s
	}
	@after path /after/*
	x402 @after {
		pay_to %[3]s
		network eip155:338
		settle after
		mcp_tool forever 0.01
		mcp_tool late 0.01
		mcp_call_timeout 1s
	}
	reverse_proxy %[4]s
}
`, testutil.SitePort, payBefore, payAfter, up.URL))

	const timedOut = "the MCP server did not answer this call within 1s (mcp_call_timeout), so there is no result to deliver"
	for i, c := range []struct {
		path, payTo, tool string
		after             bool
	}{
		{"/after/mcp", payAfter, "forever", true},
		{"/before/mcp", payBefore, "forever", false},
		{"/after/mcp", payAfter, "late", true},
		{"/before/mcp", payBefore, "late", false},
	} {
		t.Run(fmt.Sprintf("%s, settle after %v", c.tool, c.after), func(t *testing.T) {
			url := testutil.SiteURL + c.path
			before := testutil.Balance(t, c.payTo)
			_, raw, m := mcpPost(t, tester, url, toolCall(10*i, c.tool, `{}`, ""), nil)
			var pr x402.PaymentRequiredV2
			if err := json.Unmarshal(resultOf(t, m, raw).StructuredContent, &pr); err != nil || len(pr.Accepts) != 1 {
				t.Fatalf("unpaid call: %s", raw)
			}
			id := 10*i + 1
			resp, raw, m := mcpPost(t, tester, url, toolCall(id, c.tool, `{}`, `{"x402/payment":`+mcpPay(t, pr, devnet.Buyer3PrivateKey)+`}`), nil)
			select {
			case name := <-cut:
				if name != c.tool {
					t.Errorf("the stream of %s was cut, want %s", name, c.tool)
				}
			case <-time.After(30 * time.Second): // a failsafe, not a measure
				t.Fatalf("the server's stream was not cut")
			}
			if resp.StatusCode != 200 {
				t.Fatalf("paid call: %d %s", resp.StatusCode, raw)
			}
			if c.tool == "late" {
				r := resultOf(t, m, raw)
				var sr x402.ReferenceSettleResponse
				if r.IsError || len(r.Content) != 1 || r.Content[0].Text != "late but whole" ||
					json.Unmarshal(r.Meta[mcp.MetaPaymentResponse], &sr) != nil || !sr.Success || sr.Amount != "10000" {
					t.Errorf("a response that came within the limit: %s", raw)
				}
				testutil.AssertDelta(t, "seller", before, testutil.Balance(t, c.payTo), 10000)
				return
			}
			if c.after {
				want := fmt.Sprintf(`{"error":{"code":-32603,"message":"%s; nothing was charged"},"id":%d,"jsonrpc":"2.0"}`, timedOut, id)
				if string(raw) != want {
					t.Errorf("settle after, cut: %s\nwant %s", raw, want)
				}
				testutil.AssertDelta(t, "seller", before, testutil.Balance(t, c.payTo), 0)
				return
			}
			var rpcErr struct {
				Code    int                        `json:"code"`
				Message string                     `json:"message"`
				Data    map[string]json.RawMessage `json:"data"`
			}
			var sr x402.ReferenceSettleResponse
			if json.Unmarshal(m["error"], &rpcErr) != nil || rpcErr.Code != -32603 || rpcErr.Message != timedOut ||
				json.Unmarshal(rpcErr.Data[mcp.MetaPaymentResponse], &sr) != nil || !sr.Success || sr.Amount != "10000" ||
				string(rpcErr.Data["retry"]) != `"`+mcp.TextRetryPaid+`"` {
				t.Errorf("settle before, cut: %s", raw)
			}
			testutil.AssertDelta(t, "seller", before, testutil.Balance(t, c.payTo), 10000)
		})
	}
}
