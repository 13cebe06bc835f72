package facilitatorapi

import (
	"fmt"
	"net/http"
	"strings"
	"sync"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/caddy-x402/caddy-x402/caddymodule/internal/httpx"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// apiMetrics are the collectors of the facilitator API. They are made once
// per process and registered in the metrics registry of every config that
// uses them (Caddy makes a registry per config), so counts carry over
// config reloads.
var apiMetrics struct {
	once sync.Once
	api  *prometheus.CounterVec
}

func initMetrics(reg *prometheus.Registry) error {
	m := &apiMetrics
	m.once.Do(func() {
		m.api = prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "x402", Name: "facilitator_requests_total",
			Help: "Requests to the facilitator API (x402_facilitator), by operation and HTTP status (429: rate limited).",
		}, []string{"operation", "status"})
	})
	return httpx.Register(reg, m.api)
}

// apiOperation names a facilitator API path for the operation label.
func apiOperation(path string) string {
	switch {
	case path == x402.PathHealth:
		return "healthcheck"
	case path == x402.PathSupported:
		return "supported"
	case path == x402.PathVerify:
		return "verify"
	case path == x402.PathSettle:
		return "settle"
	case strings.HasPrefix(path, x402.PathSettlements):
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
	if m := &apiMetrics; m.api != nil {
		if rec.status == 0 {
			rec.status = http.StatusOK
		}
		m.api.WithLabelValues(apiOperation(r.URL.Path), fmt.Sprint(rec.status)).Inc()
	}
}
