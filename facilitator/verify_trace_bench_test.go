package facilitator_test

import (
	"context"
	"runtime"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// BenchmarkVerifyTracing runs the off-chain verify of BenchmarkVerify
// untraced (no span in its context: no `tracing` in the site) and traced
// (under a recording span of a real TracerProvider whose batch exporter
// discards), interleaved in rounds of 200 each, and reports the ratio of
// their times (traced/untraced) and each one's ns and allocations per
// verify (docs/benchmarks.md).
//
//	go test ./facilitator -run '^$' -bench VerifyTracing -count 5
func BenchmarkVerifyTracing(b *testing.B) {
	const round = 200
	f, r := verifyFixture(b)
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(tracetest.NewNoopExporter()))
	b.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	plain := context.Background()
	traced, server := tp.Tracer("bench").Start(plain, "server")
	defer server.End()
	var t [2]time.Duration
	var allocs [2]uint64
	var n int
	var m0, m1 runtime.MemStats
	for b.Loop() {
		for i, ctx := range [2]context.Context{plain, traced} {
			runtime.ReadMemStats(&m0)
			t0 := time.Now()
			for range round {
				if v, err := f.Verify(ctx, r); err != nil || !v.IsValid {
					b.Fatalf("verify = %+v, %v", v, err)
				}
			}
			t[i] += time.Since(t0)
			runtime.ReadMemStats(&m1)
			allocs[i] += m1.Mallocs - m0.Mallocs
		}
		n += round
	}
	b.ReportMetric(float64(t[1])/float64(t[0]), "traced/untraced")
	b.ReportMetric(float64(t[0].Nanoseconds())/float64(n), "untraced-ns")
	b.ReportMetric(float64(t[1].Nanoseconds())/float64(n), "traced-ns")
	b.ReportMetric(float64(allocs[0])/float64(n), "untraced-allocs")
	b.ReportMetric(float64(allocs[1])/float64(n), "traced-allocs")
}
