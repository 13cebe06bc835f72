package paywall

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2"

	"github.com/caddy-x402/caddy-x402/caddymodule/internal/testutil"
	"github.com/caddy-x402/caddy-x402/facilitator/devnet"
	"github.com/caddy-x402/caddy-x402/internal/pgtest"
	"github.com/caddy-x402/caddy-x402/internal/tcpproxy"
)

// TestPostgresRoundTripsPerPayment counts the PostgreSQL round trips of
// one paid exact request, settle before and settle after, with the x402
// app's shared storage reached through a TCP proxy that counts them
// (tcpproxy.Exchanges: each time the client speaks after the server did).
// Issue 35 folds statements to lower them, and the test fails if a change
// raises them. The lease is long so that no renewal falls in a request; a
// background statement of the instance (the take-over check) may still
// fall in one, so each route is paid twice and the lower count is the
// request's. 12 and 12 before the folds (2026-11-29); 9 and 9 with the
// claim and the record's read one batch (Claims.ClaimRecord), a
// settlement's outcome and the release of its hold one batch
// (Journal.PutRelease), and the delivered record and the release of the
// request's claim one batch (Redemptions.PutReleasing), the same in every
// run.
func TestPostgresRoundTripsPerPayment(t *testing.T) {
	dsn, px := countedPostgres(t)
	tester := testutil.NewTester(t, testutil.GlobalBlock("storage postgres "+dsn+" {\n\t\t\tlease 10m\n\t\t}")+beforeAfterSite())

	buyer := testutil.BuyerKey(t, devnet.Buyer2PrivateKey)
	for _, tc := range []struct {
		route string
		want  int64 // the round trips of one paid request
	}{
		{"/before", 9},
		{"/after", 9},
	} {
		var least int64
		for i := range 2 {
			header := testutil.Pay(t, buyer, testutil.Require402(t, tester, testutil.SiteURL+tc.route).PaymentRequirements)
			before := px.Exchanges()
			resp, b := testutil.Get(t, tester, testutil.SiteURL+tc.route, map[string]string{"X-Payment": header})
			n := px.Exchanges() - before
			if resp.StatusCode != http.StatusOK || string(b) != "paid" {
				t.Fatalf("%s: status %d %q, want 200 paid", tc.route, resp.StatusCode, b)
			}
			if i == 0 || n < least {
				least = n
			}
		}
		t.Logf("%s: %d PostgreSQL round trips for one paid exact request", tc.route, least)
		if least > tc.want {
			t.Errorf("%s: %d PostgreSQL round trips, more than the %d of the folded path", tc.route, least, tc.want)
		}
	}
}

// countedPostgres starts a PostgreSQL server of the test's own and a TCP
// proxy in front of it that counts the round trips (tcpproxy.Exchanges),
// and stops the running Caddy config: the x402 app's storage is another
// store then, with which the signer's engine must start afresh (and Caddy
// stops before the database does). It returns the DSN through the proxy.
func countedPostgres(tb testing.TB) (string, *tcpproxy.Proxy) {
	tb.Helper()
	srv := pgtest.Start(tb)
	px, err := tcpproxy.Start(fmt.Sprintf("127.0.0.1:%d", srv.Port()))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = px.Close() })
	dsn := strings.Replace(srv.DSN(tb), fmt.Sprintf("127.0.0.1:%d", srv.Port()), px.Addr(), 1)
	if err := caddy.Stop(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = caddy.Stop() })
	return dsn, px
}

// beforeAfterSite is the site of the PostgreSQL round-trip test and
// benchmark: an exact route of each settle mode, /before and /after.
func beforeAfterSite() string {
	return fmt.Sprintf(`
:%d {
	x402 /before {
		pay_to %s
		amount 100
	}
	x402 /after {
		pay_to %s
		amount 100
		settle after
	}
	respond "paid"
}
`, testutil.SitePort, testutil.SellerAddr, testutil.SellerAddr)
}
