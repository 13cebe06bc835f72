package paywall

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/caddy-x402/caddy-x402/caddymodule/internal/testutil"
)

// BenchmarkPaywallTracing is BenchmarkPaywall's site with Caddy's
// `tracing`, its spans exported by OTLP/HTTP (batched, as Caddy's
// provider does) to a receiver that discards them: compare each answer
// with BenchmarkPaywall's in the same run (docs/benchmarks.md). The
// unpaid 402 makes x402.paywall and x402.quote under Caddy's server span;
// respond makes Caddy's span alone.
//
//	go test ./caddymodule/paywall/ -run '^$' -bench 'Paywall(Tracing)?$' -benchtime 3s -count 3
func BenchmarkPaywallTracing(b *testing.B) {
	sink := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/x-protobuf")
	}))
	b.Cleanup(sink.Close)
	b.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", sink.URL)
	b.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf")
	b.Setenv("OTEL_TRACES_EXPORTER", "otlp")
	static := strings.Repeat("x", 900)
	testutil.NewTester(b, testutil.GlobalBlock("")+fmt.Sprintf(`
:%d {
	tracing
	x402 /paid {
		pay_to %s
		price 0.01
		description "Weather data"
		mime_type application/json
	}
	respond /paid "never"
	respond /free %q
}
`, testutil.SitePort, testutil.SellerAddr, static))

	client := &http.Client{Transport: &http.Transport{MaxIdleConns: 256, MaxIdleConnsPerHost: 256, IdleConnTimeout: time.Minute}}
	b.Cleanup(client.CloseIdleConnections)
	run := func(path string, status int) func(*testing.B) {
		return func(b *testing.B) {
			url := testutil.SiteURL + path
			b.ReportAllocs()
			start := time.Now()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					resp, err := client.Get(url)
					if err != nil {
						b.Error(err)
						return
					}
					_, _ = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if resp.StatusCode != status {
						b.Errorf("status %d, want %d", resp.StatusCode, status)
						return
					}
				}
			})
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "req/s")
		}
	}
	b.Run("unpaid402", run("/paid", http.StatusPaymentRequired))
	b.Run("respond", run("/free", http.StatusOK))
}
