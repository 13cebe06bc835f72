// mcp.go: x402 over MCP (x402 specs/transports-v2/mcp.md) in front of
// any MCP server that speaks the streamable HTTP transport. A route with
// mcp_tool lines charges per call of the tools they name: an unpaid
// tools/call of a priced tool is answered with a JSON-RPC result
// (isError, structuredContent = the PaymentRequired), a paid one
// (params._meta["x402/payment"], or the PAYMENT-SIGNATURE / X-PAYMENT
// header) goes through the paywall's own payment pipeline (claims,
// records, settle before or after) with the payment taken out of _meta
// before the server sees it, and the tool's result comes back with
// _meta["x402/payment-response"]. Everything else passes free. What the
// paywall and the server answer is turned into JSON-RPC in
// mcp_answer.go.

package paywall

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"github.com/dustin/go-humanize"

	"github.com/caddy-x402/caddy-x402/caddymodule/internal/httpx"
	"github.com/caddy-x402/caddy-x402/facilitator"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// Keys of the x402 MCP transport in _meta.
const (
	mcpMetaPayment         = "x402/payment"
	mcpMetaPaymentResponse = "x402/payment-response"
	// mcpMetaAccepts is where a tools/list answer states a priced tool's
	// ways to pay (its PaymentRequired accepts), in the tool's _meta.
	mcpMetaAccepts = "x402/accepts"
)

// Defaults of the MCP bounds.
const (
	DefaultMCPMaxBody   = 1 << 20  // a JSON-RPC request
	DefaultMCPMaxAnswer = 16 << 20 // the server's answer to a priced call or tools/list
	// mcpMaxLearnt bounds a tool's description and input schema learnt
	// from a tools/list answer.
	mcpMaxLearnt = 16 << 10
)

// mcpToolResourcePrefix is the resource URL of a tool, as the MCP
// transport names it (mcp://tool/<name>).
const mcpToolResourcePrefix = "mcp://tool/"

// MCPTool is a priced tool of an MCP route.
type MCPTool struct {
	// Name is the tool's name as the MCP server lists it, matched
	// exactly (case-sensitive).
	Name string `json:"name"`
	// Price is the price of one call in whole tokens, such as "0.01",
	// converted with each network's token decimals.
	Price string `json:"price"`
	// Description is the tool's description for buyers and discovery.
	// Default: the description the server's tools/list gives.
	Description string `json:"description,omitempty"`
	// InputSchema is the JSON Schema of the tool's arguments for
	// discovery. Default: the one the server's tools/list gives, once a
	// tools/list answer has passed through.
	InputSchema json.RawMessage `json:"input_schema,omitempty"`
}

// MCP is what a route sells over MCP: mcp_tool, mcp_max_body and
// mcp_max_answer.
type MCP struct {
	// MCPTools are the priced tools of an MCP route. With any, the route
	// is an MCP endpoint: a tools/call of one of them is charged its
	// price; every other method and tool, GET and DELETE pass free. The
	// route then has no price or amount of its own.
	MCPTools []MCPTool `json:"mcp_tools,omitempty"`
	// MCPMaxBody bounds a JSON-RPC request's body, in bytes; past it the
	// answer is HTTP 413 with a JSON-RPC error. Default: 1 MiB.
	MCPMaxBody int64 `json:"mcp_max_body,omitempty"`
	// MCPMaxAnswer bounds the MCP server's answer to a priced call (or
	// tools/list), read whole to find the result, in bytes. Default: 16 MiB.
	MCPMaxAnswer int64 `json:"mcp_max_answer,omitempty"`
}

// mcpState is an MCP route's tools at run time.
type mcpState struct {
	tools     map[string]*mcpTool
	order     []*mcpTool
	maxBody   int64
	maxAnswer int64
}

// mcpTool is a priced tool with its offer.
type mcpTool struct {
	cfg    MCPTool
	offer  *offer
	learnt atomic.Pointer[mcpLearnt]
}

