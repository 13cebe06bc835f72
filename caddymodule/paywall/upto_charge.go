package paywall

import (
	"context"
	"math/big"
	"net/http"

	"go.uber.org/zap"

	"github.com/caddy-x402/caddy-x402/facilitator"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// chargeRule is how a route turns its answer into a charge on one option.
type chargeRule struct {
	max      *big.Int
	decimals uint8
	unit     *big.Rat // the meter's unit price in smallest units; nil without a meter
}

// chargeRuleOf is the rule of a request's sale.
func (h *Handler) chargeRuleOf(r *http.Request) chargeRule {
	sl := h.pricing.saleOf(r)
	opt := &h.pricing.options[sl.opt]
	max, _ := new(big.Int).SetString(sl.part().reqs.MaxAmountRequired, 10)
	if max == nil {
		max = new(big.Int)
	}
	cr := chargeRule{max: max, decimals: opt.decimals}
	if h.Meter != nil {
		unit, _ := parseUnitPrice(h.Meter.UnitPrice) // validated
		if h.pricing.whole {
			unit = new(big.Rat).Mul(unit, new(big.Rat).SetInt(pow10(opt.decimals)))
		}
		cr.unit = unit
	}
	return cr
}

// metered is the charge of a meter reading: count x unit price, rounded
// up to a smallest unit.
func (cr chargeRule) metered(count *big.Rat) *big.Int {
	return ceilRat(new(big.Rat).Mul(count, cr.unit))
}

// settleCharge settles an upto payment at its charge: the reservation
// the embedded facilitator holds, or (a remote facilitator) the request
// with the charge as its amount.
func (h *Handler) settleCharge(r *http.Request, req *x402.Request, res *facilitator.Reservation, charge *big.Int) (*x402.SettleResponse, error) {
	sreq := withAmount(req, charge.String())
	if res == nil {
		return h.core.settle(r, sreq, nil)
	}
	return h.core.settleBy(r, sreq, func(ctx context.Context) (*x402.SettleResponse, error) { return res.SettleAmount(ctx, charge) })
}

// withAmount is a copy of a request asking to settle amount (the charge),
// as the x402 reference servers settle an upto payment: the requirements'
// amount at settle is the charge.
func withAmount(req *x402.Request, amount string) *x402.Request {
	out := *req
	out.PaymentRequirements.MaxAmountRequired = amount
	if req.RequirementsV2 != nil {
		v2 := *req.RequirementsV2
		v2.Amount = amount
		out.RequirementsV2 = &v2
	}
	return &out
}

// capCharge caps a charge at the maximum, logging a charge above it.
func (h *Handler) capCharge(r *http.Request, charge, max *big.Int, source string) *big.Int {
	if charge.Cmp(max) <= 0 {
		return charge
	}
	h.logger.Warn("the upstream's answer asks for more than the buyer's maximum; charging the maximum",
		zap.String("source", source), zap.String("charge", charge.String()), zap.String("maximum", max.String()),
		zap.String("uri", r.RequestURI))
	return new(big.Int).Set(max)
}
