package paywall

import (
	"github.com/caddyserver/caddy/v2"
)

func init() { caddy.RegisterModule(uptoScheme{}) }

// uptoScheme is upto's seller side as a Caddy module
// (http.handlers.x402.schemes.upto).
type uptoScheme struct{}

// CaddyModule returns the Caddy module information.
func (uptoScheme) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{ID: SchemesNamespace + "." + SchemeUpto, New: func() caddy.Module { return new(uptoScheme) }}
}

// NewSeller readies upto on a route: its uptoSeller (upto.go), with the
// route's meter.
func (uptoScheme) NewSeller(rt *Route) (Seller, error) {
	u, err := newUptoSeller(rt.h, newMeterer(rt.h))
	if err != nil {
		return nil, err
	}
	return u, nil
}

// Interface guards: upto's seller side is a Seller through the core's
// checkout, and readies its quote at a request (a remote facilitator's
// address).
var (
	_ SchemeModule   = (*uptoScheme)(nil)
	_ Seller         = (*uptoSeller)(nil)
	_ checkoutScheme = (*uptoSeller)(nil)
	_ quoteReadier   = (*uptoSeller)(nil)
)
