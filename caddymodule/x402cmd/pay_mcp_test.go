package x402cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// mcpSeller is a fake MCP endpoint selling tool "t": its answer to a
// paid call (one with _meta["x402/payment"]) is paid(w, id).
func mcpSeller(t *testing.T, accepts []x402.RequirementsV2, paid func(w http.ResponseWriter, id json.RawMessage)) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Meta map[string]json.RawMessage `json:"_meta"`
			} `json:"params"`
		}
		if json.NewDecoder(r.Body).Decode(&msg) != nil {
			http.Error(w, "bad JSON", 400)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		switch {
		case msg.ID == nil:
			w.WriteHeader(http.StatusAccepted)
		case msg.Method == "tools/call" && msg.Params.Meta["x402/payment"] != nil:
			paid(w, msg.ID)
		case msg.Method == "tools/call":
			pr := x402.PaymentRequiredV2{X402Version: 2, Resource: &x402.ResourceInfo{URL: "mcp://tool/t"}, Accepts: accepts}
			mcpAnswer(w, msg.ID, map[string]any{"isError": true, "structuredContent": pr, "content": []any{}})
		default:
			mcpAnswer(w, msg.ID, map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{}})
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func mcpAnswer(w http.ResponseWriter, id json.RawMessage, result any) {
	json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": id, "result": result})
}

// TestPayMCPSaysWhetherMoneyMoved (issue 33): every way a paid MCP tool
// call can fail says whether money moved.
func TestPayMCPSaysWhetherMoneyMoved(t *testing.T) {
	base := testReqs
	base.Extra = &x402.DomainInfo{Name: "Bridged USDC (Stargate)", Version: "1"}
	accepts := []x402.RequirementsV2{base.V2("eip155:338")}
	settled := x402.ReferenceSettleResponse{Success: true, Transaction: "0xabc", Network: "eip155:338"}
	for _, tc := range []struct {
		name string
		paid func(w http.ResponseWriter, id json.RawMessage)
		want string
	}{
		{"refused", func(w http.ResponseWriter, id json.RawMessage) {
			pr := x402.PaymentRequiredV2{X402Version: 2, Error: "insufficient_funds", Accepts: accepts}
			mcpAnswer(w, id, map[string]any{"isError": true, "structuredContent": pr, "content": []any{}})
		}, "payment refused: insufficient_funds (no money moved; the tool was not called)"},
		{"tool failed after settling", func(w http.ResponseWriter, id json.RawMessage) {
			mcpAnswer(w, id, map[string]any{"isError": true, "content": []any{}, "_meta": map[string]any{"x402/payment-response": settled}})
		}, "failed after the payment was settled: money moved"},
		{"tool failed unsettled", func(w http.ResponseWriter, id json.RawMessage) {
			mcpAnswer(w, id, map[string]any{"isError": true, "content": []any{}})
		}, "nothing was settled for this call"},
		{"error after settling", func(w http.ResponseWriter, id json.RawMessage) {
			json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": -32603, "message": "upstream gone",
				"data": map[string]any{"x402/payment-response": settled}}})
		}, "the payment was settled, money moved (transaction 0xabc)"},
		{"error unsettled", func(w http.ResponseWriter, id json.RawMessage) {
			json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": -32603, "message": "settle failed",
				"data": map[string]any{"x402/payment-response": x402.ReferenceSettleResponse{ErrorReason: "insufficient_funds"}}}})
		}, "the payment was not settled (insufficient_funds): no money moved"},
		{"error without settlement", func(w http.ResponseWriter, id json.RawMessage) {
			json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": -32603, "message": "internal error"}})
		}, "whether money moved is unknown"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := mcpSeller(t, accepts, tc.paid)
			var stdout, stderr bytes.Buffer
			o := PayOptions{Key: testBuyerKey, Method: "POST", Timeout: 10 * time.Second, MCPTool: "t"}
			err := RunPay(context.Background(), srv.URL, o, &stdout, &stderr)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q in it\n%s", err, tc.want, stderr.String())
			}
		})
	}
}
