package paywall

import (
	"fmt"
	"net/http"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// exact's seller side: the price is charged, whatever the upstream
// answers. The payment goes through the core's checkout; the facilitator
// verifies and settles it, before the upstream runs (settle before) or
// when its answer starts (settle after, settle_after.go).

func init() { caddy.RegisterModule(exactScheme{}) }

// Asset transfer methods of an exact route.
const (
	AssetTransferEIP3009 = "eip3009"
	AssetTransferPermit2 = "permit2"
)

// exactScheme is exact's seller side as a Caddy module
// (http.handlers.x402.schemes.exact).
type exactScheme struct{}

// CaddyModule returns the Caddy module information.
func (exactScheme) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{ID: SchemesNamespace + "." + SchemeExact, New: func() caddy.Module { return new(exactScheme) }}
}

// NewSeller readies exact on a route: with asset_transfer permit2 its
// options announce extra.assetTransferMethod "permit2" in their v2
// requirements (the published clients then sign a Permit2 witness
// transfer to the x402 exact proxy).
func (exactScheme) NewSeller(rt *Route) (Seller, error) {
	h := rt.h
	if h.AssetTransfer == AssetTransferPermit2 {
		for i := range h.pricing.options {
			opt := &h.pricing.options[i]
			if opt.caip2 == "" {
				return nil, fmt.Errorf("x402: asset_transfer permit2 on network %q needs its chain id (x402 version 2 only): name the network eip155:<chainId>", opt.reqs.Network)
			}
			opt.extraV2 = map[string]any{"assetTransferMethod": "permit2"}
		}
	}
	return exactCheckout{h: h.core, permit2: h.AssetTransfer == AssetTransferPermit2}, nil
}

// exactCheckout is exact's part of the core's checkout.
type exactCheckout struct {
	h       *core
	permit2 bool // asset_transfer permit2: the payload may be a Permit2 witness transfer
}

// ServePayment serves an exact payment through the core's checkout.
func (e exactCheckout) ServePayment(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler, header string) error {
	return e.h.checkout(w, r, next, header, e)
}

// parse reads an EIP-3009 authorization, or, on a route with
// asset_transfer permit2, a Permit2 witness transfer through the x402
// exact proxy.
func (e exactCheckout) parse(payment *x402.Payment) (string, error) {
	err := payment.ParsePayload()
	if err == nil || !e.permit2 {
		return authScheme(false, false), err
	}
	return authScheme(false, true), parsePermit2Payment(payment, false)
}

// pay verifies the payment and settles it before the upstream runs, or,
// with settle after, reserves it and settles when the answer starts.
func (e exactCheckout) pay(w http.ResponseWriter, r *http.Request, c *claimed) error {
	h := e.h
	if h.settleAfter {
		res, ok, err := h.reservePayment(w, r, c.req, c.payment, c.refusal, c.lost)
		if !ok {
			return err
		}
		return h.deliverThenSettle(w, r, c.next, c.req, c.payment, c.id, c.pid, res)
	}
	if ok, err := h.verifyPayment(w, r, c.req, c.payment, c.refusal, c.lost); !ok {
		return err
	}
	return h.settleThenDeliver(w, r, c.next, c.req, c.payment, c.id, c.pid)
}
