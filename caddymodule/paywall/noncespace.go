package paywall

import (
	"net/http"

	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// Nonce spaces. A buyer picks its nonces, so one payer may sign the same
// nonce for an EIP-3009 authorization (exact) and for a Permit2 one (upto,
// or exact with asset_transfer permit2): they are two authorizations, each
// of which the chain lets be used once. The paywall keys its redemption
// records and claims as the facilitator's engine keys its journal
// (facilitator.AuthorizationKey): an EIP-3009 payment by network/payer/nonce (the
// key records were always written under, so they stay valid across an
// upgrade), a Permit2 payment by network/payer/permit2/nonce; and it names
// the payment's scheme when it asks the facilitator what became of an
// authorization. So a Permit2 payment is never answered from, delivered
// against or refused by an EIP-3009 payment's record or settlement, nor
// the other way round. upto and exact through Permit2 share Permit2's
// nonce bitmap, so they share a space: one such nonce pays once.

// authScheme is the facilitator scheme of a parsed payment's
// authorization: upto, exact-permit2 for a Permit2 witness transfer on an
// exact route, else exact (EIP-3009).
func authScheme(uptoRoute, permit2 bool) string {
	switch {
	case uptoRoute:
		return x402.SchemeUpto
	case permit2:
		return x402.SchemeExactPermit2
	}
	return x402.SchemeExact
}

// authIDOf is the redemption key of the request's payment: its network,
// payer, scheme and nonce (authID).
func (h *core) authIDOf(r *http.Request, p *x402.Payment) string {
	sl := h.pricing.saleOf(r)
	return authID(sl.network(), sl.scheme(), p.Authorization.From, p.Authorization.Nonce)
}

// scheme is the facilitator scheme of the request's payment (authScheme;
// exact before one is parsed).
func (s *sale) scheme() string {
	if s.authScheme == "" {
		return x402.SchemeExact
	}
	return s.authScheme
}
