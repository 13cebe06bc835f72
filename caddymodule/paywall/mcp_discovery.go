package paywall

import (
	"time"

	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// Discovery of an MCP route: each priced tool is an entry of type mcp at
// the route's URL, with its price and bazaar declaration (tool name,
// description and input schema, as configured or as tools/list gave
// them), in the facilitator's discovery list and in
// /.well-known/x402.json.

// mcpAccepts are a tool's ways to pay as listed (options with a chain id).
func (t *mcpTool) mcpAccepts() []x402.DiscoveryAccept {
	var out []x402.DiscoveryAccept
	for _, a := range t.offer.accepts() {
		out = append(out, x402.AcceptOf(a))
	}
	return out
}

// mcpDiscoveryItems are an MCP route's entries in a facilitator's
// discovery list, at its URL u: one per priced tool.
func (h *Handler) mcpDiscoveryItems(u string) []x402.DiscoveryItem {
	var out []x402.DiscoveryItem
	for _, t := range h.mcp.order {
		accepts := t.mcpAccepts()
		if len(accepts) == 0 {
			continue
		}
		out = append(out, x402.DiscoveryItem{
			Resource: u, Type: "mcp", X402Version: x402.Version2, Accepts: accepts,
			LastUpdated: h.disc.at.UTC().Format(time.RFC3339), Description: t.description(), MimeType: "application/json",
			Extensions: map[string]any{x402.ExtBazaar: t.bazaar()},
		})
	}
	return out
}

// mcpWellKnownItems are an MCP route's items of /.well-known/x402.json.
func (h *Handler) mcpWellKnownItems(u string) []wellKnownItem {
	var out []wellKnownItem
	for _, t := range h.mcp.order {
		accepts := t.mcpAccepts()
		if len(accepts) == 0 {
			continue
		}
		it := wellKnownItem{
			Resource: x402.ResourceInfo{URL: u, Description: t.description(), MimeType: "application/json"},
			Type:     "mcp", Accepts: accepts,
			Input: wellKnownInput{ToolName: t.cfg.Name, Transport: "streamable-http", InputSchema: t.inputSchema()},
		}
		if h.PaymentIdentifier == PaymentIDRequired {
			it.Requires = []string{x402.ExtPaymentIdentifier}
		}
		out = append(out, it)
	}
	return out
}
