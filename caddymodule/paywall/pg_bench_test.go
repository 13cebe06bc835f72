package paywall

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/caddy-x402/caddy-x402/caddymodule/internal/testutil"
	"github.com/caddy-x402/caddy-x402/facilitator/devnet"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// BenchmarkPaidPostgres pays exact requests with the x402 app's storage on
// PostgreSQL (a pgtest server reached through a TCP proxy that counts the
// round trips, as TestPostgresRoundTripsPerPayment does), settle before
// and settle after, one of each per iteration, and reports each one's mean
// time and PostgreSQL round trips per request, on a devnet mining every
// 20 ms. "loopback" reaches the database directly; "remote-2ms" has the
// proxy delay each direction by 1 ms, a database 2 ms of round trip away.
// The payments are signed outside the measured time.
//
//	go test ./caddymodule/paywall/ -run '^$' -bench PaidPostgres -benchtime 20x -count 3
func BenchmarkPaidPostgres(b *testing.B) {
	dsn, px := countedPostgres(b)
	// Blocks every 20 ms rather than the tests' 200 ms, so that the wait
	// for a block does not hide the store's share of a request.
	global := strings.Replace(testutil.GlobalBlock("storage postgres "+dsn+" {\n\t\t\tlease 10m\n\t\t}"), "block_time 200ms", "block_time 20ms", 1)
	tester := testutil.NewTester(b, global+beforeAfterSite())
	buyer := testutil.BuyerKey(b, devnet.Buyer2PrivateKey)
	paths := [2]string{"/before", "/after"}
	var reqs [2]x402.PaymentRequirements
	for i, p := range paths {
		st, body := getBench(b, tester.Client, testutil.SiteURL+p, "")
		var q testutil.Body402
		if err := json.Unmarshal(body, &q); st != http.StatusPaymentRequired || err != nil || len(q.Accepts) != 1 {
			b.Fatalf("GET %s: %d %v %s", p, st, err, body)
		}
		reqs[i] = q.Accepts[0]
	}
	for _, bc := range []struct {
		name  string
		delay time.Duration // each direction
	}{
		{"loopback", 0},
		{"remote-2ms", time.Millisecond},
	} {
		b.Run(bc.name, func(b *testing.B) {
			px.SetDelay(bc.delay, bc.delay)
			defer px.SetDelay(0, 0)
			var wall [2]time.Duration
			var trips [2]int64
			for b.Loop() {
				b.StopTimer()
				headers := payEach(b, buyer, reqs)
				b.StartTimer()
				for i, p := range paths {
					x0, t0 := px.Exchanges(), time.Now()
					if st, body := getBench(b, tester.Client, testutil.SiteURL+p, headers[i]); st != http.StatusOK {
						b.Fatalf("paid GET %s: %d %s", p, st, body)
					}
					wall[i] += time.Since(t0)
					trips[i] += px.Exchanges() - x0
				}
			}
			n := float64(b.N)
			b.ReportMetric(float64(wall[0].Microseconds())/n, "before-us")
			b.ReportMetric(float64(wall[1].Microseconds())/n, "after-us")
			b.ReportMetric(float64(trips[0])/n, "before-trips")
			b.ReportMetric(float64(trips[1])/n, "after-trips")
		})
	}
}
