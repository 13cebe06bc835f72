package facilitator

import (
	"context"
	"math/big"

	"github.com/caddy-x402/caddy-x402/facilitator/scheme"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// SettleAmount settles less than the reserved payment holds, within the
// settle timeout from now: the charge metered after the upstream answered,
// for a scheme that meters (upto: at most the maximum the buyer signed; 0
// moves nothing and answers payment.settled without a transaction). A
// charge above the maximum is payment.failed with "Settle amount exceeds
// the authorized maximum: ..." and the reservation stays held. A scheme
// that does not meter (exact) answers an x402.StatusError 400.
func (r *Reservation) SettleAmount(ctx context.Context, amount *big.Int) (sr *x402.SettleResponse, err error) {
	ctx, sp := traceReserved(ctx, amount) // trace.go
	defer func() { traceSettled(sp, sr, err); sp.End() }()
	m, ok := r.c.(scheme.MeteredClaim)
	if !ok {
		return nil, scheme.BadRequest("this payment's scheme settles its whole amount; it cannot settle a metered charge")
	}
	return m.SettleAmount(ctx, amount)
}

// SchemeExtra is the requirements' extra a scheme announces on a network
// (upto: the token's EIP-712 name and version and facilitatorAddress, the
// signer that settles); ok is false when the scheme is not served there
// (upto on a chain without Permit2 and the x402 upto proxy). A
// flavour's name asks for the flavour (SchemeBatchPermit2Deposit).
func (f *Facilitator) SchemeExtra(network, schemeName string) (any, bool) {
	n := f.networkNamed(network)
	if n == nil {
		return nil, false
	}
	b := f.bound[boundKey{n, schemeName}]
	for k, fbs := range f.flavours {
		for _, fb := range fbs {
			if b == nil && k.n == n && fb.m.Name() == schemeName {
				b = fb.b
			}
		}
	}
	if b == nil {
		return nil, false
	}
	return b.Extra(), true
}

// Declined is why a scheme is not served on a network, as the scheme said
// when the facilitator started (scheme.Declined); "" when it is served,
// or when the scheme gave no reason.
func (f *Facilitator) Declined(network, schemeName string) string {
	n := f.networkNamed(network)
	if n == nil {
		return ""
	}
	if _, ok := f.SchemeExtra(network, schemeName); ok {
		return ""
	}
	return f.declined[boundKey{n, schemeName}]
}
