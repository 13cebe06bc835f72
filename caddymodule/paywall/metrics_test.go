package paywall

import (
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/caddy-x402/caddy-x402/caddymodule/internal/testutil"
	"github.com/caddy-x402/caddy-x402/facilitator/devnet"
	"github.com/caddy-x402/caddy-x402/facilitator/evm"
	"github.com/caddy-x402/caddy-x402/facilitator/exact"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// TestMetrics makes real payments, a replay and a rate-limited facilitator
// call, then scrapes the admin API's /metrics and checks the numbers.
func TestMetrics(t *testing.T) {
	tester := testutil.NewTester(t, testutil.GlobalBlock("")+fmt.Sprintf(`
:%d {
	x402_facilitator {
		rate_limit verify 1 1m
	}
}
:%d {
	x402 /weather {
		pay_to %s
		amount 1234
		label weather
	}
	respond "sunny"
}
`, testutil.FacPort, testutil.SitePort, testutil.SellerAddr))
	net := devnet.Network
	asset := strings.ToLower(devnet.TokenAddress.Hex())
	payTo := strings.ToLower(testutil.SellerAddr)
	before := testutil.Scrape(t)

	buyer := testutil.BuyerKey(t, devnet.Buyer5PrivateKey)
	var last string
	for i := 0; i < 2; i++ {
		last = testutil.Pay(t, buyer, testutil.Require402(t, tester, testutil.SiteURL+"/weather").PaymentRequirements)
		if resp, b := testutil.Get(t, tester, testutil.SiteURL+"/weather", map[string]string{"X-Payment": last}); resp.StatusCode != 200 {
			t.Fatalf("payment %d: %d %s", i+1, resp.StatusCode, b)
		}
	}
	if resp, _ := testutil.Get(t, tester, testutil.SiteURL+"/weather", map[string]string{"X-Payment": last}); resp.StatusCode != http.StatusPaymentRequired {
		t.Fatalf("replay: %d", resp.StatusCode)
	}
	// A bogus payment from an empty wallet, refused.
	key, _ := crypto.GenerateKey()
	bogus, _, _ := exact.CreatePayment(key, testutil.Require402(t, tester, testutil.SiteURL+"/weather").PaymentRequirements,
		exact.PaymentOptions{ChainID: big.NewInt(devnet.ChainID)})
	testutil.Get(t, tester, testutil.SiteURL+"/weather", map[string]string{"X-Payment": bogus})
	for i := 0; i < 2; i++ { // the second is over the limit
		req, _ := http.NewRequest(http.MethodPost, fmt.Sprintf("http://127.0.0.1:%d%s", testutil.FacPort, x402.PathVerify), strings.NewReader("{}"))
		req.Header.Set("Content-Type", "application/json")
		// A request lost on the way must fail here, not show up below
		// as a wrong count of rate-limited calls (issue 37).
		resp, err := tester.Client.Do(req)
		if err != nil {
			t.Fatalf("verify call %d: %v", i+1, err)
		}
		resp.Body.Close()
	}
	testutil.Get(t, tester, fmt.Sprintf("http://127.0.0.1:%d/healthcheck", testutil.FacPort), nil)
	after := testutil.Scrape(t)

	delta := func(name string, labels map[string]string) float64 {
		a, ok := testutil.Sample(after, name, labels)
		if !ok {
			t.Errorf("no sample %s %v", name, labels)
		}
		b, _ := testutil.Sample(before, name, labels)
		return a - b
	}
	pay := func(outcome, reason string) map[string]string {
		return map[string]string{"network": net, "route": "weather", "outcome": outcome, "reason": reason}
	}
	checks := []struct {
		name   string
		labels map[string]string
		want   float64
	}{
		{"x402_payments_total", pay(OutcomeSettled, ""), 2},
		{"x402_payments_total", pay(OutcomeRefused, "invalid_exact_evm_nonce_already_used"), 1},
		{"x402_payments_total", pay(OutcomeRefused, "insufficient_funds"), 1},
		{"x402_revenue_smallest_units_total", map[string]string{"network": net, "asset": asset, "pay_to": payTo}, 2 * 1234},
		// The replay is refused by the redemption store, without verify.
		{"x402_verify_duration_seconds_count", map[string]string{"network": net}, 3},
		{"x402_settle_duration_seconds_count", map[string]string{"network": net}, 2},
		{"x402_facilitator_requests_total", map[string]string{"operation": "verify", "status": "400"}, 1},
		{"x402_facilitator_requests_total", map[string]string{"operation": "verify", "status": "429"}, 1},
		{"x402_facilitator_requests_total", map[string]string{"operation": "healthcheck", "status": "200"}, 1},
	}
	for _, c := range checks {
		if got := delta(c.name, c.labels); got != c.want {
			t.Errorf("%s%v went up by %v, want %v", c.name, c.labels, got, c.want)
		}
	}
	sk, _ := evm.ParseKey(devnet.SignerPrivateKey)
	signer := map[string]string{"network": net, "signer": strings.ToLower(crypto.PubkeyToAddress(sk.PublicKey).Hex())}
	if v, ok := testutil.Sample(after, "x402_signer_gas_balance_wei", signer); !ok || v <= 0 {
		t.Errorf("x402_signer_gas_balance_wei%v = %v, %v; want a positive balance", signer, v, ok)
	}
	if v, ok := testutil.Sample(after, "x402_signer_nonce_lag", signer); !ok || v != 0 {
		t.Errorf("x402_signer_nonce_lag%v = %v, %v; want 0 once every settlement is mined", signer, v, ok)
	}
	if v, ok := testutil.Sample(after, "x402_settlements_pending", map[string]string{"network": net}); !ok || v != 0 {
		t.Errorf("x402_settlements_pending = %v, %v; want 0", v, ok)
	}
	if v, ok := testutil.Sample(after, "x402_network_can_settle", map[string]string{"network": net}); !ok || v != 1 {
		t.Errorf("x402_network_can_settle = %v, %v; want 1", v, ok)
	}
	rpc := map[string]string{"network": net, "endpoint": testutil.DevnetURL}
	if v, ok := testutil.Sample(after, "x402_rpc_requests_total", rpc); !ok || v <= 0 {
		t.Errorf("x402_rpc_requests_total%v = %v, %v; want some", rpc, v, ok)
	}
	if _, ok := testutil.Sample(after, "x402_rpc_errors_total", rpc); !ok {
		t.Errorf("no x402_rpc_errors_total%v", rpc)
	}
	// No smart-contract wallet paid here (facilitator.TestERC6492 counts them).
	for _, name := range []string{"x402_smart_wallet_payments_total", "x402_smart_wallet_deployments_total",
		"x402_smart_wallet_deployment_gas_total", "x402_smart_wallet_deployment_fee_wei_total"} {
		if v, ok := testutil.Sample(after, name, map[string]string{"network": net}); !ok || v != 0 {
			t.Errorf("%s = %v, %v; want 0", name, v, ok)
		}
	}
}

// waitNonceLag waits up to 5 s for the scraped x402_signer_nonce_lag of
// labels to satisfy ok.
func waitNonceLag(t *testing.T, labels map[string]string, ok func(float64) bool, want string) {
	t.Helper()
	var v float64
	var found bool
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		if v, found = testutil.Sample(testutil.Scrape(t), "x402_signer_nonce_lag", labels); found && ok(v) {
			return
		}
	}
	t.Errorf("x402_signer_nonce_lag%v = %v (found %v); want %s", labels, v, found, want)
}

