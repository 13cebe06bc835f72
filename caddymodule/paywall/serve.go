package paywall

import (
	"fmt"
	"net/http"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/caddy-x402/caddy-x402/caddymodule/internal/httpx"
	"github.com/caddy-x402/caddy-x402/caddymodule/paywall/discovery"
)

// ServeHTTP implements caddyhttp.MiddlewareHandler.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler) error {
	// One spelling per resource, before the price, the records and the
	// next handler read the path (paths.go).
	if handled, err := canonicalRequest(w, r, h.AllowEncodedPercent); handled {
		return err
	}
	if handled, err := discovery.ServeWellKnown(w, r); handled {
		return err // the site's discovery manifest is free
	}
	if handled, err := discovery.ServeDID(w, r); handled {
		return err // the site's receipt keys (package discovery)
	}
	if handled, err := discovery.ServeReceipt(w, r); handled {
		return err // a payment's receipt fetched again (package discovery)
	}
	if h.mcp != nil {
		return h.mcp.ServeHTTP(w, r, next) // priced tool calls come back through servePayment (transport.go)
	}
	return h.core.servePayment(w, r, next)
}

// servePayment serves a request through the payment pipeline: the 402,
// or the payment's verify, claim and settle around the next handler. A
// transport's paid call enters here (transportCore.ServePaid).
func (h *core) servePayment(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler) error {
	for _, k := range upstreamHeaders {
		r.Header.Del(k)
	}
	w.Header().Add("Access-Control-Expose-Headers", exposedHeaders)
	if !h.forwardPaymentHeader {
		next = withoutPaymentHeaders{next}
	}
	if isPreflight(r) {
		return next.ServeHTTP(w, r) // a CORS preflight is never charged
	}
	r, sp := h.traceRoute(r) // trace.go
	defer sp.End()
	if qr, ok := h.seller.(quoteReadier); ok {
		if err := qr.readyQuote(); err != nil {
			return err
		}
	}
	off, err := h.offerFor(r)
	if err != nil {
		return h.reply.priceFailed(err)
	}
	sl := &sale{offer: off}
	r = withSale(r, sl)
	traceOffer(r, sl)
	header, v2 := h.reply.paymentHeader(r)
	if handled, err := h.serveAccess(w, r, next, header); handled {
		return err
	}
	if header == "" {
		return h.reply.paymentRequired(w, r, textNoPayment, "")
	}
	if len(header) > httpx.MaxPaymentHeaderBytes {
		sent := "X-PAYMENT"
		if v2 {
			sent = "PAYMENT-SIGNATURE"
		}
		return h.reply.paymentRequired(w, r, "", fmt.Sprintf("%s header exceeds %d KiB", sent, httpx.MaxPaymentHeaderBytes>>10))
	}
	return h.seller.ServePayment(w, r, next, header) // the route's scheme (seller.go)
}
