package caddymodule

import (
	"context"
	"fmt"
	"math/big"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/caddy-x402/caddy-x402/caddymodule/internal/httpx"
	"github.com/caddy-x402/caddy-x402/facilitator"
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

// paywallMetrics are the collectors of the paywall and the facilitator
// routes. They are made once per process and registered in the metrics
// registry of every config that uses them (Caddy makes a registry per
// config), so counts carry over config reloads.
var paywallMetrics struct {
	once       sync.Once
	payments   *prometheus.CounterVec
	revenue    *prometheus.CounterVec
	verifyTime *prometheus.HistogramVec
	settleTime *prometheus.HistogramVec
	api        *prometheus.CounterVec
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
		m.api = prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "x402", Name: "facilitator_requests_total",
			Help: "Requests to the facilitator API (x402_facilitator), by operation and HTTP status (429: rate limited).",
		}, []string{"operation", "status"})
	})
	for _, c := range []prometheus.Collector{m.payments, m.revenue, m.verifyTime, m.settleTime, m.api} {
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
func (rm routeMetrics) revenue(sl *sale, sr *facilitator.SettleResponse) {
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

// apiOperation names a facilitator API path for the operation label.
func apiOperation(path string) string {
	switch {
	case path == facilitator.PathHealth:
		return "healthcheck"
	case path == facilitator.PathSupported:
		return "supported"
	case path == facilitator.PathVerify:
		return "verify"
	case path == facilitator.PathSettle:
		return "settle"
	case strings.HasPrefix(path, facilitator.PathSettlements):
		return "settlements"
	}
	return "other"
}

// statusRecorder remembers the status a handler wrote.
type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (s *statusRecorder) WriteHeader(code int) {
	if s.status == 0 {
		s.status = code
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusRecorder) Write(b []byte) (int, error) {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	return s.ResponseWriter.Write(b)
}

func (s *statusRecorder) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// serveCounted serves a facilitator API request and counts it.
func serveCounted(api http.Handler, w http.ResponseWriter, r *http.Request) {
	rec := &statusRecorder{ResponseWriter: w}
	api.ServeHTTP(rec, r)
	if m := &paywallMetrics; m.api != nil {
		if rec.status == 0 {
			rec.status = http.StatusOK
		}
		m.api.WithLabelValues(apiOperation(r.URL.Path), fmt.Sprint(rec.status)).Inc()
	}
}

// facilitatorCollector reports the embedded facilitator's state at scrape
// time: from the health snapshot (no RPC call of its own) and the RPC
// endpoints' counters.
type facilitatorCollector struct {
	f *facilitator.Facilitator
}

var (
	descPending = prometheus.NewDesc("x402_settlements_pending",
		"Settlements broadcast and waiting for their block, by network.", []string{"network"}, nil)
	descCanSettle = prometheus.NewDesc("x402_network_can_settle",
		"1 when the network can settle now (RPC answers, recent head, a signer with gas), else 0.", []string{"network"}, nil)
	descGas = prometheus.NewDesc("x402_signer_gas_balance_wei",
		"Native balance of each signer key that pays settlement gas, in wei.", []string{"network", "signer"}, nil)
	descNonceLag = prometheus.NewDesc("x402_signer_nonce_lag",
		"Transactions of each signer key that the node holds but has not mined (pending nonce minus mined nonce); one that keeps growing means settlements are stuck.", []string{"network", "signer"}, nil)
	descRPCRequests = prometheus.NewDesc("x402_rpc_requests_total",
		"JSON-RPC round trips (a batch counts once) by network and endpoint (credentials redacted).", []string{"network", "endpoint"}, nil)
	descRPCErrors = prometheus.NewDesc("x402_rpc_errors_total",
		"JSON-RPC round trips that failed, by network and endpoint (credentials redacted).", []string{"network", "endpoint"}, nil)
	descWalletPays = prometheus.NewDesc("x402_smart_wallet_payments_total",
		"Settled payments from smart-contract wallets that were deployed already (EIP-1271), by network.", []string{"network"}, nil)
	descDeployments = prometheus.NewDesc("x402_smart_wallet_deployments_total",
		"Smart-contract wallets deployed by the facilitator to settle their ERC-6492 payments, by network.", []string{"network"}, nil)
	descDeploymentGas = prometheus.NewDesc("x402_smart_wallet_deployment_gas_total",
		"Gas used by the transactions that deployed a wallet and settled its payment, paid by the facilitator, by network.", []string{"network"}, nil)
	descDeploymentFee = prometheus.NewDesc("x402_smart_wallet_deployment_fee_wei_total",
		"What those transactions cost the facilitator, in wei, by network.", []string{"network"}, nil)
	descReverted = prometheus.NewDesc("x402_settlements_reverted_total",
		"Settlements whose transaction was mined and reverted (the gas paid, nothing moved), by network.", []string{"network"}, nil)
	descRevertGas = prometheus.NewDesc("x402_settlement_revert_gas_total",
		"Gas used by settlement transactions that reverted, paid by the facilitator for nothing, by network.", []string{"network"}, nil)
	descRevertFee = prometheus.NewDesc("x402_settlement_revert_fee_wei_total",
		"What those transactions cost the facilitator, in wei, by network.", []string{"network"}, nil)
	descCoolOffs = prometheus.NewDesc("x402_smart_wallet_cool_offs_total",
		"Reverted settlements of smart-contract wallets that started or lengthened a cooling-off of the wallet (and of its code), by network.", []string{"network"}, nil)
	descCoolOffRefusals = prometheus.NewDesc("x402_smart_wallet_cooling_off_refusals_total",
		"Smart-contract wallet payments refused because the wallet, or its code, cools off after a revert, by network.", []string{"network"}, nil)
	descBusyRefusals = prometheus.NewDesc("x402_smart_wallet_busy_refusals_total",
		"Smart-contract wallet payments refused because another payment of the wallet was being settled, by network.", []string{"network"}, nil)
)

// Describe implements prometheus.Collector.
func (c facilitatorCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descPending, descCanSettle, descGas, descNonceLag, descRPCRequests, descRPCErrors,
		descWalletPays, descDeployments, descDeploymentGas, descDeploymentFee,
		descReverted, descRevertGas, descRevertFee, descCoolOffs, descCoolOffRefusals, descBusyRefusals} {
		ch <- d
	}
}

// Collect implements prometheus.Collector.
func (c facilitatorCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	for _, n := range c.f.Health(ctx, time.Now()).Networks {
		ch <- prometheus.MustNewConstMetric(descPending, prometheus.GaugeValue, float64(n.PendingSettlements), n.Network)
		can := 0.0
		if n.CanSettle {
			can = 1
		}
		ch <- prometheus.MustNewConstMetric(descCanSettle, prometheus.GaugeValue, can, n.Network)
		for _, s := range n.Signers {
			if b, ok := new(big.Float).SetString(s.GasBalance); ok {
				f, _ := b.Float64()
				ch <- prometheus.MustNewConstMetric(descGas, prometheus.GaugeValue, f, n.Network, strings.ToLower(s.Address))
			}
			if s.NonceLag != nil {
				ch <- prometheus.MustNewConstMetric(descNonceLag, prometheus.GaugeValue, float64(*s.NonceLag), n.Network, strings.ToLower(s.Address))
			}
		}
	}
	for _, n := range c.f.RPCStats() {
		seen := map[string]int{}
		for _, e := range n.Endpoints {
			label := e.URL
			if seen[e.URL]++; seen[e.URL] > 1 { // two endpoints alike once redacted
				label = fmt.Sprintf("%s#%d", e.URL, seen[e.URL])
			}
			ch <- prometheus.MustNewConstMetric(descRPCRequests, prometheus.CounterValue, float64(e.Requests), n.Network, label)
			ch <- prometheus.MustNewConstMetric(descRPCErrors, prometheus.CounterValue, float64(e.Errors), n.Network, label)
		}
	}
	for _, n := range c.f.SmartWalletStats() {
		fee, _ := new(big.Float).SetInt(n.DeploymentFeeWei).Float64()
		ch <- prometheus.MustNewConstMetric(descWalletPays, prometheus.CounterValue, float64(n.Payments), n.Network)
		ch <- prometheus.MustNewConstMetric(descDeployments, prometheus.CounterValue, float64(n.Deployments), n.Network)
		ch <- prometheus.MustNewConstMetric(descDeploymentGas, prometheus.CounterValue, float64(n.DeploymentGas), n.Network)
		ch <- prometheus.MustNewConstMetric(descDeploymentFee, prometheus.CounterValue, fee, n.Network)
	}
	for _, n := range c.f.RevertStats() {
		fee, _ := new(big.Float).SetInt(n.FeeWei).Float64()
		ch <- prometheus.MustNewConstMetric(descReverted, prometheus.CounterValue, float64(n.Reverted), n.Network)
		ch <- prometheus.MustNewConstMetric(descRevertGas, prometheus.CounterValue, float64(n.GasUsed), n.Network)
		ch <- prometheus.MustNewConstMetric(descRevertFee, prometheus.CounterValue, fee, n.Network)
		ch <- prometheus.MustNewConstMetric(descCoolOffs, prometheus.CounterValue, float64(n.Strikes), n.Network)
		ch <- prometheus.MustNewConstMetric(descCoolOffRefusals, prometheus.CounterValue, float64(n.CoolingOffRefusals), n.Network)
		ch <- prometheus.MustNewConstMetric(descBusyRefusals, prometheus.CounterValue, float64(n.BusyRefusals), n.Network)
	}
}

// registerFacilitatorMetrics registers the app's facilitator collector in
// the config's registry.
func registerFacilitatorMetrics(ctx caddy.Context, f *facilitator.Facilitator) error {
	if err := initMetrics(ctx.GetMetricsRegistry()); err != nil {
		return err
	}
	return httpx.Register(ctx.GetMetricsRegistry(), facilitatorCollector{f: f})
}
