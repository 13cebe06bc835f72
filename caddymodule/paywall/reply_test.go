package paywall

import (
	"fmt"
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

// TestPaidRequestV2 pays the paywall with x402 version 2 on the devnet:
// PAYMENT-REQUIRED on the 402, PAYMENT-SIGNATURE in, PAYMENT-RESPONSE out,
// the money moved once, and a replay refused.
func TestPaidRequestV2(t *testing.T) {
	const seller = "0x5e33e5e33e5e33e5e33e5e33e5e33e5e33e5e333"
	tester := testutil.NewTester(t, testutil.GlobalBlock("")+fmt.Sprintf(`
:%d {
	x402 /v2paid {
		pay_to %s
		amount 12345
		network eip155:338
		description "v2 test"
	}
	respond /v2paid "paid v2"
}
`, testutil.SitePort, seller))

	resp, b := testutil.Get(t, tester, testutil.SiteURL+"/v2paid", nil)
	if resp.StatusCode != http.StatusPaymentRequired {
		t.Fatalf("unpaid: %d %s", resp.StatusCode, b)
	}
	if got := resp.Header.Get("Access-Control-Expose-Headers"); got != "PAYMENT-REQUIRED, PAYMENT-RESPONSE, X-PAYMENT-RESPONSE" {
		t.Errorf("Access-Control-Expose-Headers %q", got)
	}
	var pr x402.PaymentRequiredV2
	if err := x402.DecodeBase64JSON(resp.Header.Get("Payment-Required"), &pr); err != nil {
		t.Fatalf("PAYMENT-REQUIRED: %v", err)
	}
	if pr.X402Version != 2 || pr.Error != "PAYMENT-SIGNATURE header is required" || pr.Resource == nil ||
		pr.Resource.URL != testutil.SiteURL+"/v2paid" || pr.Resource.Description != "v2 test" || len(pr.Accepts) != 1 {
		t.Fatalf("PAYMENT-REQUIRED = %+v", pr)
	}
	acc := pr.Accepts[0]
	if acc.Network != "eip155:338" || acc.Amount != "12345" || !strings.EqualFold(acc.PayTo, seller) ||
		acc.Domain() == nil || acc.Domain().Name != devnet.TokenName || acc.MaxTimeoutSeconds != 300 {
		t.Fatalf("accepts[0] = %+v", acc)
	}
	if !strings.Contains(string(b), `"network":"cronos-testnet"`) {
		t.Errorf("the v1 body lost its v1 network name: %s", b)
	}

	buyer := testutil.BuyerKey(t, devnet.Buyer4PrivateKey)
	buyerAddr := crypto.PubkeyToAddress(buyer.PublicKey).Hex()
	header, _, err := exact.CreatePaymentV2(buyer, acc, pr.Resource, exact.PaymentOptions{})
	if err != nil {
		t.Fatal(err)
	}
	before := testutil.Balance(t, seller)
	resp, b = testutil.Get(t, tester, testutil.SiteURL+"/v2paid", map[string]string{"Payment-Signature": header})
	if resp.StatusCode != http.StatusOK || string(b) != "paid v2" {
		t.Fatalf("paid: %d %s", resp.StatusCode, b)
	}
	if resp.Header.Get("X-Payment-Response") != "" {
		t.Error("a v2 payment was answered in X-PAYMENT-RESPONSE")
	}
	var sr x402.ReferenceSettleResponse
	if err := x402.DecodeBase64JSON(resp.Header.Get("Payment-Response"), &sr); err != nil {
		t.Fatalf("PAYMENT-RESPONSE: %v", err)
	}
	if !sr.Success || sr.Network != "eip155:338" || len(sr.Transaction) != 66 || !strings.EqualFold(sr.Payer, buyerAddr) || sr.Amount != "12345" {
		t.Fatalf("PAYMENT-RESPONSE = %+v", sr)
	}
	if got := new(big.Int).Sub(testutil.Balance(t, seller), before); got.Int64() != 12345 {
		t.Fatalf("seller received %s, want 12345", got)
	}

	resp, b = testutil.Get(t, tester, testutil.SiteURL+"/v2paid", map[string]string{"Payment-Signature": header})
	if resp.StatusCode != http.StatusPaymentRequired {
		t.Fatalf("replay: %d %s", resp.StatusCode, b)
	}
	if got := new(big.Int).Sub(testutil.Balance(t, seller), before); got.Int64() != 12345 {
		t.Fatalf("seller received %s after the replay, want 12345", got)
	}

	// A CORS preflight is not charged: it goes to the next handler.
	req, _ := http.NewRequest(http.MethodOptions, testutil.SiteURL+"/v2paid", nil)
	req.Header.Set("Origin", "https://app.example")
	req.Header.Set("Access-Control-Request-Method", "GET")
	pre, err := tester.Client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	pre.Body.Close()
	if pre.StatusCode != http.StatusOK {
		t.Fatalf("preflight: %d", pre.StatusCode)
	}
}
