package discovery

import (
	"strings"
	"time"

	"github.com/caddy-x402/caddy-x402/caddymodule/paywall/mcp"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// Paid is an x402 handler in Caddy's route tree, as discovery finds it
// (the paywall's Handler).
type Paid interface {
	// Listing is the route as discovery lists it; false when the route
	// is left out of discovery (discovery off).
	Listing() (Listing, bool)
}

// Listing is a paid route as discovery lists it.
type Listing struct {
	// Route is its discovery: its declaration and bazaar declarations.
	Route *Route
	// Description and MimeType describe its resource.
	Description, MimeType string
	// Accepts are its ways to pay as listed: with their amounts for a
	// fixed price; without (Dynamic) for a price set per request.
	Accepts []x402.DiscoveryAccept
	// Dynamic says that the price is set per request.
	Dynamic bool
	// IDRequired says that a buyer must send a payment identifier.
	IDRequired bool
	// Remote says that a remote facilitator verifies its payments (and
	// lists it): the embedded facilitator's list leaves it out.
	Remote bool
	// Always lists it even when its server listens on loopback only.
	Always bool
	// Tools are the priced tools of an MCP route, listed one entry each
	// (type mcp) instead of the route's own.
	Tools []mcp.Listing
	// MCP is set for an MCP route.
	MCP bool
}

// listedMethods are the methods the route is listed under: those its
// method matcher allows, or "" (any method).
func listedMethods(methods []string) []string {
	var out []string
	for _, m := range methods {
		m = strings.ToUpper(m)
		if _, ok := map[string]bool{"GET": true, "HEAD": true, "DELETE": true, "POST": true, "PUT": true, "PATCH": true}[m]; ok {
			out = append(out, m)
		}
	}
	if len(out) == 0 {
		return []string{""}
	}
	return out
}

// discoveryItems are the route's entries in a facilitator's discovery
// list, at URL u, one per method it is listed under.
func (l *Listing) discoveryItems(u string, methods []string) []x402.DiscoveryItem {
	if l.MCP {
		return toolDiscoveryItems(l.Tools, u, l.Route.at) // one per priced tool
	}
	if len(l.Accepts) == 0 {
		return nil
	}
	var out []x402.DiscoveryItem
	for _, m := range listedMethods(methods) {
		out = append(out, x402.DiscoveryItem{
			Resource: u, Type: "http", X402Version: x402.Version2, Accepts: l.Accepts,
			LastUpdated: l.Route.at.UTC().Format(time.RFC3339), Description: l.Description, MimeType: l.MimeType,
			DynamicPrice: l.Dynamic, Extensions: map[string]any{x402.ExtBazaar: l.Route.decls[m]},
		})
	}
	return out
}

// toolDiscoveryItems are an MCP route's entries in a facilitator's
// discovery list, at its URL u: one per priced tool (ts), of type mcp,
// with its bazaar declaration.
func toolDiscoveryItems(ts []mcp.Listing, u string, at time.Time) []x402.DiscoveryItem {
	var out []x402.DiscoveryItem
	for _, t := range ts {
		out = append(out, x402.DiscoveryItem{
			Resource: u, Type: "mcp", X402Version: x402.Version2, Accepts: t.Accepts,
			LastUpdated: at.UTC().Format(time.RFC3339), Description: t.Description, MimeType: "application/json",
			Extensions: map[string]any{x402.ExtBazaar: t.Bazaar},
		})
	}
	return out
}
