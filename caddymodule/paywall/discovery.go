// discovery.go: the paywall as discovery lists it (package discovery):
// the route's Listing, found by discovery in Caddy's route tree, with the
// ways to pay it as its pricing offers them.

package paywall

import (
	"github.com/caddy-x402/caddy-x402/caddymodule/paywall/discovery"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

var _ discovery.Paid = (*Handler)(nil)

// Listing is the route as discovery lists it; false with discovery off.
func (h *Handler) Listing() (discovery.Listing, bool) {
	if h.NoDiscovery {
		return discovery.Listing{}, false
	}
	l := discovery.Listing{Route: h.disc, Description: h.Description, MimeType: h.MimeType,
		IDRequired: h.PaymentIdentifier == PaymentIDRequired, Remote: h.Facilitator != "", Always: h.DiscoveryAlways}
	if h.mcp != nil {
		l.MCP, l.Tools = true, h.mcp.Listings()
		return l, true
	}
	l.Accepts, l.Dynamic = h.pricing.discoveryAccepts()
	return l, true
}

// discoveryAccepts are the ways to pay the route as listed: with their
// amounts for a fixed price; without (dynamic) for a price set per
// request. Options without a chain id (version 1 only) are not listed.
func (p *pricing) discoveryAccepts() (accepts []x402.DiscoveryAccept, dynamic bool) {
	if p.static != nil {
		for _, a := range p.static.accepts() {
			accepts = append(accepts, x402.AcceptOf(a))
		}
		return accepts, false
	}
	for i := range p.options {
		o := &p.options[i]
		if o.caip2 == "" {
			continue
		}
		a := x402.AcceptOf(o.reqs.V2(o.caip2))
		a.Amount = ""
		accepts = append(accepts, a)
	}
	return accepts, true
}

// provisionDiscovery builds the route's bazaar declarations
// (discovery.New).
func (h *Handler) provisionDiscovery() error {
	d, err := discovery.New(h.Declaration, h.MimeType)
	if err != nil {
		return err
	}
	h.disc = d
	return nil
}
