package facilitator

import (
	"context"
	"math/big"
	"strconv"

	"github.com/caddy-x402/caddy-x402/facilitator/scheme"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
	"github.com/caddy-x402/caddy-x402/internal/paytrace"
)

// The facilitator's spans (docs/tracing.md), children of the caller's
// span when ctx carries a recording one (the paywall's verify or settle,
// or the facilitator API's request under Caddy's `tracing`); none
// otherwise. A leaf: dispatch.go calls these, these call nothing of it.
const (
	spanVerify  = "x402.facilitator.verify"  // Verify
	spanSettle  = "x402.facilitator.settle"  // Settle (and a Reservation's)
	spanReserve = "x402.facilitator.reserve" // Reserve
	spanCheck   = "x402.check"               // decode and off-chain checks (signature recovery)
)

// traceStart starts the span name of a request: scheme, network and
// amount from its requirements.
func traceStart(ctx context.Context, name string, req *x402.Request) (context.Context, paytrace.Span) {
	ctx, sp := paytrace.Start(ctx, name)
	if sp.On() {
		r := &req.PaymentRequirements
		sp.Set(paytrace.KeyScheme, r.Scheme)
		sp.Set(paytrace.KeyNetwork, r.Network)
		sp.Set(paytrace.KeyAmount, r.MaxAmountRequired)
	}
	return ctx, sp
}

// traceCheck starts the span of a request's decode and off-chain checks.
func traceCheck(ctx context.Context) paytrace.Span {
	_, sp := paytrace.Start(ctx, spanCheck)
	return sp
}

// traceChecked ends the check's span sp, with the payer (also on ctx's
// span) or the refusal.
func traceChecked(ctx context.Context, sp paytrace.Span, c scheme.Payment, reason string) {
	if sp.On() {
		if c != nil {
			payer := c.Payer().Hex()
			sp.Set(paytrace.KeyPayer, payer)
			paytrace.FromContext(ctx).Set(paytrace.KeyPayer, payer)
		}
		traceRefused(sp, reason)
	}
	sp.End()
}

// traceRefused marks sp refused with reason (a verify reason text).
func traceRefused(sp paytrace.Span, reason string) {
	if sp.On() && reason != "" {
		sp.Refuse(x402.CodeOf(reason, "other"), reason)
	}
}

// traceVerdict sets a verify's outcome on sp: the refusal, or the error
// that left no verdict.
func traceVerdict(sp paytrace.Span, res *x402.VerifyResponse, err error) {
	if !sp.On() {
		return
	}
	sp.Fail(errType(err), err)
	if res != nil && !res.IsValid {
		traceRefused(sp, res.Reason())
	}
}

// traceSettled sets a settle's outcome on sp: the transaction, the
// refusal, or the error that left no result.
func traceSettled(sp paytrace.Span, sr *x402.SettleResponse, err error) {
	if !sp.On() {
		return
	}
	sp.Fail(errType(err), err)
	if sr != nil {
		sp.Set(paytrace.KeyTransaction, sr.TxHash)
		sp.Set(paytrace.KeyPayer, sr.From)
		if !sr.Settled() {
			traceRefused(sp, sr.Error)
		}
	}
}

// errType is the error.type of an error that left no verdict: its x402
// reason code, else its HTTP status (400: the request; 503: the chain).
func errType(err error) string {
	if err == nil {
		return ""
	}
	return x402.CodeOf(x402.ReasonOf(err), strconv.Itoa(x402.StatusOf(err)))
}

// traceReserved starts the settle's span of a reservation; charged, when
// not nil, is a metered settle's amount (x402.charged).
func traceReserved(ctx context.Context, charged *big.Int) (context.Context, paytrace.Span) {
	ctx, sp := paytrace.Start(ctx, spanSettle)
	if sp.On() && charged != nil {
		sp.Set(paytrace.KeyCharged, charged.String())
	}
	return ctx, sp
}
