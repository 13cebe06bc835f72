package paywall

import (
	"fmt"
	"net/http"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/caddy-x402/caddy-x402/caddymodule/internal/httpx"
	"github.com/caddy-x402/caddy-x402/caddymodule/paywall/discovery"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
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
	header, v2 := h.reply.paymentHeader(r)
	if handled, err := h.serveAccess(w, r, next, header); handled {
		return err
	}
	if header == "" {
		return h.reply.paymentRequired(w, r, "X-PAYMENT header is required", "")
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

// checkout is the core's pipeline for a payment of a scheme the
// checkoutScheme cs reads and pays: decode, the option of its network,
// its payment id, the refusal cache and the attempt limit, then the
// claims and the pay (servePaid).
func (h *core) checkout(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler, header string, cs checkoutScheme) error {
	sl := h.pricing.saleOf(r)
	_, v2 := h.reply.paymentHeader(r)
	// Decode here, so that a remote facilitator is not asked about
	// garbage and the upstream can be told who pays in settle-after mode.
	payment, err := x402.DecodePaymentHeader(header)
	if err == nil {
		sl.authScheme, err = cs.parse(payment)
	}
	if err != nil {
		h.metrics.payment(h.pricing.saleOf(r), OutcomeRefused, invalidReason(err))
		return h.reply.paymentRequired(w, r, "", invalidReason(err))
	}
	// The option of the network the payment names: it is verified and
	// settled against that option's requirements, at this request's price.
	opt, reason := h.pricing.choose(payment)
	sl.opt = opt
	if reason != "" {
		h.metrics.payment(h.pricing.saleOf(r), OutcomeRefused, reason)
		return h.reply.paymentRequired(w, r, "", reason)
	}
	pid, bad := h.paymentIDOf(payment)
	if bad != "" {
		return h.reply.paymentIDAnswer(w, r, http.StatusBadRequest, paymentIDAnswer{Error: bad})
	}

	// An authorization refused a moment ago (at this price) is refused
	// again from memory; otherwise the attempt counts against the
	// client's limit.
	key := refusalKey(payment, sl.part().reqs.MaxAmountRequired)
	if reason, ok := h.attempts.refusal(key); ok {
		h.metrics.payment(h.pricing.saleOf(r), OutcomeRefused, reason)
		return h.reply.paymentRequired(w, r, "", reason)
	}
	if ok, wait := h.attempts.allow(httpx.ClientIP(r)); !ok {
		h.metrics.payment(h.pricing.saleOf(r), OutcomeRateLimited, "")
		return tooManyAttempts(w, wait)
	}

	req := &x402.Request{
		X402Version:         x402.X402Version,
		PaymentHeader:       header,
		PaymentRequirements: sl.part().reqs,
	}
	if v2 {
		req = h.reply.v2Request(r, header, resourceURL(r))
	}
	req.PaymentRequirements.Resource = resourceURL(r)

	return h.servePaid(w, r, &claimed{next: next, req: req, payment: payment, refusal: key, pid: pid}, cs)
}
