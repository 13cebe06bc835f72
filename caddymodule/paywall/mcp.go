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
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/dustin/go-humanize"

	"github.com/caddy-x402/caddy-x402/caddymodule/internal/httpx"
	"github.com/caddy-x402/caddy-x402/facilitator"
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
	// DefaultMCPCallTimeout bounds the time the server takes to answer a
	// priced call, to the end of its answer (an event stream included).
	DefaultMCPCallTimeout = 2 * time.Minute
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

// MCP is what a route sells over MCP: mcp_tool, mcp_max_body,
// mcp_max_answer and mcp_call_timeout.
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
	// MCPCallTimeout bounds the time the MCP server takes to answer a
	// priced call, to the end of its answer: an event stream that has not
	// ended by then is cut, and the call is answered as one that got no
	// result (not settled after; paid but not delivered before), unless
	// the response to the call came within it. Default: 2m.
	MCPCallTimeout caddy.Duration `json:"mcp_call_timeout,omitempty"`
}

// mcpState is an MCP route's tools at run time.
type mcpState struct {
	tools       map[string]*mcpTool
	order       []*mcpTool
	maxBody     int64
	maxAnswer   int64
	callTimeout time.Duration
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

// validateMCP checks the MCP settings.
func (h *Handler) validateMCP() error {
	if len(h.MCPTools) == 0 {
		if h.MCPMaxBody != 0 || h.MCPMaxAnswer != 0 {
			return errors.New("x402: mcp_max_body and mcp_max_answer need mcp_tool lines: they bound an MCP route")
		}
		if h.MCPCallTimeout != 0 {
			return errors.New("x402: mcp_call_timeout needs mcp_tool lines: it bounds a priced tool call of an MCP route")
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
	if h.MCPCallTimeout < 0 {
		return errors.New("x402: mcp_call_timeout must be a positive duration, such as 2m")
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
	st := &mcpState{tools: map[string]*mcpTool{}, maxBody: h.MCPMaxBody, maxAnswer: h.MCPMaxAnswer, callTimeout: time.Duration(h.MCPCallTimeout)}
	if st.callTimeout == 0 {
		st.callTimeout = DefaultMCPCallTimeout
	}
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

// offerFor is the request's offer: its MCP tool's, or the route's.
func (h *Handler) offerFor(r *http.Request) (*offer, error) {
	if c := mcpCallOf(r); c != nil {
		return c.tool.offer, nil
	}
	return h.pricing.offerFor(r)
}

// rpcMessage is a JSON-RPC message by its exact keys (never matched
// case-insensitively: the server must read what the paywall read).
type rpcMessage map[string]json.RawMessage

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

// unmarshalMCPOption reads mcp_tool, mcp_max_body, mcp_max_answer and
// mcp_call_timeout.
//
//	mcp_tool <name> <price> [{
//	    description <text>
//	    input_schema <json or file>
//	}]
//	mcp_max_body <size>
//	mcp_max_answer <size>
//	mcp_call_timeout <duration>
func (h *Handler) unmarshalMCPOption(d *caddyfile.Dispenser, opt string) error {
	switch opt {
	case "mcp_call_timeout":
		v, err := httpx.OneArg(d)
		if err != nil {
			return err
		}
		dur, err := caddy.ParseDuration(v)
		if err != nil || dur < time.Second {
			return d.Errf("x402: mcp_call_timeout %q: want a duration of at least 1s, such as 2m", v)
		}
		h.MCPCallTimeout = caddy.Duration(dur)
		return nil
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
