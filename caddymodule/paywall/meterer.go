package paywall

import (
	"math/big"
	"net/http"

	"go.uber.org/zap"
)

// meterer is a metered route's meter, shared by upto payments (upto.go)
// and channel requests (channel_meter.go): it readies a request for the
// meter (forMeter, meter_request.go) and wraps the upstream's answer in a
// meterWriter (newWriter, meter_writer.go), which takes the charge from
// the answer. The scheme settles the charge (an upto payment's
// uptoCharge, a channel's answerCharge).
//
// It reads of the route: the meter and meter_max_bytes (Metering),
// settle after, the options and sales (pricing: a sale's maximum and
// decimals, whole-token prices), the metrics, the logger, and the
// route's replies for the log of a charge whose buyer hung up
// (logAnswerLost, hangup.go).
type meterer struct {
	meter    *Meter // nil: no meter (the header, else the maximum)
	maxBytes int    // meter_max_bytes or its default
	after    bool   // settle after
	pricing  *pricing
	metrics  *routeMetrics
	logger   *zap.Logger
	// reply is the route's replies (the Handler's, filled in after the
	// scheme's seller is made; read at requests only).
	reply *replies
}

// textHeadMetered is the 402's error for a paid HEAD on a route whose
// meter reads the answer's body, which an answer to HEAD does not have.
const textHeadMetered = "this route charges what its answer's body reports, and an answer to HEAD has none: ask with GET (nothing was charged)"

// refusesHead says whether r is a HEAD on a route whose meter reads the
// body: its charge could only be the maximum, for an answer that carries
// nothing, so the scheme answers 402 (textHeadMetered) before it verifies
// or charges anything, and the upstream does not run. A route metered by
// the upstream's header alone (no meter) takes HEAD as any request.
func (m *meterer) refusesHead(r *http.Request) bool {
	return m.meter != nil && r.Method == http.MethodHead
}

// chargeRule is how a route turns its answer into a charge on one option.
type chargeRule struct {
	max      *big.Int
	decimals uint8
	unit     *big.Rat // the meter's unit price in smallest units; nil without a meter
}

// chargeRuleOf is the rule of a request's sale.
func (m *meterer) chargeRuleOf(r *http.Request) chargeRule {
	sl := m.pricing.saleOf(r)
	opt := &m.pricing.options[sl.opt]
	max, _ := new(big.Int).SetString(sl.part().reqs.MaxAmountRequired, 10)
	if max == nil {
		max = new(big.Int)
	}
	cr := chargeRule{max: max, decimals: opt.decimals}
	if m.meter != nil {
		unit, _ := parseUnitPrice(m.meter.UnitPrice) // validated
		if m.pricing.whole {
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

// capCharge caps a charge at the maximum, logging a charge above it.
func (m *meterer) capCharge(r *http.Request, charge, max *big.Int, source string) *big.Int {
	if charge.Cmp(max) <= 0 {
		return charge
	}
	m.logger.Warn("the upstream's answer asks for more than the buyer's maximum; charging the maximum",
		zap.String("source", source), zap.String("charge", charge.String()), zap.String("maximum", max.String()),
		zap.String("uri", r.RequestURI))
	return new(big.Int).Set(max)
}

// newMeterer is the meter of a metered route (upto, batch-settlement),
// made by its scheme at Provision: what it reads of the route is set by
// then (its options and metrics are read through pointers, as they are
// finished later).
func newMeterer(h *Handler) *meterer {
	return &meterer{meter: h.Meter, maxBytes: h.maxBytes(), after: h.core.settleAfter, pricing: &h.pricing,
		metrics: &h.metrics, logger: h.logger, reply: &h.reply}
}
