package paywall

import (
	"crypto/ecdsa"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/caddy-x402/caddy-x402/caddymodule/internal/testutil"
	"github.com/caddy-x402/caddy-x402/facilitator/devnet"
	"github.com/caddy-x402/caddy-x402/facilitator/exact"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
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
	exportTraces(b, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/x-protobuf")
	}))
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

	run := parallelGets(b)
	b.Run("unpaid402", run("/paid", http.StatusPaymentRequired))
	b.Run("respond", run("/free", http.StatusOK))
}

// BenchmarkPaidTracing pays exact requests (verify, claim, records,
// settle on the devnet, upstream) at two routes of one site, one under
// Caddy's `tracing` (exported by OTLP/HTTP to a receiver that discards)
// and one without, alternately, one pair per iteration, and reports each
// one's mean time and the process's CPU time per request (user+system,
// the devnet's mining included alike), with their ratios. The payments
// are signed outside the measured time.
//
//	go test ./caddymodule/paywall/ -run '^$' -bench PaidTracing -benchtime 40x -count 3
func BenchmarkPaidTracing(b *testing.B) {
	exportTraces(b, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/x-protobuf")
	}))
	const payTo = "0x0000000000000000000000000000000000B7ACE0"
	tester := testutil.NewTester(b, testutil.GlobalBlock("")+fmt.Sprintf(`
:%d {
	handle /traced {
		tracing
		x402 {
			pay_to %[2]s
			amount 1000
		}
		respond "paid"
	}
	handle /plain {
		x402 {
			pay_to %[2]s
			amount 1000
		}
		respond "paid"
	}
}
`, testutil.SitePort, payTo))
	buyer := testutil.BuyerKey(b, devnet.Buyer3PrivateKey)
	paths := [2]string{"/plain", "/traced"}
	var reqs [2]x402.PaymentRequirements
	for i, p := range paths {
		resp, body := getBench(b, tester.Client, testutil.SiteURL+p, "")
		if resp != http.StatusPaymentRequired {
			b.Fatalf("GET %s: %d %s", p, resp, body)
		}
		var q testutil.Body402
		if err := json.Unmarshal(body, &q); err != nil || len(q.Accepts) != 1 {
			b.Fatalf("402 of %s: %v %s", p, err, body)
		}
		reqs[i] = q.Accepts[0]
	}
	var wall, cpu [2]time.Duration
	for b.Loop() {
		b.StopTimer()
		headers := payEach(b, buyer, reqs)
		b.StartTimer()
		for i, p := range paths {
			c0, t0 := cpuTime(), time.Now()
			if st, body := getBench(b, tester.Client, testutil.SiteURL+p, headers[i]); st != http.StatusOK {
				b.Fatalf("paid GET %s: %d %s", p, st, body)
			}
			wall[i] += time.Since(t0)
			cpu[i] += cpuTime() - c0
		}
	}
	n := float64(b.N)
	b.ReportMetric(float64(wall[0].Microseconds())/n, "plain-us")
	b.ReportMetric(float64(wall[1].Microseconds())/n, "traced-us")
	b.ReportMetric(float64(cpu[0].Microseconds())/n, "plain-cpu-us")
	b.ReportMetric(float64(cpu[1].Microseconds())/n, "traced-cpu-us")
	b.ReportMetric(float64(wall[1])/float64(wall[0]), "traced/plain")
	b.ReportMetric(float64(cpu[1])/float64(cpu[0]), "traced/plain-cpu")
}

// getBench fetches url with an X-PAYMENT header (none when "").
func getBench(b *testing.B, c *http.Client, url, header string) (int, []byte) {
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	if header != "" {
		req.Header.Set("X-PAYMENT", header)
	}
	resp, err := c.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, body
}

// payEach signs one exact payment of each of reqs by key (the paid
// benchmarks' headers of an iteration, signed outside the measured time).
func payEach(b *testing.B, key *ecdsa.PrivateKey, reqs [2]x402.PaymentRequirements) [2]string {
	b.Helper()
	var headers [2]string
	for i := range reqs {
		h, _, err := exact.CreatePayment(key, reqs[i], exact.PaymentOptions{ChainID: big.NewInt(devnet.ChainID)})
		if err != nil {
			b.Fatal(err)
		}
		headers[i] = h
	}
	return headers
}
