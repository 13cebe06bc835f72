// Package mcp is x402 over MCP (x402 specs/transports-v2/mcp.md), a
// transport in front of any MCP server that speaks the streamable HTTP
// transport. A route with mcp_tool lines charges per call of the tools
// they name: an unpaid tools/call of a priced tool is answered with a
// JSON-RPC result (isError, structuredContent = the PaymentRequired), a
// paid one (params._meta["x402/payment"], or the PAYMENT-SIGNATURE /
// X-PAYMENT header) goes through the paywall's own payment pipeline
// (claims, records, settle before or after: Core.ServePaid) with the
// payment taken out of _meta before the server sees it, and the tool's
// result comes back with _meta["x402/payment-response"]. Everything else
// passes free (Core.Pass). What the paywall and the server answer is
// turned into JSON-RPC in answer.go.
//
// The paywall holds a Transport (New) when its route has priced tools and
// hands it every request of the route; the Transport knows the paywall
// only through Core.
package mcp

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/zap"

	"github.com/caddy-x402/caddy-x402/facilitator"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// Keys of the x402 MCP transport in _meta.
const (
	// MetaPayment is where a tools/call carries its payment, in
	// params._meta.
	MetaPayment = "x402/payment"
	// MetaPaymentResponse is where a paid call's result carries its
	// settlement, in result._meta (or error.data when it got no result).
	MetaPaymentResponse = "x402/payment-response"
	// MetaAccepts is where a tools/list answer states a priced tool's
	// ways to pay (its PaymentRequired accepts), in the tool's _meta.
	MetaAccepts = "x402/accepts"
)

// toolResourcePrefix is the resource URL of a tool, as the MCP transport
// names it (mcp://tool/<name>).
const toolResourcePrefix = "mcp://tool/"

// Core is what the paywall offers the transport: the price of a tool, the
// paid pipeline for one call, and the free pass of everything else.
type Core interface {
	// Offer is the ways to pay price (whole tokens) on the route's
	// networks.
	Offer(price string) (Offer, error)
	// ServePaid serves r as a paid request of the route, sold at offer
	// (one Offer gave) for the resource URL resource: the 402, verify,
	// claim, settle before or after, records and metrics, with next as
	// the upstream. Its answers are the paywall's HTTP answers, which
	// the transport turns into JSON-RPC.
	ServePaid(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler, offer Offer, resource string) error
	// Pass passes r on to next free, as the paywall passes every request
	// on: without the buyer's payment headers (unless the route forwards
	// them) and without forged settlement headers.
	Pass(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler) error
}

// Offer is a price as the paywall offers it.
type Offer interface {
	// Accepts are its version 2 ways to pay (the options with a chain
	// id), as a PaymentRequired lists them.
	Accepts() []x402.RequirementsV2
}

// Route is what the transport needs to know of the paywall's route.
type Route struct {
	// Label names the route in metrics.
	Label string
	// SettleAfter is set when the route settles after the upstream.
	SettleAfter bool
	// NoDiscovery leaves the bazaar declaration out of a PaymentRequired.
	NoDiscovery bool
	// Logger logs the route's failed calls.
	Logger *zap.Logger
	// Metrics is the config's registry, where the transport's
	// collector (x402_mcp_tool_calls_total) is registered.
	Metrics *prometheus.Registry
}

// Transport serves an MCP route: its priced tools at run time.
type Transport struct {
	core        Core
	route       Route
	tools       map[string]*tool
	order       []*tool
	maxBody     int64
	maxAnswer   int64
	callTimeout time.Duration
}

// tool is a priced tool with its offer.
type tool struct {
	cfg    Tool
	offer  Offer
	learnt atomic.Pointer[learnt]
}

// learnt is what a tools/list answer told about a tool.
type learnt struct {
	description string
	inputSchema json.RawMessage
}

// New builds the transport of a route with priced tools (cfg validated),
// pricing each tool through core.
func New(cfg Config, core Core, route Route) (*Transport, error) {
	t := &Transport{core: core, route: route, tools: map[string]*tool{}, maxBody: cfg.MCPMaxBody, maxAnswer: cfg.MCPMaxAnswer, callTimeout: time.Duration(cfg.MCPCallTimeout)}
	if t.callTimeout == 0 {
		t.callTimeout = DefaultCallTimeout
	}
	if t.maxBody == 0 {
		t.maxBody = DefaultMaxBody
	}
	if t.maxAnswer == 0 {
		t.maxAnswer = DefaultMaxAnswer
	}
	for _, c := range cfg.MCPTools {
		o, err := core.Offer(c.Price)
		if err != nil {
			return nil, fmt.Errorf("x402: mcp_tool %q: %w", c.Name, err)
		}
		tl := &tool{cfg: c, offer: o}
		t.tools[c.Name] = tl
		t.order = append(t.order, tl)
		if len(c.InputSchema) > 0 {
			b, _ := json.Marshal(tl.bazaar())
			if _, _, err := facilitator.ValidateBazaar(b); err != nil {
				return nil, fmt.Errorf("x402: mcp_tool %q: its input_schema does not make a valid bazaar declaration: %v", c.Name, err)
			}
		}
	}
	return t, initMetrics(route.Metrics)
}

// call is a priced tools/call being served.
type call struct {
	tool *tool
	id   json.RawMessage // the request's JSON-RPC id

	// Set by upstream when the server's answer is written on.
	sent       int     // the status written to the paywall's writer; 0 before
	origStatus int     // the server's own status
	raw        bool    // the answer goes back as the server gave it
	ans        *answer // the parsed answer, unless raw
	failed     bool    // the tool failed (isError or a JSON-RPC error): not settled after
}

// rpcMessage is a JSON-RPC message by its exact keys (never matched
// case-insensitively: the server must read what the paywall read).
type rpcMessage map[string]json.RawMessage

// pricedTool is the priced tool a tools/call request calls, nil for any
// other message.
func (t *Transport) pricedTool(m rpcMessage) *tool {
	if method, _ := m.method(); method != "tools/call" {
		return nil
	}
	var name string
	if json.Unmarshal(m.params()["name"], &name) != nil {
		return nil
	}
	return t.tools[name]
}

// JSON-RPC error codes.
const (
	rpcParseError     = -32700
	rpcInvalidRequest = -32600
	rpcInternalError  = -32603
	// CodePaymentFailed is the code of a paywall answer that is not a
	// PaymentRequired (a payment busy, a facilitator or store out of
	// reach, a bad payment identifier): data holds the paywall's JSON
	// answer and its HTTP status.
	CodePaymentFailed = -32000
)
