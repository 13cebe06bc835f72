package x402

import "encoding/json"

// The bazaar extension (x402 specs/extensions/bazaar.md): a seller
// declares how to call a paid resource in its 402's extensions.bazaar, a
// paying client echoes the declaration in its payment, and a facilitator
// catalogs it and lists it at GET <facilitator>/discovery/resources, the
// list @x402/extensions' withBazaar(client).extensions.bazaar
// .listResources() reads.

// ExtBazaar is the bazaar extension's key in extensions.
const ExtBazaar = "bazaar"

// BazaarDeclaration is extensions.bazaar: info (how to call the resource:
// input of type http or mcp, and optionally output) and the JSON Schema
// (draft 2020-12) that info satisfies.
type BazaarDeclaration struct {
	// Info is the discovery data: {"input": {...}, "output": {...}}.
	Info json.RawMessage `json:"info"`
	// Schema is the JSON Schema that validates Info.
	Schema json.RawMessage `json:"schema"`
	// RouteTemplate is the canonical route of a dynamic route, such as
	// /users/:id; absent for a static one.
	RouteTemplate string `json:"routeTemplate,omitempty"`
}

// DiscoveryItem is one resource of a facilitator's discovery list, as
// @x402/extensions 2.27 types DiscoveryResource.
type DiscoveryItem struct {
	// Resource is the resource's URL: its origin and path, or its route
	// (a route template, or a path pattern such as /api/*).
	Resource string `json:"resource"`
	// Type is the protocol: "http" or "mcp".
	Type string `json:"type"`
	// X402Version is the protocol version the resource speaks (2).
	X402Version int `json:"x402Version"`
	// Accepts are the ways to pay it.
	Accepts []DiscoveryAccept `json:"accepts"`
	// LastUpdated is when the entry was last written (RFC 3339).
	LastUpdated string `json:"lastUpdated"`
	// Description is the seller's description of the resource.
	Description string `json:"description,omitempty"`
	// MimeType is the media type of the resource's answer.
	MimeType string `json:"mimeType,omitempty"`
	// DynamicPrice says that the price is set per request: the accepts
	// carry no amount, and the resource's 402 states the amount of each
	// request.
	DynamicPrice bool `json:"dynamicPrice,omitempty"`
	// RouteTemplate is the canonical route of a dynamic route.
	RouteTemplate string `json:"routeTemplate,omitempty"`
	// Extensions holds the resource's bazaar declaration (info and
	// schema).
	Extensions map[string]any `json:"extensions,omitempty"`
}

// DiscoveryAccept is one way to pay a listed resource: a v2 requirements
// entry whose amount is absent when the price is set per request.
type DiscoveryAccept struct {
	Scheme            string         `json:"scheme"`
	Network           string         `json:"network"`
	Amount            string         `json:"amount,omitempty"`
	Asset             string         `json:"asset"`
	PayTo             string         `json:"payTo"`
	MaxTimeoutSeconds int64          `json:"maxTimeoutSeconds"`
	Extra             map[string]any `json:"extra,omitempty"`
}

// AcceptOf is the listing's form of v2 requirements.
func AcceptOf(r RequirementsV2) DiscoveryAccept {
	return DiscoveryAccept{Scheme: r.Scheme, Network: r.Network, Amount: r.Amount, Asset: r.Asset, PayTo: r.PayTo,
		MaxTimeoutSeconds: r.MaxTimeoutSeconds, Extra: r.Extra}
}

// DiscoveryList is the answer of GET <facilitator>/discovery/resources.
type DiscoveryList struct {
	X402Version int               `json:"x402Version"`
	Items       []json.RawMessage `json:"items"`
	Pagination  Pagination        `json:"pagination"`
}

// Pagination is a page of a discovery list: at most Limit items from
// Offset, of Total in all.
type Pagination struct {
	Limit  int `json:"limit"`
	Offset int `json:"offset"`
	Total  int `json:"total"`
}
