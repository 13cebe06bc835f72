package paywall

import (
	"net/http"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
)

func init() { caddy.RegisterModule(uptoScheme{}) }

// uptoScheme is upto's seller side as a Caddy module
// (http.handlers.x402.schemes.upto).
type uptoScheme struct{}

// CaddyModule returns the Caddy module information.
func (uptoScheme) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{ID: SchemesNamespace + "." + SchemeUpto, New: func() caddy.Module { return new(uptoScheme) }}
}

// NewSeller readies upto on a route (provisionUpto).
func (uptoScheme) NewSeller(rt *Route) (Seller, error) {
	if err := rt.h.provisionUpto(); err != nil {
		return nil, err
	}
	return uptoCheckout{rt.h}, nil
}

// uptoCheckout is upto's part of the core's checkout.
type uptoCheckout struct{ h *Handler }

// ServePayment serves an upto payment through the core's checkout.
func (u uptoCheckout) ServePayment(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler, header string) error {
	return u.h.core.checkout(w, r, next, header, u)
}

// readyQuote learns the remote facilitator's upto address (ensureUpto).
func (u uptoCheckout) readyQuote() error { return u.h.ensureUpto() }

// pay verifies at the maximum, meters the answer and settles the charge
// (serveUpto).
func (u uptoCheckout) pay(w http.ResponseWriter, r *http.Request, c *claimed) error {
	return u.h.serveUpto(w, r, c.next, c.req, c.payment, c.refusal, c.id, c.pid, c.lost)
}
