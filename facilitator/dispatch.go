package facilitator

import (
	"context"
	"time"

	"github.com/caddy-x402/caddy-x402/facilitator/network"
	"github.com/caddy-x402/caddy-x402/facilitator/scheme"
	"github.com/caddy-x402/caddy-x402/facilitator/store"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// Dispatch: a request is validated, its payment envelope decoded, and it
// goes to the scheme bound to its network (package scheme), which checks,
// verifies, settles or claims it.

// validateRequest rejects requests that are malformed as requests (HTTP
// 400); see x402.ValidateRequest.
func validateRequest(req *x402.Request) error { return x402.ValidateRequest(req) }

// ViaAPI marks a settle asked for through the facilitator's HTTP routes:
// its journal record says so (store.ViaAPI), and
// OwnSettlementByAuthorization does not answer it, since the seller it
// paid may be another paywall on the same pay_to, which delivered it.
func ViaAPI(ctx context.Context) context.Context { return scheme.WithVia(ctx, store.ViaAPI) }

// flavourBound is a flavour (scheme.Flavour) bound to a network.
type flavourBound struct {
	m scheme.Flavour
	b scheme.Bound
}

// boundKey names a scheme on a network.
type boundKey struct {
	n      *network.Network
	scheme string
}

// route decodes a request's payment and finds the scheme bound to its
// network, then runs the scheme's off-chain checks, in the order of the
// reference facilitators: scheme, network, then the scheme's own. A
// non-empty reason is the verify invalidReason.
func (f *Facilitator) route(req *x402.Request) (scheme.Bound, scheme.Payment, string) {
	r := &req.PaymentRequirements
	p, err := x402.DecodePaymentHeader(req.PaymentHeader)
	if err != nil {
		return nil, nil, x402.ReasonOf(err)
	}
	if !scheme.Known(r.Scheme) {
		return nil, nil, x402.ReasonUnsupportedScheme(r.Scheme)
	}
	if req.Dialect != x402.DialectV2 && p.X402Version != x402.Version2 && f.v2Only(r.Scheme) {
		// The scheme asked for is the one not supported (upto in a v1
		// request with a v1 payment), whatever the payment header says.
		// A version 2 payment goes on: in a v2 request, in the paywall's
		// own requests (X402Version 1 with the v2 dialect) and in the
		// library's callers' (no dialect set).
		return nil, nil, x402.ReasonUnsupportedScheme(r.Scheme)
	}
	if p.Scheme != r.Scheme {
		return nil, nil, x402.ReasonUnsupportedScheme(p.Scheme)
	}
	n := f.networkNamed(r.Network)
	if n == nil {
		return nil, nil, x402.ReasonUnsupportedNetwork(r.Network)
	}
	if f.networkNamed(p.Network) != n {
		return nil, nil, x402.ReasonUnsupportedNetwork(p.Network)
	}
	b := f.bound[boundKey{n, r.Scheme}]
	for _, fb := range f.flavours[boundKey{n, r.Scheme}] {
		if fb.m.Takes(p) {
			b = fb.b
			break
		}
	}
	if b == nil {
		return nil, nil, x402.ReasonUnsupportedScheme(r.Scheme)
	}
	c, reason := b.Check(req, p)
	return b, c, reason
}

// v2Only tells whether the scheme is bound only for x402 version 2 (upto)
// on any of the facilitator's networks.
func (f *Facilitator) v2Only(name string) bool {
	for _, n := range f.networks {
		if b, ok := f.bound[boundKey{n, name}].(scheme.V2Only); ok && b.V2Only() {
			return true
		}
	}
	return false
}

// Verify checks a payment against the seller's requirements: the off-chain
// checks, then (unless the network skips them) authorizationState, the
// payer's balance and a simulated transfer in one RPC round trip.
//
// The answer's IsValid and InvalidReason are the verdict. An error is
// returned only when there is no verdict: a malformed request (x402.StatusError
// 400) or an unreachable chain (x402.StatusError 503).
func (f *Facilitator) Verify(ctx context.Context, req *x402.Request) (res *x402.VerifyResponse, err error) {
	ctx, sp := traceStart(ctx, spanVerify, req) // trace.go
	defer func() { traceVerdict(sp, res, err); sp.End() }()
	if err := validateRequest(req); err != nil {
		return nil, err
	}
	csp := traceCheck(ctx)
	b, c, reason := f.route(req)
	traceChecked(ctx, csp, c, reason)
	if reason != "" {
		return x402.Invalid(reason), nil
	}
	reason, err = b.Verify(ctx, c)
	if err != nil {
		return nil, err
	}
	res = x402.Valid()
	if reason != "" {
		res = x402.Invalid(reason)
	}
	if ve, ok := c.(scheme.VerifyExtra); ok {
		res.Payer, res.Extra = ve.VerifyPayer(), ve.VerifyExtra()
	}
	return res, nil
}

// Settle re-checks a payment as Verify does, submits transferWithAuthorization
// from one of the network's signer keys, waits until the transaction is in a
// block and answers payment.settled, or payment.failed with the reason.
// Every settlement is journaled before its transaction is broadcast.
//
// When the transaction is not in a block within the settle timeout, the
// answer is payment.failed with "Settlement pending" and the txHash; the
// outcome is then found with Settlement.
//
// An error is returned only when there is no settlement result to give: a
// malformed request (x402.StatusError 400), or a chain or signer that cannot be
// used right now with nothing broadcast (x402.StatusError 503).
func (f *Facilitator) Settle(ctx context.Context, req *x402.Request) (sr *x402.SettleResponse, err error) {
	ctx, sp := traceStart(ctx, spanSettle, req) // trace.go
	defer func() { traceSettled(sp, sr, err); sp.End() }()
	if err := validateRequest(req); err != nil {
		return nil, err
	}
	// The settle timeout bounds the whole call: checks, send and confirmation.
	deadline := time.Now().Add(f.settleTimeout)
	ctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	requested := req.PaymentRequirements.Network
	csp := traceCheck(ctx)
	b, c, reason := f.route(req)
	traceChecked(ctx, csp, c, reason)
	if reason != "" {
		return x402.Failed(requested, x402.SettleText(reason)), nil
	}
	if err := gateReceiverOp(ctx, c); err != nil {
		return nil, err
	}
	return b.Settle(ctx, c, requested, deadline)
}

// Reservation is a verified payment held for a settle that comes later
// (Reserve). Settle it or Release it; the first of the two counts.
type Reservation struct {
	c scheme.Claim
}

// Reserve verifies a payment as Verify does and, when it is valid, holds it
// for a settle that comes later (a seller that settles after its upstream
// answered): its authorization, so that no other settle takes it, and its
// value against the payer's balance beside the payer's settlements in
// flight, so that a payer's payments accepted at once never exceed what it
// holds. A payment that does not fit is invalid with the token's
// "ERC20: transfer amount exceeds balance". The Reservation comes with a
// valid answer only; a copy of a held authorization is invalid as
// "Authorization already used".
func (f *Facilitator) Reserve(ctx context.Context, req *x402.Request) (_ *Reservation, vr *x402.VerifyResponse, err error) {
	ctx, sp := traceStart(ctx, spanReserve, req) // trace.go
	defer func() { traceVerdict(sp, vr, err); sp.End() }()
	if err := validateRequest(req); err != nil {
		return nil, nil, err
	}
	csp := traceCheck(ctx)
	b, c, reason := f.route(req)
	traceChecked(ctx, csp, c, reason)
	if reason != "" {
		return nil, x402.Invalid(reason), nil
	}
	cl, reason, err := b.Claim(ctx, c, req.PaymentRequirements.Network)
	if err != nil {
		return nil, nil, err
	}
	if reason != "" {
		return nil, x402.Invalid(reason), nil
	}
	return &Reservation{c: cl}, x402.Valid(), nil
}

// Settle settles the reserved payment as Facilitator.Settle does, within
// the settle timeout from now.
func (r *Reservation) Settle(ctx context.Context) (sr *x402.SettleResponse, err error) {
	ctx, sp := traceReserved(ctx, nil)
	defer func() { traceSettled(sp, sr, err); sp.End() }()
	return r.c.Settle(ctx)
}

// Release gives the reservation back unsettled; after Settle it does
// nothing.
func (r *Reservation) Release() { r.c.Release() }
