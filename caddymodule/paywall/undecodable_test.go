package paywall

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/caddy-x402/caddy-x402/caddymodule/internal/testutil"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// TestUndecodablePaymentHeader (issue 33): a payment header that cannot
// be decoded is answered with what is wrong with it (not Base64, or Base64
// of what is not JSON) under the name of the header sent; version 1 keeps
// the spec's "Invalid Base64 paymentHeader" in error and invalidReason and
// says it in message.
func TestUndecodablePaymentHeader(t *testing.T) {
	tester := testutil.NewTester(t, testutil.GlobalBlock("")+fmt.Sprintf(`
:%d {
	x402 /weather {
		pay_to %s
		price 0.01
	}
	respond "sunny"
}
`, testutil.SitePort, testutil.SellerAddr))
	notJSON := base64.StdEncoding.EncodeToString([]byte("hello"))
	for _, tc := range []struct {
		name, header, value, want string
	}{
		{"v1 not JSON", "X-Payment", notJSON, "the X-PAYMENT header is Base64, but what it encodes is not a JSON object"},
		{"v1 not Base64", "X-Payment", "%%%", "the X-PAYMENT header is not Base64"},
		{"v2 not JSON", "Payment-Signature", notJSON, "the PAYMENT-SIGNATURE header is Base64, but what it encodes is not a JSON object"},
		{"v2 not Base64", "Payment-Signature", "%%%", "the PAYMENT-SIGNATURE header is not Base64"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, b := testutil.Get(t, tester, testutil.SiteURL+"/weather", map[string]string{tc.header: tc.value})
			if resp.StatusCode != http.StatusPaymentRequired {
				t.Fatalf("status %d, want 402: %s", resp.StatusCode, b)
			}
			var body struct{ Error, InvalidReason, Message string }
			if err := json.Unmarshal(b, &body); err != nil {
				t.Fatalf("body is not JSON: %s", b)
			}
			if tc.header == "X-Payment" {
				if body.Error != x402.ReasonInvalidBase64 || body.InvalidReason != x402.ReasonInvalidBase64 || !strings.Contains(body.Message, tc.want) {
					t.Errorf("v1 body %s: want the spec's reason and a message saying %q", b, tc.want)
				}
				return
			}
			var pr x402.PaymentRequiredV2
			if err := x402.DecodeBase64JSON(resp.Header.Get(x402.HeaderPaymentRequired), &pr); err != nil || !strings.Contains(pr.Error, tc.want) {
				t.Errorf("PAYMENT-REQUIRED error %q (%v), want %q in it", pr.Error, err, tc.want)
			}
			if x402.CodeOf(pr.Error, "") != x402.CodeInvalidPayload {
				t.Errorf("the reason %q has code %q, want %s", pr.Error, x402.CodeOf(pr.Error, ""), x402.CodeInvalidPayload)
			}
		})
	}
}
