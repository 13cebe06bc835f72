package paywall

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/caddy-x402/caddy-x402/caddymodule/internal/testutil"
	"github.com/caddy-x402/caddy-x402/caddymodule/x402cmd"
	"github.com/caddy-x402/caddy-x402/facilitator/devnet"
)

// payRefundSeller is the seller of TestPayChannelRefund, paid by no other test.
const payRefundSeller = "0x0000000000000000000000000000000000c4A0a7"

// TestPayChannelRefund: "caddy x402 pay --refund" gets the unclaimed rest
// of the channel back (and only it), refuses to ask again when nothing is
// left, a later payment tops the channel up again, --refund-amount
// refunds part, and a lost record is recovered from the seller's
// corrective 402 before the refund. The seller is paid exactly what was
// charged.
func TestPayChannelRefund(t *testing.T) {
	testutil.NewTester(t, testutil.GlobalBlock("")+fmt.Sprintf(`
:%d {
	handle /refundable {
		x402 {
			pay_to %s
			amount 1000
			scheme batch-settlement
			claim_every 1s
		}
		respond "channel content"
	}
}
`, testutil.SitePort, payRefundSeller))
	u := testutil.SiteURL + "/refundable"
	buyer := crypto.PubkeyToAddress(testutil.BuyerKey(t, devnet.Buyer2PrivateKey).PublicKey).Hex()
	o := x402cmd.PayOptions{Key: devnet.Buyer2PrivateKey, MaxAmount: "10000", Timeout: 30 * time.Second, Channels: t.TempDir()}
	run := func(o x402cmd.PayOptions) (string, string, error) {
		t.Helper()
		var stdout, stderr strings.Builder
		err := x402cmd.RunPay(t.Context(), u, o, &stdout, &stderr)
		return stdout.String(), stderr.String(), err
	}
	sellerBefore, buyerBefore := testutil.Balance(t, payRefundSeller), testutil.Balance(t, buyer)
	for i := 1; i <= 3; i++ {
		if _, out, err := run(o); err != nil {
			t.Fatalf("pay %d: %v\n%s", i, err, out)
		}
	}
	refund := o
	refund.Refund = true
	body, out, err := run(refund)
	refunded := regexp.MustCompile(`(?m)^x402: refunded (\d+) smallest units of channel (0x[0-9a-f]{64}) to 0x[0-9a-fA-F]{40} \(transaction 0x[0-9a-f]{64}\): charged cumulative (\d+), balance (\d+), remaining (\d+) \(record (.+)\)$`)
	want := func(out string, amount, charged, balance int) string {
		t.Helper()
		m := refunded.FindStringSubmatch(out)
		if m == nil || m[1] != fmt.Sprint(amount) || m[3] != fmt.Sprint(charged) || m[4] != fmt.Sprint(balance) || m[5] != fmt.Sprint(balance-charged) {
			t.Fatalf("want refunded %d, charged %d, balance %d:\n%s", amount, charged, balance, out)
		}
		return m[6]
	}
	if err != nil || !strings.Contains(body, "Refund acknowledged") {
		t.Fatalf("refund: %v %s\n%s", err, body, out)
	}
	record := want(out, 2000, 3000, 3000)
	testutil.AssertDelta(t, "buyer after the refund", buyerBefore, testutil.Balance(t, buyer), -3000)

	// Nothing left: not asked again.
	if _, out, err := run(refund); err == nil || !strings.Contains(err.Error(), "has nothing left (balance 3000, charged 3000)") {
		t.Fatalf("second refund: %v\n%s", err, out)
	}
	// The next payment tops the channel up (and reopens it).
	if _, out, err = run(o); err != nil || !strings.Contains(out, "topping up channel") || !strings.Contains(out, "charged cumulative 4000, balance 8000") {
		t.Fatalf("pay after the refund: %v\n%s", err, out)
	}
	// Part of it back.
	part := refund
	part.RefundAmount = "1000"
	if _, out, err = run(part); err != nil {
		t.Fatalf("partial refund: %v\n%s", err, out)
	}
	want(out, 1000, 4000, 7000)
	// The record lost: the seller's corrective 402 tells the charged
	// amount (backed by our voucher), then the rest comes back.
	if err := os.Remove(record); err != nil {
		t.Fatal(err)
	}
	if _, out, err = run(refund); err != nil || !strings.Contains(out, "resynchronised (charged 4000, balance 7000); asking again") {
		t.Fatalf("refund without a record: %v\n%s", err, out)
	}
	want(out, 3000, 4000, 4000)
	testutil.AssertDelta(t, "buyer at the end", buyerBefore, testutil.Balance(t, buyer), -4000)

	// A bad --refund-amount, and --refund on a route that is not a channel's.
	bad := refund
	bad.RefundAmount = "all"
	if _, _, err := run(bad); err == nil || !strings.Contains(err.Error(), `--refund-amount "all"`) {
		t.Errorf("bad --refund-amount: %v", err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for testutil.Balance(t, payRefundSeller).Int64()-sellerBefore.Int64() < 4000 && time.Now().Before(deadline) {
		time.Sleep(200 * time.Millisecond)
	}
	time.Sleep(1500 * time.Millisecond)
	testutil.AssertDelta(t, "seller", sellerBefore, testutil.Balance(t, payRefundSeller), 4000)
}
