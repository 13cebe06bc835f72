package paywall

import (
	"math/big"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/caddy-x402/caddy-x402/caddymodule/internal/httpx"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// Payment outcomes, the outcome label of x402_payments_total.
const (
	OutcomeSettled     = "settled"      // settled on chain; the request went through
	OutcomeRefused     = "refused"      // refused with a 402 and a reason
	OutcomePending     = "pending"      // broadcast, not in a block within settle_timeout
	OutcomeRateLimited = "rate_limited" // over attempt_limit: 429
	OutcomeFailed      = "failed"       // the facilitator could not be asked: 500
)

// paywallMetrics are the collectors of the paywall. They are made once per process and registered in the metrics
// registry of every config that uses them (Caddy makes a registry per
// config), so counts carry over config reloads.
var paywallMetrics struct {
	once       sync.Once
	payments   *prometheus.CounterVec
	revenue    *prometheus.CounterVec
	verifyTime *prometheus.HistogramVec
	settleTime *prometheus.HistogramVec
}

// latencyBuckets reach from a cached answer to a slow block.
var latencyBuckets = []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60}

func initMetrics(reg *prometheus.Registry) error {
	m := &paywallMetrics
	m.once.Do(func() {
		m.payments = prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "x402", Name: "payments_total",
			Help: "Payment attempts at the paywall, by network, route (the handler's label), outcome (settled, refused, pending, rate_limited, failed) and reason (the x402 reason code).",
		}, []string{"network", "route", "outcome", "reason"})
		m.revenue = prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "x402", Name: "revenue_smallest_units_total",
			Help: "Value settled to the seller, in the token's smallest units, by network, asset and pay_to.",
		}, []string{"network", "asset", "pay_to"})
		m.verifyTime = prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: "x402", Name: "verify_duration_seconds",
			Help: "Time the paywall waited for the facilitator's verify, by network.", Buckets: latencyBuckets,
		}, []string{"network"})
		m.settleTime = prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: "x402", Name: "settle_duration_seconds",
			Help: "Time the paywall waited for the facilitator's settle (to the block, or settle_timeout), by network.", Buckets: latencyBuckets,
		}, []string{"network"})
	})
	for _, c := range []prometheus.Collector{m.payments, m.revenue, m.verifyTime, m.settleTime} {
		if err := httpx.Register(reg, c); err != nil {
			return err
		}
	}
	return nil
}

// routeMetrics observe one route's payments in the paywall's collectors,
// under the route's label (the handler's label, or "<amount> to <pay_to>").
type routeMetrics struct {
	label string
}

// payment counts a payment attempt of a sale; reason is an x402 reason
// text (turned into its code, so that the label has few values). The
// network is the option the payment chose (the route's first before it
// chose).
func (rm routeMetrics) payment(sl *sale, outcome, reason string) {
	code := ""
	if reason != "" {
		code = x402.CodeOf(reason, "other")
	}
	rm.paymentCode(sl, outcome, code)
}

// paymentCode counts a payment attempt whose reason is the code given
// (one of ours where x402 has none).
func (rm routeMetrics) paymentCode(sl *sale, outcome, code string) {
	m := &paywallMetrics
	if m.payments == nil {
		return
	}
	m.payments.WithLabelValues(sl.network(), rm.label, outcome, code).Inc()
}

// revenue counts a settled payment and its value. It is called
// once per payment, where this paywall learns that the money moved (a
// settle answer, or the outcome of a pending one), not where the resource
// is delivered, which a retry after a hang-up or a crash repeats.
func (rm routeMetrics) revenue(sl *sale, sr *x402.SettleResponse) {
	m := &paywallMetrics
	if m.payments == nil {
		return
	}
	reqs := &sl.part().reqs
	m.payments.WithLabelValues(reqs.Network, rm.label, OutcomeSettled, "").Inc()
	value := sr.Value
	if value == "" {
		value = reqs.MaxAmountRequired
	}
	v, ok := new(big.Int).SetString(value, 10)
	if !ok || v.Sign() < 0 {
		return
	}
	f, _ := new(big.Float).SetInt(v).Float64()
	m.revenue.WithLabelValues(reqs.Network, strings.ToLower(reqs.Asset), strings.ToLower(reqs.PayTo)).Add(f)
}

// timeVerify and timeSettle observe how long a facilitator call took.
func (rm routeMetrics) timeVerify(sl *sale, start time.Time) {
	if m := &paywallMetrics; m.verifyTime != nil {
		m.verifyTime.WithLabelValues(sl.network()).Observe(time.Since(start).Seconds())
	}
}

func (rm routeMetrics) timeSettle(sl *sale, start time.Time) {
	if m := &paywallMetrics; m.settleTime != nil {
		m.settleTime.WithLabelValues(sl.network()).Observe(time.Since(start).Seconds())
	}
}
