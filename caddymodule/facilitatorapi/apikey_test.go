package facilitatorapi_test

import (
	"fmt"
	"io"
	"math/big"
	"net/http"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/caddy-x402/caddy-x402/caddymodule/internal/testutil"
	"github.com/caddy-x402/caddy-x402/facilitator/devnet"
	"github.com/caddy-x402/caddy-x402/facilitator/exact"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// TestFacilitatorAPIKeys: a paywall whose remote facilitator knows its key
// is limited per key, not by the per-IP limit it would share with every
// other caller; anonymous callers keep the per-IP limit; an unknown key
// is a 401; the key is in no served config.
func TestFacilitatorAPIKeys(t *testing.T) {
	const key = "k3y-0f-the-seller-5ecret"
	t.Setenv("X402_TEST_API_KEY", key)
	tester := testutil.NewTester(t, testutil.GlobalBlock("")+fmt.Sprintf(`
:%d {
	x402_facilitator {
		rate_limit verify 1 1m
		api_key {env.X402_TEST_API_KEY}
		key_rate_limit verify 100 1m
	}
}
:%d {
	x402 {
		pay_to %s
		amount 1000
		facilitator http://127.0.0.1:%d
		facilitator_header Authorization "Bearer {env.X402_TEST_API_KEY}"
		refusal_cache off
		attempt_limit off
	}
	respond "paid"
}
`, testutil.FacPort, testutil.SitePort, testutil.SellerAddr, testutil.FacPort))

	// Five bogus payments through the paywall: each verified by the
	// facilitator under the key's limit (a 402 with the reason), where the
	// per-IP limit would have allowed one.
	for i := 0; i < 5; i++ {
		k, _ := crypto.GenerateKey()
		h, _, err := exact.CreatePayment(k, testutil.Require402(t, tester, testutil.SiteURL+"/").PaymentRequirements,
			exact.PaymentOptions{ChainID: big.NewInt(devnet.ChainID)})
		if err != nil {
			t.Fatal(err)
		}
		resp, b := testutil.Get(t, tester, testutil.SiteURL+"/", map[string]string{"X-Payment": h})
		if resp.StatusCode != http.StatusPaymentRequired || !strings.Contains(string(b), x402.ErrTextInsufficientFunds) {
			t.Fatalf("bogus payment %d through the keyed paywall: %d %s", i+1, resp.StatusCode, b)
		}
	}

	post := func(auth string) (int, string) {
		req, _ := http.NewRequest(http.MethodPost, fmt.Sprintf("http://127.0.0.1:%d%s", testutil.FacPort, x402.PathVerify), strings.NewReader("{}"))
		req.Header.Set("Content-Type", "application/json")
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := tester.Client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	for _, c := range []struct {
		name, auth string
		status     int
		body       string
	}{
		{"anonymous, first", "", http.StatusBadRequest, ""},
		{"anonymous, over the per-IP limit", "", http.StatusTooManyRequests, "per client IP"},
		{"the key, under its own limit", "Bearer " + key, http.StatusBadRequest, ""},
		{"an unknown key", "Bearer not-the-key", http.StatusUnauthorized, "Unknown API key"},
	} {
		if status, body := post(c.auth); status != c.status || !strings.Contains(body, c.body) || strings.Contains(body, key) {
			t.Errorf("%s: %d %s, want %d with %q", c.name, status, body, c.status, c.body)
		}
	}
	_, b := testutil.Get(t, tester, fmt.Sprintf("http://localhost:%d/config/", testutil.AdminPort), nil)
	if strings.Contains(string(b), key) || !strings.Contains(string(b), "{env.X402_TEST_API_KEY}") {
		t.Errorf("GET /config/ shows the key, or lacks its placeholder: %s", b)
	}
	testutil.AssertLoadError(t, testutil.GlobalBlock("")+fmt.Sprintf(":%d {\n\tx402_facilitator {\n\t\tapi_key literal-key\n\t}\n}\n", testutil.FacPort),
		"caddyfile", "api_key must be a placeholder")
	for _, c := range []struct{ option, want string }{
		{"api_key {env.K} receivers", "api_key {env.K}: after the key, expected receivers"},
		{"api_key {env.K} for 0x1111111111111111111111111111111111111111", "..., got \\\"for 0x1111111111111111111111111111111111111111\\\""},
		{"api_key {env.K} receivers 0x1234", "api_key {env.K} receivers: \\\"0x1234\\\" is not an address (0x and 40 hex digits)"},
	} {
		testutil.AssertLoadError(t, testutil.GlobalBlock("")+fmt.Sprintf(":%d {\n\tx402_facilitator {\n\t\t%s\n\t}\n}\n", testutil.FacPort, c.option), "caddyfile", c.want)
	}
}