// mcpLearnt is what a tools/list answer told about a tool.
type mcpLearnt struct {
	description string
	inputSchema json.RawMessage
}

// description is the tool's configured description, else the learnt one.
func (t *mcpTool) description() string {
	if t.cfg.Description != "" {
		return t.cfg.Description
	}
	if l := t.learnt.Load(); l != nil {
		return l.description
	}
	return ""
}

// inputSchema is the tool's configured input schema, else the learnt one
// (nil when neither is known).
func (t *mcpTool) inputSchema() json.RawMessage {
	if len(t.cfg.InputSchema) > 0 {
		return t.cfg.InputSchema
	}
	if l := t.learnt.Load(); l != nil {
		return l.inputSchema
	}
	return nil
}

// resource is the tool's resource for its PaymentRequired.
func (t *mcpTool) resource() *x402.ResourceInfo {
	d := t.description()
	if d == "" {
		d = "Tool: " + t.cfg.Name
	}
	return &x402.ResourceInfo{URL: mcpToolResourcePrefix + t.cfg.Name, Description: d, MimeType: "application/json"}
}

// validateMCP checks the MCP settings.
func (h *Handler) validateMCP() error {
	if len(h.MCPTools) == 0 {
		if h.MCPMaxBody != 0 || h.MCPMaxAnswer != 0 {
			return errors.New("x402: mcp_max_body and mcp_max_answer need mcp_tool lines: they bound an MCP route")
		}
		return nil
	}
	if h.Price != "" || h.Amount != "" {
		return errors.New("x402: an MCP route (mcp_tool) is priced per tool: remove price and amount (every other method and tool is free)")
	}
	if h.Window.Access != 0 {
		return errors.New("x402: access windows are not supported on an MCP route (mcp_tool): each tool call is paid")
	}
	if h.upto() || h.AssetTransfer == AssetTransferPermit2 {
		return errors.New("x402: an MCP route (mcp_tool) takes exact payments by EIP-3009: remove scheme upto and asset_transfer permit2 (each tool call is paid its price)")
	}
	seen := map[string]bool{}
	for _, t := range h.MCPTools {
		switch {
		case t.Name == "" || len(t.Name) > 128:
			return errors.New("x402: mcp_tool needs the tool's name (1 to 128 characters)")
		case seen[t.Name]:
			return fmt.Errorf("x402: mcp_tool %q is listed twice", t.Name)
		case t.Price == "" || hasPlaceholder(t.Price):
			return fmt.Errorf("x402: mcp_tool %q needs a fixed price in whole tokens, such as 0.01", t.Name)
		}
		seen[t.Name] = true
		_, frac, _ := strings.Cut(t.Price, ".")
		if _, err := facilitator.ParsePrice(t.Price, uint8(min(len(frac), 77))); err != nil {
			return fmt.Errorf("x402: mcp_tool %q: %v; write the price in whole tokens, such as 0.01", t.Name, err)
		}
		if len(t.InputSchema) > 0 {
			var o map[string]any
			if json.Unmarshal(t.InputSchema, &o) != nil || o == nil {
				return fmt.Errorf("x402: mcp_tool %q: input_schema must be a JSON object (the tool's JSON Schema)", t.Name)
			}
		}
	}
	if h.MCPMaxBody < 0 || h.MCPMaxAnswer < 0 {
		return errors.New("x402: mcp_max_body and mcp_max_answer must be positive sizes")
	}
	return nil
}

// routePrice is the price the route's pricing is built around: its own,
// or an MCP route's first tool's (each tool gets its own offer).
func (h *Handler) routePrice() string {
	if len(h.MCPTools) > 0 && h.Price == "" && h.Amount == "" {
		return h.MCPTools[0].Price
	}
	return h.Price
}

