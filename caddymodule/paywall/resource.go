package paywall

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/caddy-x402/caddy-x402/caddymodule/internal/httpx"
)

// resourceURL is the full URL the buyer asked for, before any rewrite, at
// the origin the buyer addressed (requestOrigin).
func resourceURL(r *http.Request) string {
	if s := transportSaleOf(r); s != nil {
		return s.resource // a transport's, such as mcp://tool/<name> (transport.go)
	}
	u := r.URL
	if or, ok := r.Context().Value(caddyhttp.OriginalRequestCtxKey).(http.Request); ok && or.URL != nil {
		u = or.URL
	}
	scheme, host := httpx.RequestOrigin(r)
	return scheme + "://" + host + u.RequestURI()
}

// routeKey identifies the route and resource a payment is presented at:
// the option it chose, at the price resolved for its request, and the
// resource URL. (For a route of one network and a fixed price, the key
// is what it was before routes had several options.)
func (h *core) routeKey(r *http.Request) string {
	part := h.pricing.saleOf(r).part()
	s := sha256.New()
	s.Write(part.head)
	s.Write(part.tail)
	s.Write([]byte{0})
	s.Write([]byte(resourceURL(r)))
	return hex.EncodeToString(s.Sum(nil)[:16])
}

// transportSale is what a transport sells a request at: the offer of its
// price and its resource URL.
type transportSale struct {
	offer    *offer
	resource string
}

type transportSaleKey struct{}

// transportSaleOf is the transport's sale of a request, nil for a request
// of the route itself.
func transportSaleOf(r *http.Request) *transportSale {
	s, _ := r.Context().Value(transportSaleKey{}).(*transportSale)
	return s
}

// offerFor is the request's offer: its transport's, or the route's.
func (h *core) offerFor(r *http.Request) (*offer, error) {
	if s := transportSaleOf(r); s != nil {
		return s.offer, nil
	}
	return h.pricing.offerFor(r)
}
