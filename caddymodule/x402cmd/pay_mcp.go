package x402cmd

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"strings"
	"time"

	"github.com/caddy-x402/caddy-x402/facilitator/exact"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// "caddy x402 pay --mcp-tool NAME [--args JSON] URL" calls a tool of the
// MCP server at URL (streamable HTTP) and pays it with x402's MCP
// transport: a PaymentRequired tool result is paid with a payment in
// params._meta["x402/payment"], and the tool's result is printed.

// mcpSession talks JSON-RPC to an MCP endpoint.
type mcpSession struct {
	ctx     context.Context
	url     string
	client  *http.Client
	header  http.Header
	session string // Mcp-Session-Id, once the server gave one
	nextID  int
}

// call posts a request (or, with notify, a notification) and returns
// the response to it (from a JSON answer or an event stream); nil for a
// notification.
func (s *mcpSession) call(method string, params any, notify bool) (map[string]json.RawMessage, http.Header, error) {
	msg := map[string]any{"jsonrpc": "2.0", "method": method}
	if params != nil {
		msg["params"] = params
	}
	s.nextID++
	if !notify {
		msg["id"] = s.nextID
	}
	body, _ := json.Marshal(msg)
	req, err := http.NewRequestWithContext(s.ctx, http.MethodPost, s.url, bytes.NewReader(body))
	if err != nil {
		return nil, nil, err
	}
	req.Header = s.header.Clone()
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if s.session != "" {
		req.Header.Set("Mcp-Session-Id", s.session)
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return nil, nil, fmt.Errorf("reading the answer to %s: %w", method, err)
	}
	if id := resp.Header.Get("Mcp-Session-Id"); id != "" {
		s.session = id
	}
	if notify {
		return nil, resp.Header, nil
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, resp.Header, fmt.Errorf("%s answered %s to %s: %s", s.url, resp.Status, method, x402.Clip(strings.TrimSpace(string(data)), 512))
	}
	want, _ := json.Marshal(s.nextID)
	candidates := [][]byte{data}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		candidates = nil
		for _, line := range strings.Split(string(data), "\n") {
			if d, ok := strings.CutPrefix(strings.TrimSuffix(line, "\r"), "data:"); ok {
				candidates = append(candidates, []byte(strings.TrimSpace(d)))
			}
		}
	}
	for _, c := range candidates {
		var m map[string]json.RawMessage
		if json.Unmarshal(c, &m) == nil && bytes.Equal(m["id"], want) && (m["result"] != nil || m["error"] != nil) {
			if m["error"] != nil {
				var e struct {
					Code    int    `json:"code"`
					Message string `json:"message"`
				}
				_ = json.Unmarshal(m["error"], &e)
				return m, resp.Header, fmt.Errorf("%s answered %s with JSON-RPC error %d: %s", s.url, method, e.Code, e.Message)
			}
			return m, resp.Header, nil
		}
	}
	return nil, resp.Header, fmt.Errorf("%s sent no answer to %s", s.url, method)
}

// Retries of a paid call with the same payment.
const (
	mcpPaidRetries    = 3  // a paid call that got no tool result
	mcpPendingRetries = 15 // a pending payment, every mcpPendingWait
	mcpPendingWait    = 2 * time.Second
)

// paidRetry reports a JSON-RPC error of a paid call that the gateway says
// to send again with the same payment (data.retry and the settlement).
func paidRetry(m map[string]json.RawMessage) bool {
	var e struct {
		Data struct {
			Retry    string          `json:"retry"`
			Response json.RawMessage `json:"x402/payment-response"`
		} `json:"data"`
	}
	return m != nil && json.Unmarshal(m["error"], &e) == nil && e.Data.Retry != "" && e.Data.Response != nil
}

// mcpToolResult is what the command reads of a tool result.
type mcpToolResult struct {
	IsError           bool                       `json:"isError"`
	StructuredContent json.RawMessage            `json:"structuredContent"`
	Meta              map[string]json.RawMessage `json:"_meta"`
}

// paymentRequired is the PaymentRequired a tool result carries, if any.
func (r *mcpToolResult) paymentRequired() *x402.PaymentRequiredV2 {
	if !r.IsError {
		return nil
	}
	var pr x402.PaymentRequiredV2
	if json.Unmarshal(r.StructuredContent, &pr) != nil || pr.X402Version == 0 || len(pr.Accepts) == 0 {
		return nil
	}
	return &pr
}