// provisionMCP builds each tool's offer.
func (h *Handler) provisionMCP(ctx caddy.Context) error {
	h.mcp = nil
	if len(h.MCPTools) == 0 {
		return nil
	}
	st := &mcpState{tools: map[string]*mcpTool{}, maxBody: h.MCPMaxBody, maxAnswer: h.MCPMaxAnswer}
	if st.maxBody == 0 {
		st.maxBody = DefaultMCPMaxBody
	}
	if st.maxAnswer == 0 {
		st.maxAnswer = DefaultMCPMaxAnswer
	}
	for _, cfg := range h.MCPTools {
		o, err := h.pricing.priceOffer(cfg.Price)
		if err != nil {
			return fmt.Errorf("x402: mcp_tool %q: %w", cfg.Name, err)
		}
		t := &mcpTool{cfg: cfg, offer: o}
		st.tools[cfg.Name] = t
		st.order = append(st.order, t)
		if len(cfg.InputSchema) > 0 {
			b, _ := json.Marshal(t.bazaar())
			if _, _, err := facilitator.ValidateBazaar(b); err != nil {
				return fmt.Errorf("x402: mcp_tool %q: its input_schema does not make a valid bazaar declaration: %v", cfg.Name, err)
			}
		}
	}
	h.mcp = st
	if h.Label == "" {
		// Not the first tool's amount: the route sells several prices.
		h.metrics.label = "mcp to " + strings.ToLower(h.PayTo)
	}
	return initMCPMetrics(ctx.GetMetricsRegistry())
}

// mcpCall is a priced tools/call being served.
type mcpCall struct {
	tool *mcpTool
	id   json.RawMessage // the request's JSON-RPC id

	// Set by mcpUpstream when the server's answer is written on.
	sent       int        // the status written to the paywall's writer; 0 before
	origStatus int        // the server's own status
	raw        bool       // the answer goes back as the server gave it
	ans        *mcpAnswer // the parsed answer, unless raw
	failed     bool       // the tool failed (isError or a JSON-RPC error): not settled after
}

type mcpCallCtxKey struct{}

// mcpCallOf is the priced tools/call a request carries, nil for others.
func mcpCallOf(r *http.Request) *mcpCall {
	c, _ := r.Context().Value(mcpCallCtxKey{}).(*mcpCall)
	return c
}

// offerFor is the request's offer: its MCP tool's, or the route's.
func (h *Handler) offerFor(r *http.Request) (*offer, error) {
	if c := mcpCallOf(r); c != nil {
		return c.tool.offer, nil
	}
	return h.pricing.offerFor(r)
}

// mcpFree passes a request of an MCP route on, free: as every request,
// without the buyer's payment headers or forged settlement headers.
func (h *Handler) mcpFree(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler) error {
	for _, k := range upstreamHeaders {
		r.Header.Del(k)
	}
	if !h.ForwardPaymentHeader {
		next = withoutPaymentHeaders{next}
	}
	return next.ServeHTTP(w, r)
}

