// transport.go: the core's side of a transport around it. A route with
// priced MCP tools hands every request to its MCP transport (package mcp,
// in ServeHTTP), which calls back through transportCore, the paywall's
// implementation of mcp.Core: the price of a tool (Offer), the paid
// pipeline for one call (ServePaid, sold at the tool's offer for its
// resource URL: both ride in the request's context as a transportSale,
// read by offerFor and resourceURL in resource.go), and the free pass of
// everything else (Pass). Here too: how MCP combines with the route's
// other settings (validateMCP) and the transport's provisioning.

package paywall

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/caddy-x402/caddy-x402/caddymodule/paywall/mcp"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// transportCore is what the paywall offers its MCP transport (mcp.Core).
type transportCore struct{ h *Handler }

var _ mcp.Core = transportCore{}

// Offer is the offer of a price in whole tokens on the route's networks.
func (c transportCore) Offer(price string) (mcp.Offer, error) {
	o, err := c.h.pricing.priceOffer(price)
	if err != nil {
		return nil, err
	}
	return o, nil
}

// ServePaid serves r through the payment pipeline, sold at off (an offer
// Offer made) for resource.
func (c transportCore) ServePaid(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler, off mcp.Offer, resource string) error {
	o, ok := off.(*offer)
	if !ok {
		return errors.New("x402: a transport served a call at an offer the paywall did not make")
	}
	r = r.WithContext(context.WithValue(r.Context(), transportSaleKey{}, &transportSale{offer: o, resource: resource}))
	return c.h.core.servePayment(w, r, next)
}

// Pass passes a request of the route on, free: as every request, without
// the buyer's payment headers or forged settlement headers.
func (c transportCore) Pass(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler) error {
	for _, k := range upstreamHeaders {
		r.Header.Del(k)
	}
	if !c.h.ForwardPaymentHeader {
		next = withoutPaymentHeaders{next}
	}
	return next.ServeHTTP(w, r)
}

// Accepts is the offer's version 2 accepts (mcp.Offer).
func (o *offer) Accepts() []x402.RequirementsV2 { return o.accepts() }

// validateMCP checks the MCP settings and how they go with the route's.
func (h *Handler) validateMCP() error {
	if !h.Config.Enabled() {
		return h.Config.ValidateBounds()
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
	return h.Config.ValidateTools()
}

// routePrice is the price the route's pricing is built around: its own,
// or an MCP route's first tool's (each tool gets its own offer).
func (h *Handler) routePrice() string {
	if len(h.MCPTools) > 0 && h.Price == "" && h.Amount == "" {
		return h.MCPTools[0].Price
	}
	return h.Price
}

// provisionMCP builds the MCP transport of a route with priced tools.
func (h *Handler) provisionMCP(ctx caddy.Context) error {
	h.mcp = nil
	if !h.Config.Enabled() {
		return nil
	}
	if h.Label == "" {
		// Not the first tool's amount: the route sells several prices.
		h.metrics.label = "mcp to " + strings.ToLower(h.PayTo)
	}
	t, err := mcp.New(h.Config, transportCore{h}, mcp.Route{Label: h.metrics.label, SettleAfter: h.core.settleAfter,
		NoDiscovery: h.NoDiscovery, Logger: h.logger, Metrics: ctx.GetMetricsRegistry()})
	if err != nil {
		return err
	}
	h.mcp = t
	return nil
}
