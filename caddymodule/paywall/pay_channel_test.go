package paywall

import (
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/caddy-x402/caddy-x402/caddymodule/internal/testutil"
	"github.com/caddy-x402/caddy-x402/caddymodule/x402cmd"
	"github.com/caddy-x402/caddy-x402/facilitator/devnet"
)

// payChannelSeller is the seller of TestPayChannel, paid by no other test.
const payChannelSeller = "0x0000000000000000000000000000000000c4A0A6"

// TestPayChannel: "caddy x402 pay" on a batch-settlement route opens a
// channel with one deposit, pays later calls with vouchers (no transfer),
// recovers a lost record from the seller's corrective 402 (charged once),
// serves two concurrent commands on one channel one after the other,
// tops up when the balance runs out, and the seller receives exactly
// price x calls after a claim round.
func TestPayChannel(t *testing.T) {
	testutil.NewTester(t, testutil.GlobalBlock("")+fmt.Sprintf(`
:%d {
	handle /chan {
		x402 {
			pay_to %s
			amount 1000
			scheme batch-settlement
			claim_every 1s
		}
		respond "channel content"
	}
}
`, testutil.SitePort, payChannelSeller))
	u := testutil.SiteURL + "/chan"
	buyer := crypto.PubkeyToAddress(testutil.BuyerKey(t, devnet.Buyer2PrivateKey).PublicKey).Hex()
	dir := t.TempDir()
	o := x402cmd.PayOptions{Key: devnet.Buyer2PrivateKey, MaxAmount: "10000", Timeout: 30 * time.Second, Channels: dir}
	sellerBefore, buyerBefore := testutil.Balance(t, payChannelSeller), testutil.Balance(t, buyer)
	pay := func(o x402cmd.PayOptions) string {
		t.Helper()
		var stdout, stderr strings.Builder
		if err := x402cmd.RunPay(t.Context(), u, o, &stdout, &stderr); err != nil {
			t.Fatalf("pay: %v\n%s", err, stderr.String())
		}
		if stdout.String() != "channel content" {
			t.Fatalf("stdout %q\n%s", stdout.String(), stderr.String())
		}
		return stderr.String()
	}
	paid := regexp.MustCompile(`(?m)^x402: paid 1000 smallest units from channel (0x[0-9a-f]{64}): charged cumulative (\d+), balance (\d+), remaining (\d+) \(record (.+)\)$`)
	want := func(stderr string, charged, balance int) string {
		t.Helper()
		m := paid.FindStringSubmatch(stderr)
		if m == nil || m[2] != fmt.Sprint(charged) || m[3] != fmt.Sprint(balance) || m[4] != fmt.Sprint(balance-charged) {
			t.Fatalf("want charged %d balance %d:\n%s", charged, balance, stderr)
		}
		return m[5]
	}

	// The first call deposits 5 x the price with a voucher for the first
	// request: one transfer from the buyer.
	out := pay(o)
	if !strings.Contains(out, "x402: opening channel ") || !strings.Contains(out, "depositing 5000 smallest units") || !strings.Contains(out, `"transaction": "0x`) {
		t.Fatalf("first call:\n%s", out)
	}
	record := want(out, 1000, 5000)
	testutil.AssertDelta(t, "buyer after the deposit", buyerBefore, testutil.Balance(t, buyer), -5000)
	if fi, err := os.Stat(record); err != nil || fi.Mode().Perm() != 0o600 || filepath.Dir(record) != dir {
		t.Fatalf("record %s: %v %v", record, fi, err)
	}
	// The next calls are vouchers: no transfer.
	for i := 2; i <= 3; i++ {
		out = pay(o)
		if strings.Contains(out, "depositing") || strings.Contains(out, `"transaction": "0x`) || !strings.Contains(out, fmt.Sprintf("voucher for %d ", i*1000)) {
			t.Fatalf("call %d:\n%s", i, out)
		}
		want(out, i*1000, 5000)
	}
	testutil.AssertDelta(t, "buyer after two vouchers", buyerBefore, testutil.Balance(t, buyer), -5000)

	// A lost record: the deposit signed from scratch is answered by the
	// corrective 402 before it is settled; resynchronised, charged once.
	if err := os.Remove(record); err != nil {
		t.Fatal(err)
	}
	out = pay(o)
	if !strings.Contains(out, "resynchronised (charged 3000, balance 5000); paying again") {
		t.Fatalf("recovery:\n%s", out)
	}
	want(out, 4000, 5000)
	testutil.AssertDelta(t, "buyer after the recovery", buyerBefore, testutil.Balance(t, buyer), -5000)

	// Two commands at once on the channel: both paid, each once; the
	// second of them tops the channel up (6000 > 5000).
	var wg sync.WaitGroup
	outs := make([]string, 2)
	errs := make([]error, 2)
	for i := range outs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var stdout, stderr strings.Builder
			errs[i] = x402cmd.RunPay(t.Context(), u, o, &stdout, &stderr)
			outs[i] = stderr.String()
		}()
	}
	wg.Wait()
	if errs[0] != nil || errs[1] != nil {
		t.Fatalf("concurrent: %v %v\n%s\n%s", errs[0], errs[1], outs[0], outs[1])
	}
	both := outs[0] + outs[1]
	if strings.Count(both, "x402: paid 1000 smallest units") != 2 || strings.Count(both, "topping up channel") != 1 ||
		strings.Contains(both, "resynchronised") || !paid.MatchString(outs[0]) || !paid.MatchString(outs[1]) {
		t.Fatalf("concurrent:\n%s\n%s", outs[0], outs[1])
	}
	first, second := outs[0], outs[1]
	if strings.Contains(first, "topping up") {
		first, second = second, first
	}
	want(first, 5000, 5000)
	want(second, 6000, 10000)
	testutil.AssertDelta(t, "buyer after the top-up", buyerBefore, testutil.Balance(t, buyer), -10000)

	// A lost record with --rpc: read from the chain, then checked against
	// the seller's voucher state.
	if err := os.Remove(record); err != nil {
		t.Fatal(err)
	}
	ro := o
	ro.RPC = testutil.DevnetURL
	out = pay(ro)
	if !strings.Contains(out, "the chain says balance 10000, claimed ") || !strings.Contains(out, "resynchronised (charged 6000, balance 10000)") {
		t.Fatalf("recovery with --rpc:\n%s", out)
	}
	want(out, 7000, 10000)

	// The seller gets exactly price x calls from the claim rounds.
	sellerGot := func(want int64) {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for testutil.Balance(t, payChannelSeller).Cmp(new(big.Int).Add(sellerBefore, big.NewInt(want))) < 0 && time.Now().Before(deadline) {
			time.Sleep(200 * time.Millisecond)
		}
		time.Sleep(1500 * time.Millisecond) // one more round: nothing more to claim
		testutil.AssertDelta(t, "seller after the claim rounds", sellerBefore, testutil.Balance(t, payChannelSeller), want)
	}
	sellerGot(7000)

	// A lost record once the channel is claimed, without --rpc: the
	// deposit is refused as below what the chain claimed (no state in
	// that refusal), so a voucher alone asks the seller for its state.
	if err := os.Remove(record); err != nil {
		t.Fatal(err)
	}
	out = pay(o)
	if !strings.Contains(out, "has been claimed beyond what we know: asking the seller for its state") ||
		!strings.Contains(out, "resynchronised (charged 7000, balance 10000)") {
		t.Fatalf("recovery after a claim:\n%s", out)
	}
	want(out, 8000, 10000)
	sellerGot(8000)
	testutil.AssertDelta(t, "buyer at the end", buyerBefore, testutil.Balance(t, buyer), -10000)

	// Bad flags and records: clear errors, nothing paid.
	notDir := filepath.Join(t.TempDir(), "file")
	_ = os.WriteFile(notDir, []byte("x"), 0o600)
	bad := filepath.Join(t.TempDir(), "bad")
	_ = os.MkdirAll(bad, 0o700)
	_ = os.WriteFile(filepath.Join(bad, filepath.Base(record)), []byte("{not json"), 0o600)
	for _, tc := range []struct {
		name string
		edit func(*x402cmd.PayOptions)
		want string
	}{
		{"deposit not an amount", func(o *x402cmd.PayOptions) { o.Deposit = "5 tokens" }, `--deposit "5 tokens": `},
		{"deposit above the cap", func(o *x402cmd.PayOptions) { o.Deposit, o.MaxDeposit = "9000", "8000" }, "--deposit 9000 is more than --max-deposit 8000"},
		{"salt not a number", func(o *x402cmd.PayOptions) { o.ChannelSalt = "salty" }, `--channel-salt "salty" is not a salt`},
		{"channels not a directory", func(o *x402cmd.PayOptions) { o.Channels = notDir }, "is not a directory"},
		{"deposit above --max-deposit", func(o *x402cmd.PayOptions) { o.ChannelSalt, o.MaxDeposit = "7", "2000" },
			"refusing to pay: the channel deposit of 5000 smallest units is more than --max-deposit 2000"},
		{"a corrupt record", func(o *x402cmd.PayOptions) { o.Channels = bad }, "is not valid JSON"},
	} {
		bo := o
		tc.edit(&bo)
		var stdout, stderr strings.Builder
		err := x402cmd.RunPay(t.Context(), u, bo, &stdout, &stderr)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q\n%s", tc.name, err, tc.want, stderr.String())
		}
	}
	testutil.AssertDelta(t, "buyer after the refusals", buyerBefore, testutil.Balance(t, buyer), -10000)
}