// serveMCP serves a request of an MCP route: a priced tools/call through
// the payment pipeline, tools/list with the prices added, anything else
// free.
func (h *Handler) serveMCP(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler) error {
	if r.Method != http.MethodPost {
		if h.settleAfter {
			// A resumed stream could replay the result of a priced call
			// whose settle failed (or whose buyer hung up before it):
			// with settle after, the server's stream starts afresh.
			r.Header.Del("Last-Event-ID")
		}
		return h.mcpFree(w, r, next) // GET (the server's SSE stream), DELETE (end of session)
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, h.mcp.maxBody+1))
	if err != nil {
		return caddyhttp.Error(http.StatusBadRequest, fmt.Errorf("x402: reading the MCP request: %w", err))
	}
	if int64(len(body)) > h.mcp.maxBody {
		return writeRPCError(w, http.StatusRequestEntityTooLarge, nil, rpcInvalidRequest,
			fmt.Sprintf("the request body exceeds %s (mcp_max_body of this server): send a smaller request", humanize.IBytes(uint64(h.mcp.maxBody))), nil)
	}
	setBody(r, body)
	trimmed := bytes.TrimLeft(body, " \t\r\n")
	if len(trimmed) > 0 && trimmed[0] == '[' {
		var batch []json.RawMessage
		if err := json.Unmarshal(body, &batch); err != nil {
			return writeRPCError(w, http.StatusBadRequest, nil, rpcParseError, "parse error: the body is not valid JSON: "+x402.Clip(err.Error(), 128), nil)
		}
		for _, m := range batch {
			if msg, err := parseRPC(m); err == nil && h.pricedTool(msg) != nil {
				return writeRPCError(w, http.StatusBadRequest, nil, rpcInvalidRequest,
					"a JSON-RPC batch must not call a priced tool: send each paid tools/call as a request of its own", nil)
			}
		}
		return h.mcpFree(w, r, next)
	}
	msg, err := parseRPC(body)
	if err != nil {
		return writeRPCError(w, http.StatusBadRequest, nil, rpcParseError, "parse error: the body is not a JSON-RPC message: "+x402.Clip(err.Error(), 128), nil)
	}
	if t := h.pricedTool(msg); t != nil {
		if _, ok := msg["id"]; !ok {
			// A notification gets no answer to carry the price or the
			// result: a server that ran it would give the tool away.
			return writeRPCError(w, http.StatusBadRequest, nil, rpcInvalidRequest,
				fmt.Sprintf("tools/call of %q is priced, so it must be a request with an id, not a notification", t.cfg.Name), nil)
		}
		return h.serveMCPCall(w, r, next, msg, t)
	}
	if method, _ := msg.method(); method == "tools/list" {
		return h.serveMCPList(w, r, next, msg)
	}
	return h.mcpFree(w, r, next)
}

// setBody gives r a body read already.
func setBody(r *http.Request, body []byte) {
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	r.TransferEncoding = nil
	r.Header.Set("Content-Length", strconv.Itoa(len(body)))
}

// rpcMessage is a JSON-RPC message by its exact keys (never matched
// case-insensitively: the server must read what the paywall read).
type rpcMessage map[string]json.RawMessage

func parseRPC(b []byte) (rpcMessage, error) {
	var m rpcMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	if m == nil {
		return nil, errors.New("null")
	}
	return m, nil
}

// method is the message's method, false when it has none.
func (m rpcMessage) method() (string, bool) {
	var s string
	if json.Unmarshal(m["method"], &s) != nil {
		return "", false
	}
	return s, true
}

// params is the message's params object (nil when absent or not one).
func (m rpcMessage) params() map[string]json.RawMessage {
	var p map[string]json.RawMessage
	_ = json.Unmarshal(m["params"], &p)
	return p
}

// pricedTool is the priced tool a tools/call request calls, nil for any
// other message.
func (h *Handler) pricedTool(m rpcMessage) *mcpTool {
	if method, _ := m.method(); method != "tools/call" {
		return nil
	}
	var name string
	if json.Unmarshal(m.params()["name"], &name) != nil {
		return nil
	}
	return h.mcp.tools[name]
}