// TestRevenueCountedOnce pays once at a route whose upstream fails the
// first time (a 502 is not a delivery), so the buyer's retry with the same
// X-PAYMENT gets the resource from the paid record: the payment and its
// revenue are counted once, where the money moved, not at each delivery.
func TestRevenueCountedOnce(t *testing.T) {
	var calls atomic.Int32
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			http.Error(w, "upstream down", http.StatusBadGateway)
			return
		}
		fmt.Fprint(w, "resource")
	}))
	t.Cleanup(up.Close)
	tester := testutil.NewTester(t, testutil.GlobalBlock("")+fmt.Sprintf(`
:%d {
	x402 /once {
		pay_to %s
		amount 4321
		label once
	}
	reverse_proxy %s
}
`, testutil.SitePort, testutil.SellerAddr, up.Listener.Addr()))
	net := devnet.Network
	settled := map[string]string{"network": net, "route": "once", "outcome": OutcomeSettled, "reason": ""}
	revenue := map[string]string{"network": net, "asset": strings.ToLower(devnet.TokenAddress.Hex()), "pay_to": strings.ToLower(testutil.SellerAddr)}
	before := testutil.Scrape(t)

	header := testutil.Pay(t, testutil.BuyerKey(t, devnet.Buyer5PrivateKey), testutil.Require402(t, tester, testutil.SiteURL+"/once").PaymentRequirements)
	if resp, b := testutil.Get(t, tester, testutil.SiteURL+"/once", map[string]string{"X-Payment": header}); resp.StatusCode != http.StatusBadGateway {
		t.Fatalf("first try: %d %s; want the upstream's 502", resp.StatusCode, b)
	}
	if resp, b := testutil.Get(t, tester, testutil.SiteURL+"/once", map[string]string{"X-Payment": header}); resp.StatusCode != http.StatusOK || string(b) != "resource" {
		t.Fatalf("retry with the same header: %d %s; want the resource", resp.StatusCode, b)
	}
	after := testutil.Scrape(t)
	for _, c := range []struct {
		name   string
		labels map[string]string
		want   float64
	}{
		{"x402_payments_total", settled, 1},
		{"x402_revenue_smallest_units_total", revenue, 4321},
	} {
		a, _ := testutil.Sample(after, c.name, c.labels)
		b, _ := testutil.Sample(before, c.name, c.labels)
		if a-b != c.want {
			t.Errorf("%s%v went up by %v, want %v", c.name, c.labels, a-b, c.want)
		}
	}
	if n := calls.Load(); n != 2 {
		t.Errorf("the upstream ran %d times, want 2", n)
	}
}