// runPayMCP is "caddy x402 pay --mcp-tool".
func runPayMCP(ctx context.Context, url string, key *ecdsa.PrivateKey, maxAmount *big.Int, o PayOptions, header http.Header, client *http.Client,
	stdout, stderr io.Writer) error {
	args := json.RawMessage("{}")
	if o.MCPArgs != "" {
		var m map[string]any
		if json.Unmarshal([]byte(o.MCPArgs), &m) != nil || m == nil {
			return fmt.Errorf("--args must be a JSON object, such as '{\"city\":\"Oslo\"}'")
		}
		args = json.RawMessage(o.MCPArgs)
	}
	s := &mcpSession{ctx: ctx, url: url, client: client, header: header}
	if _, _, err := s.call("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "caddy-x402-pay", "version": "1"}}, false); err != nil {
		return err
	}
	if _, _, err := s.call("notifications/initialized", nil, true); err != nil {
		return err
	}
	params := map[string]any{"name": o.MCPTool, "arguments": args}
	m, _, err := s.call("tools/call", params, false)
	if err != nil {
		return err
	}
	var res mcpToolResult
	_ = json.Unmarshal(m["result"], &res)
	pr := res.paymentRequired()
	if pr == nil {
		fmt.Fprintf(stderr, "x402: tool %s asked no payment\n", o.MCPTool)
		return writeBody(stdout, append(m["result"], '\n'))
	}
	accepted, value, opts, err := chooseV2Payment(pr, maxAmount, o, stderr)
	if err != nil {
		return err
	}
	if accepted.Scheme == SchemeChannel {
		return fmt.Errorf("refusing to pay: tool %s is sold by scheme %s (a payment channel), which this command pays over HTTP only", o.MCPTool, accepted.Scheme)
	}
	if err := o.check.checkV2(pr, accepted, value); err != nil {
		return err
	}
	h, payment, err := exact.CreatePaymentV2(key, accepted, pr.Resource, opts)
	if err != nil {
		return fmt.Errorf("signing the payment: %w", err)
	}
	raw, err := x402.DecodeBase64(h)
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "x402: paying %s smallest units of %s on %s from %s to %s for tool %s (x402 over MCP)\n",
		value, accepted.Asset, accepted.Network, payment.Authorization.From.Hex(), accepted.PayTo, o.MCPTool)
	params["_meta"] = map[string]any{"x402/payment": json.RawMessage(raw)}
	// The same payment again, as the gateway asks, while the payment is
	// pending (its transaction not in a block yet) or paid without a
	// tool result: never a second payment.
	for attempt := 1; ; attempt++ {
		m, _, err = s.call("tools/call", params, false)
		if err != nil {
			if paidRetry(m) && attempt < mcpPaidRetries {
				fmt.Fprintf(stderr, "x402: %v; the call is paid: calling again with the same payment\n", err)
				continue
			}
			return paidCallFailed(err, m, payment.Authorization.ValidBefore.String())
		}
		res = mcpToolResult{}
		_ = json.Unmarshal(m["result"], &res)
		refused := res.paymentRequired()
		if refused != nil && refused.Error == x402.ErrTextPending && attempt < mcpPendingRetries {
			fmt.Fprintf(stderr, "x402: the payment is pending (%s); calling again with the same payment in %s\n", res.Meta["x402/payment-response"], mcpPendingWait)
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(mcpPendingWait):
			}
			continue
		}
		break
	}
	if settle := res.Meta["x402/payment-response"]; settle != nil {
		fmt.Fprintf(stderr, "x402: settlement (_meta[\"x402/payment-response\"]):\n%s\n", settle)
	}
	if refused := res.paymentRequired(); refused != nil {
		if refused.Error == x402.ErrTextPending {
			return fmt.Errorf("payment refused: %s: the transfer was broadcast and may still move the money; the tool was not called", refused.Error)
		}
		return fmt.Errorf("payment refused: %s (no money moved; the tool was not called)", refused.Error)
	}
	if err := writeBody(stdout, append(m["result"], '\n')); err != nil {
		return err
	}
	if res.IsError {
		if res.Meta["x402/payment-response"] != nil {
			return fmt.Errorf("tool %s failed after the payment was settled: money moved", o.MCPTool)
		}
		return fmt.Errorf("tool %s failed; nothing was settled for this call: no money moved", o.MCPTool)
	}
	return o.check.receipt(res.Meta["x402/payment-response"])
}

// paidCallFailed says, of a paid tool call that got no tool result,
// whether money moved: the settlement the JSON-RPC error carries, if any,
// tells; without one the payment may still be settled while its
// authorization is valid (until validBefore, Unix seconds).
func paidCallFailed(err error, m map[string]json.RawMessage, validBefore string) error {
	var e struct {
		Data struct {
			Response json.RawMessage `json:"x402/payment-response"`
		} `json:"data"`
	}
	var sr x402.ReferenceSettleResponse
	if m != nil && json.Unmarshal(m["error"], &e) == nil && e.Data.Response != nil && json.Unmarshal(e.Data.Response, &sr) == nil {
		if sr.Success {
			return fmt.Errorf("%w: the payment was settled, money moved%s; the tool's result was lost", err, txNote(sr.Transaction))
		}
		return fmt.Errorf("%w: the payment was not settled (%s): no money moved", err, sr.ErrorReason)
	}
	return fmt.Errorf("%w: the payment was sent and no settlement was reported, so whether money moved is unknown (the signed authorization stays valid until %s, Unix time: the seller could still settle it)", err, validBefore)
}
