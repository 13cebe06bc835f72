package paywall

import (
	"fmt"
	"testing"
	"time"

	"github.com/caddy-x402/caddy-x402/caddymodule/internal/testutil"
	"github.com/caddy-x402/caddy-x402/facilitator/devnet"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// TestChannelDepositReceipt (issue 33): a channel's first receipt names
// the deposit as such (extra.depositAmount, beside amount, what the
// settlement moved) apart from what the request cost (extra.chargedAmount);
// a voucher's receipt moves nothing and names no deposit.
func TestChannelDepositReceipt(t *testing.T) {
	// A seller of its own: the channel tests count channelPayTo's balance.
	const payTo = "0x0000000000000000000000000000000000c4a033"
	tester := testutil.NewTester(t, testutil.GlobalBlock("")+fmt.Sprintf(channelCaddyfile, testutil.SitePort, payTo))
	u := testutil.SiteURL + "/paid"
	cb := newChannelBuyer(t, tester, devnet.Buyer3PrivateKey, u, time.Now().UnixNano())
	for _, tc := range []struct {
		name            string
		payload         map[string]any
		amount, deposit string
	}{
		{"deposit", cb.deposit(t, 10000, 1000), "10000", "10000"},
		{"voucher", cb.voucher(t, cb.key, 2000), "", ""},
	} {
		resp, b := testutil.Get(t, tester, u, map[string]string{x402.HeaderPaymentSignature: cb.header(t, tc.payload)})
		var rs x402.ReferenceSettleResponse
		if err := x402.DecodeBase64JSON(resp.Header.Get(x402.HeaderPaymentResponseV2), &rs); err != nil || resp.StatusCode != 200 {
			t.Fatalf("%s: %d %s (%v)", tc.name, resp.StatusCode, b, err)
		}
		dep, _ := rs.Extra["depositAmount"].(string)
		if rs.Amount != tc.amount || dep != tc.deposit || rs.Extra["chargedAmount"] != "1000" {
			t.Errorf("%s receipt: amount %q, depositAmount %q, chargedAmount %v; want %q, %q, 1000", tc.name, rs.Amount, dep, rs.Extra["chargedAmount"], tc.amount, tc.deposit)
		}
	}
}
