package paywall

import (
	"net/http"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
)

func init() { caddy.RegisterModule(channelScheme{}) }

// channelScheme is batch-settlement's seller side as a Caddy module
// (http.handlers.x402.schemes.batch-settlement): the route's chanRoute.
type channelScheme struct{}

// CaddyModule returns the Caddy module information.
func (channelScheme) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{ID: SchemesNamespace + "." + SchemeChannel, New: func() caddy.Module { return new(channelScheme) }}
}

// NewSeller readies payment channels on a route (newChanRoute). Cleanup
// stops its claim, refund and withdraw rounds (chanRoute.stop, a stopper).
func (channelScheme) NewSeller(rt *Route) (Seller, error) {
	return newChanRoute(rt.h)
}

var _ stopper = (*chanRoute)(nil)

// ServePayment serves a channel's deposit, voucher or refund.
func (rt *chanRoute) ServePayment(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler, header string) error {
	if rt.meter.refusesHead(r) {
		return rt.reply.paymentRequired(w, r, textHeadMetered, "")
	}
	return rt.serveChannel(w, r, next, header)
}