// serveMCPCall serves a tools/call of a priced tool: the payment comes
// out of _meta (or stays in the PAYMENT-SIGNATURE / X-PAYMENT header it
// came in) and the paywall serves the call as any paid request, with an
// answer turned into JSON-RPC.
func (h *Handler) serveMCPCall(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler, msg rpcMessage, t *mcpTool) error {
	call := &mcpCall{tool: t, id: msg["id"]}
	r2 := r.WithContext(context.WithValue(r.Context(), mcpCallCtxKey{}, call))
	r2.Header = r.Header.Clone()
	// The answer is read here: asked for without compression.
	r2.Header.Del("Accept-Encoding")
	params := msg.params()
	var meta map[string]json.RawMessage
	if json.Unmarshal(params["_meta"], &meta) == nil {
		if pay, ok := meta[mcpMetaPayment]; ok {
			delete(meta, mcpMetaPayment)
			if len(meta) == 0 {
				delete(params, "_meta")
			} else {
				params["_meta"], _ = json.Marshal(meta)
			}
			msg["params"], _ = json.Marshal(params)
			body, _ := json.Marshal(msg)
			setBody(r2, body)
			r2.Header.Del(httpx.HeaderPayment)
			r2.Header.Del(x402.HeaderPaymentSignature)
			if !bytes.Equal(bytes.TrimSpace(pay), []byte("null")) {
				var v struct {
					X402Version int `json:"x402Version"`
				}
				_ = json.Unmarshal(pay, &v)
				hdr := x402.HeaderPaymentSignature
				if v.X402Version == 1 {
					hdr = httpx.HeaderPayment
				}
				r2.Header.Set(hdr, base64.StdEncoding.EncodeToString(pay))
			}
		}
	}
	mw := &mcpWriter{header: http.Header{}, call: call}
	err := h.ServeHTTP(mw, r2, mcpUpstream{h: h, next: next, call: call})
	return h.mcpFinish(w, mw, err)
}

// rpcError codes.
const (
	rpcParseError     = -32700
	rpcInvalidRequest = -32600
	rpcInternalError  = -32603
	// rpcPaymentFailed is the code of a paywall answer that is not a
	// PaymentRequired (a payment busy, a facilitator or store out of
	// reach, a bad payment identifier): data holds the paywall's JSON
	// answer and its HTTP status.
	rpcPaymentFailed = -32000
)

// writeRPCError answers a JSON-RPC error.
func writeRPCError(w http.ResponseWriter, status int, id json.RawMessage, code int, message string, data any) error {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	e := map[string]any{"code": code, "message": message}
	if data != nil {
		e["data"] = data
	}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": e})
	return writeJSON(w, status, b)
}

func writeJSON(w http.ResponseWriter, status int, b []byte) error {
	hdr := w.Header()
	hdr["Content-Type"] = jsonContentType
	hdr["Cache-Control"] = noStore
	hdr.Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(status)
	_, err := w.Write(b)
	return err
}

// unmarshalMCPOption reads mcp_tool, mcp_max_body and mcp_max_answer.
//
//	mcp_tool <name> <price> [{
//	    description <text>
//	    input_schema <json or file>
//	}]
//	mcp_max_body <size>
//	mcp_max_answer <size>
func (h *Handler) unmarshalMCPOption(d *caddyfile.Dispenser, opt string) error {
	switch opt {
	case "mcp_max_body", "mcp_max_answer":
		v, err := httpx.OneArg(d)
		if err != nil {
			return err
		}
		n, err := humanize.ParseBytes(v)
		if err != nil || n == 0 || n > 1<<40 {
			return d.Errf("x402: %s: %q is not a size such as 1MiB", opt, v)
		}
		if opt == "mcp_max_body" {
			h.MCPMaxBody = int64(n)
		} else {
			h.MCPMaxAnswer = int64(n)
		}
		return nil
	}
	args := d.RemainingArgs()
	if len(args) != 2 {
		return d.Err("x402: mcp_tool takes a tool name and its price in whole tokens, such as: mcp_tool get_weather 0.01")
	}
	t := MCPTool{Name: args[0], Price: args[1]}
	for nesting := d.Nesting(); d.NextBlock(nesting); {
		sub := d.Val()
		v, err := httpx.OneArg(d)
		if err != nil {
			return err
		}
		switch sub {
		case "description":
			t.Description = v
		case "input_schema":
			raw, err := readJSONArg(d, "input_schema", v)
			if err != nil {
				return err
			}
			t.InputSchema = raw
		default:
			return d.Errf("x402: mcp_tool: unrecognized option %q (description, input_schema)", sub)
		}
	}
	h.MCPTools = append(h.MCPTools, t)
	return nil
}
