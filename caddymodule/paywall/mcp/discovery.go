package mcp

import (
	"encoding/json"

	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// Discovery of an MCP route: each priced tool is an entry of type mcp at
// the route's URL, with its price and bazaar declaration (tool name,
// description and input schema, as configured or as tools/list gave
// them), in the facilitator's discovery list and in
// /.well-known/x402.json. Package discovery shapes the entries from
// the listings.

// Listing is a priced tool as discovery lists it.
type Listing struct {
	// Name is the tool's name.
	Name string
	// Description is the tool's description, configured or learnt.
	Description string
	// InputSchema is the JSON Schema of its arguments, when known.
	InputSchema json.RawMessage
	// Accepts are its ways to pay as listed (options with a chain id).
	Accepts []x402.DiscoveryAccept
	// Bazaar is its bazaar declaration.
	Bazaar map[string]any
}

// Listings are the route's priced tools that can be paid with x402
// version 2, in the configured order.
func (t *Transport) Listings() []Listing {
	var out []Listing
	for _, tl := range t.order {
		var accepts []x402.DiscoveryAccept
		for _, a := range tl.offer.Accepts() {
			accepts = append(accepts, x402.AcceptOf(a))
		}
		if len(accepts) == 0 {
			continue
		}
		out = append(out, Listing{Name: tl.cfg.Name, Description: tl.description(), InputSchema: tl.inputSchema(), Accepts: accepts, Bazaar: tl.bazaar()})
	}
	return out
}
