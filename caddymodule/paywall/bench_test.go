package paywall

import (
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/caddy-x402/caddy-x402/caddymodule/internal/testutil"
)

// BenchmarkPaywall compares, through the real Caddy server over loopback in
// the same run, the unpaid 402 answer (plain, and with signed offers) with
// Caddy's static respond of a body of the same size. Both report req/s besides ns/op.
//
//	go test ./caddymodule/paywall/ -run '^$' -bench Paywall -benchtime 3s
func BenchmarkPaywall(b *testing.B) {
	// The 402 body of /paid is about 900 bytes; respond sends as many.
	static := strings.Repeat("x", 900)
	b.Setenv("X402_BENCH_RECEIPT_KEY", receiptKeyA)
	testutil.NewTester(b, testutil.GlobalBlock("receipt_key {env.X402_BENCH_RECEIPT_KEY}")+fmt.Sprintf(`
:%d {
	x402 /paid {
		pay_to %[2]s
		price 0.01
		description "Weather data"
		mime_type application/json
	}
	x402 /signed-jws {
		pay_to %[2]s
		price 0.01
		description "Weather data"
		mime_type application/json
		offer_receipt jws
	}
	x402 /signed-eip712 {
		pay_to %[2]s
		price 0.01
		description "Weather data"
		mime_type application/json
		offer_receipt eip712
	}
	respond /paid "never"
	respond /signed-jws "never"
	respond /signed-eip712 "never"
	respond /free %[3]q
}
`, testutil.SitePort, testutil.SellerAddr, static))

	run := parallelGets(b)
	b.Run("unpaid402", run("/paid", http.StatusPaymentRequired))
	// The same 402 with its offers signed (offer_receipt, issue 34): one
	// signature per accepts entry in the header and one in the body.
	b.Run("unpaid402-signed-jws", run("/signed-jws", http.StatusPaymentRequired))
	b.Run("unpaid402-signed-eip712", run("/signed-eip712", http.StatusPaymentRequired))
	// A URL of its own per request (a query): the offers are signed for
	// every 402, as a flood of distinct URLs has them (offer_memo.go).
	b.Run("unpaid402-signed-jws-distinct", run("/signed-jws?n=*", http.StatusPaymentRequired))
	b.Run("respond", run("/free", http.StatusOK))
}

// parallelGets is a client with room for parallel requests (closed when b
// ends) and, for a path and its status, the benchmark of GETs of it from
// every goroutine: one request first, so a wrong answer fails loudly;
// reports bytes, allocations and req/s. A path ending in "*" has it
// replaced by a number of its own on every request.
func parallelGets(b *testing.B) func(path string, status int) func(*testing.B) {
	client := &http.Client{Transport: &http.Transport{
		MaxIdleConns:        256,
		MaxIdleConnsPerHost: 256,
		IdleConnTimeout:     time.Minute,
	}}
	b.Cleanup(client.CloseIdleConnections)
	return func(path string, status int) func(*testing.B) {
		return func(b *testing.B) {
			url := testutil.SiteURL + path
			var seq atomic.Int64
			next := func() string {
				if prefix, ok := strings.CutSuffix(url, "*"); ok {
					return prefix + strconv.FormatInt(seq.Add(1), 10)
				}
				return url
			}
			// One request first, so a wrong answer fails loudly.
			resp, err := client.Get(next())
			if err != nil {
				b.Fatal(err)
			}
			n, _ := io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != status {
				b.Fatalf("GET %s: status %d, want %d", path, resp.StatusCode, status)
			}
			b.SetBytes(n)
			b.ReportAllocs()
			b.ResetTimer()
			start := time.Now()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					resp, err := client.Get(next())
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
}
