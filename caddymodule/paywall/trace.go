package paywall

import (
	"context"
	"math/big"
	"net/http"

	"go.opentelemetry.io/otel/trace"

	"github.com/caddy-x402/caddy-x402/facilitator/x402"
	"github.com/caddy-x402/caddy-x402/internal/paytrace"
)

// The spans of a payment at the paywall (docs/tracing.md): x402.paywall,
// a child of the request's span (Caddy's `tracing`), and under it one span
// per step. A leaf: the steps call these, these call no step.
const (
	spanPaywall  = "x402.paywall"  // the route's handling of the request
	spanQuote    = "x402.quote"    // a 402 with the requirements (unpaid, or refused)
	spanVerify   = "x402.verify"   // the facilitator's verify or reserve
	spanClaim    = "x402.claim"    // the claims on the payment id and the authorization
	spanRecord   = "x402.record"   // a write of the payment's redemption record
	spanSettle   = "x402.settle"   // the facilitator's settle
	spanUpstream = "x402.upstream" // the next handler (the paid resource)
	spanAnswer   = "x402.answer"   // the paid answer's headers (PAYMENT-RESPONSE, grant)
	spanVoucher  = "x402.voucher"  // a channel voucher's check and charge
	spanMeter    = "x402.meter"    // a metered answer read for its charge
)

// traceRoute starts the paywall's span of a request on the route and
// returns the request carrying it; without tracing, r itself.
func (h *core) traceRoute(r *http.Request) (*http.Request, paytrace.Span) {
	ctx, sp := paytrace.Start(r.Context(), spanPaywall)
	if !sp.On() {
		return r, sp
	}
	sp.Set(paytrace.KeyRoute, h.metrics.label)
	return r.WithContext(ctx), sp
}

// traceOffer sets a sale's scheme, network and amount (its chosen
// option's, the first before a payment chose) on the paywall's span of r.
func traceOffer(r *http.Request, sl *sale) {
	sp := paytrace.FromContext(r.Context())
	if !sp.On() {
		return
	}
	reqs := &sl.part().reqs
	sp.Set(paytrace.KeyScheme, reqs.Scheme)
	sp.Set(paytrace.KeyNetwork, reqs.Network)
	sp.Set(paytrace.KeyAmount, reqs.MaxAmountRequired)
}

// tracePayment sets what a decoded payment says on the paywall's span:
// its network, payer and amount (the price of the option it chose).
func tracePayment(r *http.Request, payment *x402.Payment, sl *sale) {
	sp := paytrace.FromContext(r.Context())
	if !sp.On() {
		return
	}
	traceOffer(r, sl)
	if payment.Authorization.From != (x402.Authorization{}).From {
		sp.Set(paytrace.KeyPayer, payment.Authorization.From.Hex())
	}
}

// traceQuote starts the span of a 402 answer of r; one with a reason
// (invalid, or errText other than textNoPayment) marks the paywall's span
// refused.
func traceQuote(r *http.Request, errText, invalid string) paytrace.Span {
	_, sp := paytrace.Start(r.Context(), spanQuote)
	if !sp.On() {
		return sp
	}
	if invalid == "" && errText != textNoPayment {
		invalid = errText
	}
	traceRefused(r, invalid)
	return sp
}

// traceRefused marks the paywall's span of r refused with reason (an
// x402 reason text; error.type is its code).
func traceRefused(r *http.Request, reason string) {
	if sp := paytrace.FromContext(r.Context()); sp.On() && reason != "" {
		sp.Refuse(x402.CodeOf(reason, "other"), reason)
	}
}

// traceVerify starts the verify's span of r's payment: its context goes
// to the facilitator (whose spans are its children).
func traceVerify(r *http.Request) (context.Context, paytrace.Span) {
	return paytrace.Start(r.Context(), spanVerify)
}

// traceVerified sets a verify's outcome on its span and ends it.
func traceVerified(sp paytrace.Span, vr *x402.VerifyResponse, err error) {
	if sp.On() {
		sp.Fail("facilitator_failed", err)
		if err == nil && vr != nil && !vr.IsValid {
			sp.Refuse(x402.CodeOf(vr.Reason(), "other"), vr.Reason())
		}
		if err == nil && vr != nil {
			sp.Set(paytrace.KeyPayer, vr.Payer)
		}
	}
	sp.End()
}

// traceSettle starts the settle's span of r's payment in ctx (the
// settle's context, which goes to the facilitator).
func traceSettle(ctx context.Context) (context.Context, paytrace.Span) {
	return paytrace.Start(ctx, spanSettle)
}

