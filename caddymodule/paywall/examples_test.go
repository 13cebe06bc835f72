package paywall

import (
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2/caddyconfig"

	"github.com/caddy-x402/caddy-x402/caddymodule/access"
	"github.com/caddy-x402/caddy-x402/caddymodule/internal/testutil"
	"github.com/caddy-x402/caddy-x402/caddymodule/x402cmd"
	"github.com/caddy-x402/caddy-x402/facilitator/devnet"
)

// TestAccessExample runs examples/access.Caddyfile's site, on the test's devnet instead of its
// own, with the commands its header gives: the first `caddy x402 pay` pays, the second is served
// by Sign-In-With-X with no transfer, and a request without a sign-in or cookie gets the 402.
func TestAccessExample(t *testing.T) {
	src, err := os.ReadFile("../../examples/access.Caddyfile")
	if err != nil {
		t.Fatal(err)
	}
	if _, warn, err := caddyconfig.GetAdapter("caddyfile").Adapt(src, nil); err != nil || len(warn) > 0 {
		t.Fatalf("adapting the example: %v %v", err, warn)
	}
	// Its site block, after the global options (an own devnet), under the test's global block.
	_, site, ok := strings.Cut(string(src), "\n}\n")
	if !ok || !strings.Contains(site, ":{$PORT:8080} {") {
		t.Fatalf("the example has no global block followed by the :{$PORT:8080} site")
	}
	t.Setenv("PORT", strconv.Itoa(testutil.SitePort))
	testutil.NewTester(t, testutil.GlobalBlock("")+site)

	const seller = "0x5e11e5e11e5e11e5e11e5e11e5e11e5e11e5e11e"
	o := x402cmd.PayOptions{Key: devnet.Buyer4PrivateKey, MaxAmount: "10000", Timeout: 30 * time.Second}
	before := testutil.Balance(t, seller)
	var stdout, stderr strings.Builder
	if err := x402cmd.RunPay(t.Context(), testutil.SiteURL+"/articles/one", o, &stdout, &stderr); err != nil {
		t.Fatalf("1. pay: %v\n%s", err, stderr.String())
	}
	if got := upstreamSaw(t, []byte(stdout.String())); got["tx_hash"] == "" || got["access_until"] == "" {
		t.Fatalf("1. pay: answer %s, want a payment and an access window\n%s", stdout.String(), stderr.String())
	}
	testutil.AssertDelta(t, "seller", before, testutil.Balance(t, seller), 10000)

	stdout.Reset()
	stderr.Reset()
	if err := x402cmd.RunPay(t.Context(), testutil.SiteURL+"/articles/two", o, &stdout, &stderr); err != nil {
		t.Fatalf("2. pay again: %v\n%s", err, stderr.String())
	}
	got := upstreamSaw(t, []byte(stdout.String()))
	if got["access_via"] != access.ViaSIWx || got["tx_hash"] != "" || !strings.Contains(stderr.String(), "served without a new payment") {
		t.Fatalf("2. pay again: answer %s, stderr %s; want served by Sign-In-With-X without a payment", stdout.String(), stderr.String())
	}
	testutil.AssertDelta(t, "seller", before, testutil.Balance(t, seller), 10000)

	resp, err := http.Get(testutil.SiteURL + "/articles/three")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusPaymentRequired {
		t.Fatalf("3. without a sign-in or cookie: %s, want 402", resp.Status)
	}
}
