package paywall

import (
	"context"
	"math/big"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/zap"

	"github.com/caddy-x402/caddy-x402/caddymodule/internal/httpx"
)

// channelMetrics are the payment channels' figures: the store's sums by
// network (every instance sharing the store sees the same), read at each
// claim round, and the claim transactions of this process.
var channelMetrics struct {
	once      sync.Once
	open      *prometheus.GaugeVec
	unclaimed *prometheus.GaugeVec
	claimed   *prometheus.GaugeVec
	claims    *prometheus.CounterVec
	claiming  *prometheus.GaugeVec
	refunds   *prometheus.CounterVec
}

func initChannelMetrics(reg *prometheus.Registry) error {
	m := &channelMetrics
	m.once.Do(func() {
		m.open = prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Namespace: "x402", Name: "channels_open",
			Help: "Open payment channels in the store, by network (read at each claim round).",
		}, []string{"network"})
		m.unclaimed = prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Namespace: "x402", Name: "channels_unclaimed_smallest_units",
			Help: "What payment channels were charged and is not claimed on chain yet, in the token's smallest units, by network (read at each claim round).",
		}, []string{"network"})
		m.claimed = prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Namespace: "x402", Name: "channels_claimed_smallest_units",
			Help: "The payment channels' claimed totals in the store, in the token's smallest units, by network (read at each claim round).",
		}, []string{"network"})
		m.claims = prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "x402", Name: "channel_claim_transactions_total",
			Help: "Claim transactions of payment channels, by network and outcome (claimed, refused: the facilitator or the chain refused it, failed: the facilitator could not be asked).",
		}, []string{"network", "outcome"})
		m.claiming = prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Namespace: "x402", Name: "channel_claiming",
			Help: "1 while this instance holds the role of claiming the payment channels paid to pay_to on network (one instance of all sharing a store), else 0.",
		}, []string{"network", "pay_to"})
		m.refunds = prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "x402", Name: "channel_refunds_total",
			Help: "Cooperative refunds of payment channels (idle or asked by the buyer), by network and outcome (refunded; pending: maybe broadcast, retried; refused; failed: nothing was broadcast).",
		}, []string{"network", "outcome"})
	})
	for _, c := range []prometheus.Collector{m.open, m.unclaimed, m.claimed, m.claims, m.claiming, m.refunds} {
		if err := httpx.Register(reg, c); err != nil {
			return err
		}
	}
	return nil
}

// countClaim counts a claim transaction's outcome.
func countClaim(network, outcome string) {
	if m := &channelMetrics; m.claims != nil {
		m.claims.WithLabelValues(network, outcome).Inc()
	}
}

// countRefund counts a refund's outcome.
func countRefund(network, outcome string) {
	if m := &channelMetrics; m.refunds != nil {
		m.refunds.WithLabelValues(network, outcome).Inc()
	}
}

// readChannelStats sets the gauges from the store's sums.
func (rt *chanRoute) readChannelStats(ctx context.Context) {
	m := &channelMetrics
	if m.open == nil {
		return
	}
	stats, err := rt.store.ChannelStats(ctx)
	if err != nil {
		rt.logger.Warn("the payment channels' figures could not be read from the store", zap.Error(err))
		return
	}
	f := func(v *big.Int) float64 { x, _ := new(big.Float).SetInt(v).Float64(); return x }
	for network, st := range stats {
		m.open.WithLabelValues(network).Set(float64(st.Open))
		m.unclaimed.WithLabelValues(network).Set(f(st.Unclaimed))
		m.claimed.WithLabelValues(network).Set(f(st.Claimed))
	}
}
