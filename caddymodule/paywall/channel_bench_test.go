package paywall

import (
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/caddy-x402/caddy-x402/caddymodule/internal/testutil"
	"github.com/caddy-x402/caddy-x402/facilitator/devnet"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// BenchmarkChannelVoucher compares, through the real Caddy server over
// loopback with the bbolt store, in the same run: the unpaid 402 of a
// channel route and a request paid by voucher (a signature check and one
// store write; the vouchers are signed before the timer starts). One
// channel's vouchers are sequential, so both run one request at a time.
//
//	go test ./caddymodule/paywall/ -run '^$' -bench ChannelVoucher -benchtime 2000x
func BenchmarkChannelVoucher(b *testing.B) {
	db := filepath.Join(b.TempDir(), "redemptions.db")
	tester := testutil.NewTester(b, testutil.GlobalBlock("redemptions "+db)+fmt.Sprintf(`
:%d {
	x402 /paid {
		pay_to %s
		amount 1
		scheme batch-settlement
		claim_every 5m
	}
	respond /paid "paid content"
}
`, testutil.SitePort, channelPayTo))
	u := testutil.SiteURL + "/paid"
	client := tester.Client
	get := func(b *testing.B, header string, want int) {
		req, _ := http.NewRequest(http.MethodGet, u, nil)
		if header != "" {
			req.Header.Set(x402.HeaderPaymentSignature, header)
		}
		resp, err := client.Do(req)
		if err != nil {
			b.Error(err) // b.Fatal may not be called from the load's goroutines
			return
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != want {
			b.Errorf("status %d %s, want %d", resp.StatusCode, body, want)
		}
	}
	b.Run("unpaid402", func(b *testing.B) {
		start := time.Now()
		for range b.N {
			get(b, "", http.StatusPaymentRequired)
		}
		b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "req/s")
	})
	b.Run("voucher", func(b *testing.B) {
		cb := newChannelBuyer(b, tester, devnet.Buyer3PrivateKey, u, time.Now().UnixNano())
		get(b, cb.header(b, cb.deposit(b, 10_000_000, 1)), http.StatusOK)
		headers := make([]string, b.N)
		for i := range headers {
			headers[i] = cb.header(b, cb.voucher(b, cb.key, int64(i+2)))
		}
		b.ResetTimer()
		start := time.Now()
		for _, h := range headers {
			get(b, h, http.StatusOK)
		}
		b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "req/s")
	})
	// 16 channels at once (16 buyers, or one buyer's 16 channels): the
	// store's group commit shares its disk syncs between them.
	const par = 16
	b.Run("unpaid402x16", func(b *testing.B) {
		start := time.Now()
		done := make(chan struct{}, par)
		for g := range par {
			go func() {
				for i := g; i < b.N; i += par {
					get(b, "", http.StatusPaymentRequired)
				}
				done <- struct{}{}
			}()
		}
		for range par {
			<-done
		}
		b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "req/s")
	})
	b.Run("voucherx16", func(b *testing.B) {
		headers := make([][]string, par)
		for g := range par {
			cb := newChannelBuyer(b, tester, devnet.Buyer3PrivateKey, u, time.Now().UnixNano()+int64(g))
			get(b, cb.header(b, cb.deposit(b, 1_000_000, 1)), http.StatusOK)
			for i := g; i < b.N; i += par {
				headers[g] = append(headers[g], cb.header(b, cb.voucher(b, cb.key, int64(len(headers[g])+2))))
			}
		}
		b.ResetTimer()
		start := time.Now()
		done := make(chan struct{}, par)
		for g := range par {
			go func() {
				for _, h := range headers[g] {
					get(b, h, http.StatusOK)
				}
				done <- struct{}{}
			}()
		}
		for range par {
			<-done
		}
		b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "req/s")
	})
}