// traceSettled sets a settle's outcome on its span sp and ends it: the
// transaction (also on the paywall's span of r), or the refusal.
func traceSettled(r *http.Request, sp paytrace.Span, sr *x402.SettleResponse, err error) {
	if sp.On() {
		sp.Fail("facilitator_failed", err)
		if sr != nil {
			sp.Set(paytrace.KeyTransaction, sr.TxHash)
			sp.Set(paytrace.KeyPayer, sr.From)
			paytrace.FromContext(r.Context()).Set(paytrace.KeyTransaction, sr.TxHash)
			if !sr.Settled() {
				sp.Refuse(x402.CodeOf(sr.Error, "other"), sr.Error)
			}
		}
	}
	sp.End()
}

// traceStep starts the span of a step of r's payment, with its context
// in the request it returns (for a step that hands the request on: the
// upstream); without tracing, r itself.
func traceStep(r *http.Request, name string) (*http.Request, paytrace.Span) {
	ctx, sp := paytrace.Start(r.Context(), name)
	if !sp.On() {
		return r, sp
	}
	return r.WithContext(ctx), sp
}

// traceRecord starts the span of a write of the payment's record in
// state.
func traceRecord(r *http.Request, state string) paytrace.Span {
	_, sp := paytrace.Start(r.Context(), spanRecord)
	sp.Set("x402.record.state", state)
	return sp
}

// traceAnswer starts the span of a paid answer's headers of r, with the
// settlement's transaction.
func traceAnswer(r *http.Request, sr *x402.SettleResponse) paytrace.Span {
	_, sp := paytrace.Start(r.Context(), spanAnswer)
	sp.Set(paytrace.KeyTransaction, sr.TxHash)
	return sp
}

// traceVoucher starts the span of a channel voucher's check and charge of
// r, with the payer (also on the paywall's span).
func traceVoucher(r *http.Request, payer string) paytrace.Span {
	_, sp := paytrace.Start(r.Context(), spanVoucher)
	if sp.On() {
		sp.Set(paytrace.KeyPayer, payer)
		paytrace.FromContext(r.Context()).Set(paytrace.KeyPayer, payer)
	}
	return sp
}

// traceVoucherCharged sets a voucher's charge on its span sp and on the
// paywall's span of r.
func traceVoucherCharged(r *http.Request, sp paytrace.Span, charge *big.Int) {
	if sp.On() {
		c := charge.String()
		sp.Set(paytrace.KeyCharged, c)
		paytrace.FromContext(r.Context()).Set(paytrace.KeyCharged, c)
	}
}

// traceCharged sets a metered payment's charge on the paywall's span of r.
func traceCharged(r *http.Request, charge string) {
	paytrace.FromContext(r.Context()).Set(paytrace.KeyCharged, charge)
}

// traceMetered runs a metered answer of r: the upstream (serve, under
// x402.upstream) and then the meter's finish with its error (under
// x402.meter: the charge read, and with settle before, its settle).
func traceMetered(r *http.Request, serve func(*http.Request) error, finish func(error) error) error {
	ur, sp := traceStep(r, spanUpstream)
	err := serve(ur)
	sp.End()
	_, sp = paytrace.Start(r.Context(), spanMeter)
	defer sp.End()
	return finish(err)
}

// The traces of a channel route's rounds, which no request starts: roots
// from the tracer provider of the route's last traced request (none
// before one, or without `tracing`).
const (
	spanClaimRound = "x402.channel.claim"    // a claim round of one option's channels
	spanRefund     = "x402.channel.refund"   // a refund the route starts (idle, or a retry)
	spanWithdraw   = "x402.channel.withdraw" // the channels a scan found withdrawing, recorded
)

// keptProvider is a route's last traced request's tracer provider.
type keptProvider struct{ tp trace.TracerProvider }

// keepProvider keeps the tracer provider of r's span, when traced, for
// the route's rounds (an atomic store only when it changed).
func (rt *chanRoute) keepProvider(r *http.Request) {
	tp := paytrace.Provider(r.Context())
	if tp == nil {
		return
	}
	if cur, _ := rt.tracer.Load().(keptProvider); cur.tp != tp {
		rt.tracer.Store(keptProvider{tp})
	}
}

// traceRound starts in ctx the root span name of a round on network,
// from the kept provider.
func (rt *chanRoute) traceRound(ctx context.Context, name, network string) (context.Context, paytrace.Span) {
	kp, _ := rt.tracer.Load().(keptProvider)
	ctx, sp := paytrace.Root(ctx, kp.tp, name)
	sp.Set(paytrace.KeyNetwork, network)
	sp.Set(paytrace.KeyRoute, rt.metrics.label)
	sp.Set(paytrace.KeyScheme, SchemeChannel)
	return ctx, sp
}

// traceWithdraws starts the root span of recording n channels a withdraw
// scan found on network; none when n is 0.
func (rt *chanRoute) traceWithdraws(ctx context.Context, network string, n int) (context.Context, paytrace.Span) {
	if n == 0 {
		return ctx, paytrace.Span{}
	}
	ctx, sp := rt.traceRound(ctx, spanWithdraw, network)
	sp.SetInt("x402.channels", int64(n))
	return ctx, sp
}
