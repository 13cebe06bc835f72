package paywall

import (
	"math/big"
	"sync"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/caddy-x402/caddy-x402/caddymodule/internal/httpx"
)

// meterMetrics count the charges of upto payments, by where the charge
// came from.
var meterMetrics struct {
	once    sync.Once
	charges *prometheus.CounterVec
	amount  *prometheus.CounterVec
}

func initMeterMetrics(reg *prometheus.Registry) error {
	m := &meterMetrics
	m.once.Do(func() {
		m.charges = prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "x402", Name: "metered_charges_total",
			Help: "Charges of upto payments put to settle, by network, route and source (header: Settlement-Overrides, meter, maximum, none: the answer broke off).",
		}, []string{"network", "route", "source"})
		m.amount = prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "x402", Name: "metered_smallest_units_total",
			Help: "The amounts of upto charges put to settle, in the token's smallest units, by network, route and source.",
		}, []string{"network", "route", "source"})
	})
	for _, c := range []prometheus.Collector{m.charges, m.amount} {
		if err := httpx.Register(reg, c); err != nil {
			return err
		}
	}
	return nil
}

// metered counts an upto charge about to be settled.
func (rm routeMetrics) metered(sl *sale, source string, charge *big.Int) {
	m := &meterMetrics
	if m.charges == nil {
		return
	}
	m.charges.WithLabelValues(sl.network(), rm.label, source).Inc()
	f, _ := new(big.Float).SetInt(charge).Float64()
	m.amount.WithLabelValues(sl.network(), rm.label, source).Add(f)
}
