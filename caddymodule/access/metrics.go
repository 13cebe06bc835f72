package access

import (
	"sync"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/caddy-x402/caddy-x402/caddymodule/internal/httpx"
)

// Outcomes of x402_access_requests_total.
const (
	accessServed  = "served"  // let through by a live grant, without payment
	accessRefused = "refused" // a sign-in that did not hold: 402 (or 503)
)

// accessMetrics count what access does apart from payments, so that
// x402_payments_total and the revenue keep counting payments only: grants
// issued, and requests served by a grant (or sign-ins refused).
var accessMetrics struct {
	once     sync.Once
	grants   *prometheus.CounterVec
	requests *prometheus.CounterVec
}

func initAccessMetrics(reg *prometheus.Registry) error {
	m := &accessMetrics
	m.once.Do(func() {
		m.grants = prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "x402", Name: "access_grants_total",
			Help: "Access grants issued or extended by a settled payment on a route with access, by network and route (the handler's label).",
		}, []string{"network", "route"})
		m.requests = prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "x402", Name: "access_requests_total",
			Help: "Requests without payment on a route with access: served by a live grant, or sign-ins refused; by network, route, via (sign-in-with-x or cookie), outcome (served, refused) and reason.",
		}, []string{"network", "route", "via", "outcome", "reason"})
	})
	for _, c := range []prometheus.Collector{m.grants, m.requests} {
		if err := httpx.Register(reg, c); err != nil {
			return err
		}
	}
	return nil
}

// observeGrant counts a grant issued (or extended) by a payment on network.
func (a *Gate) observeGrant(network string) {
	if m := &accessMetrics; m.grants != nil {
		m.grants.WithLabelValues(network, a.route.MetricsLabel).Inc()
	}
}

// observeAccess counts a request without payment on a route with access.
func (a *Gate) observeAccess(via, outcome, reason string) {
	if m := &accessMetrics; m.requests != nil {
		m.requests.WithLabelValues(a.firstNetwork(), a.route.MetricsLabel, via, outcome, reason).Inc()
	}
}
