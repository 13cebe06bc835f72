package paywall

import (
	"net/http"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/caddy-x402/caddy-x402/caddymodule/access"
	"github.com/caddy-x402/caddy-x402/caddymodule/internal/httpx"
)

// The paywall's side of access (package access): it builds the route's gate,
// lets it serve requests without payment and answers its refusals, and
// hands it each settled payment (settled).

// provisionAccess builds the route's gate, once its payment options, the
// attempt limit and the redemption store are known: nil without access.
func (h *Handler) provisionAccess(ctx caddy.Context) error {
	route := access.Route{Label: h.Label, MetricsLabel: h.metrics.label}
	for _, o := range h.pricing.options {
		route.Options = append(route.Options, access.Option{Network: o.reqs.Network, CAIP2: o.caip2, PayTo: o.reqs.PayTo,
			Asset: o.reqs.Asset, Description: o.reqs.Description, MimeType: o.reqs.MimeType})
	}
	attempts := h.core.attempts
	deps := access.Deps{Allow: func(r *http.Request) (bool, time.Duration) { return attempts.allow(httpx.ClientIP(r)) }}
	if h.core.redeem != nil {
		deps.Store = h.core.redeem.Store()
	}
	// Contract wallets sign in on the route's networks that the x402 app
	// serves (with the embedded facilitator, all of them; with a remote
	// one, those configured in the app too).
	if h.app != nil && h.app.Facilitator() != nil {
		fac := h.app.Facilitator()
		deps.WalletCheck, deps.WalletNetworks = fac.WalletSignature, map[string]bool{}
		for _, o := range h.pricing.options {
			if _, ok := fac.NetworkInfo(o.reqs.Network); ok {
				deps.WalletNetworks[o.reqs.Network] = true
			}
		}
	}
	gate, err := access.Provision(ctx, h.Window, route, deps, h.logger)
	h.core.gate = gate
	return err
}

// serveAccess lets the gate serve a request without payment that a live
// grant lets through, and answers a sign-in it refused: 402 with the
// reason and a fresh challenge, 429 or 503. It reports handled false when
// the request is to be answered as any other.
func (h *core) serveAccess(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler, paymentHeader string) (bool, error) {
	if h.gate == nil || paymentHeader != "" {
		return false, nil
	}
	handled, refusal, err := h.gate.Serve(w, r, next, h.pricing.accessPrice(r), resourceURL(r))
	switch {
	case refusal == nil:
		return handled, err
	case refusal.Status == http.StatusTooManyRequests:
		return true, tooManyAttempts(w, refusal.Wait)
	case refusal.Status == http.StatusServiceUnavailable:
		return true, httpx.WriteRetryJSON(w, http.StatusServiceUnavailable, refusal.Text, refusal.Retry)
	}
	return true, h.reply.paymentRequired(w, r, refusal.Text, "")
}
