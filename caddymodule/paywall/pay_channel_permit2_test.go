package paywall

import (
	"context"
	"fmt"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/caddy-x402/caddy-x402/caddymodule/internal/testutil"
	"github.com/caddy-x402/caddy-x402/caddymodule/x402cmd"
	"github.com/caddy-x402/caddy-x402/facilitator/devnet"
)

// payChannelPermit2Seller is the seller of TestPayChannelPermit2, paid by
// no other test.
const payChannelPermit2Seller = "0x0000000000000000000000000000000000c4A0a7"

// TestPayChannelPermit2: "caddy x402 pay" on a batch-settlement route
// with asset_transfer permit2, from a fresh wallet that never approved
// Permit2: refused with the published reason and a hint, nothing moved;
// with --approve-permit2 it approves once, deposits by Permit2 and pays
// the first call; the next call is a voucher (no approval, no transfer);
// the claim round pays the seller what was served.
func TestPayChannelPermit2(t *testing.T) {
	testutil.NewTester(t, testutil.GlobalBlock("")+fmt.Sprintf(`
:%d {
	handle /chan {
		x402 {
			pay_to %s
			amount 1000
			scheme batch-settlement
			asset_transfer permit2
			claim_every 1s
		}
		respond "channel content"
	}
}
`, testutil.SitePort, payChannelPermit2Seller))
	u := testutil.SiteURL + "/chan"
	key, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	buyer := crypto.PubkeyToAddress(key.PublicKey)
	// The fresh wallet holds tokens and gas for its one approval.
	chain := testutil.ActiveChain(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := chain.Mint(ctx, buyer, big.NewInt(100_000)); err != nil {
		t.Fatal(err)
	}
	if err := chain.SendValue(ctx, testutil.BuyerKey(t, devnet.Buyer1PrivateKey), buyer, big.NewInt(1e17)); err != nil {
		t.Fatalf("funding the buyer: %v", err)
	}

	o := x402cmd.PayOptions{Key: hexutil.Encode(crypto.FromECDSA(key)), MaxAmount: "10000", Timeout: 30 * time.Second, Channels: t.TempDir()}
	sellerBefore, buyerBefore := testutil.Balance(t, payChannelPermit2Seller), testutil.Balance(t, buyer.Hex())
	var stdout, stderr strings.Builder
	err = x402cmd.RunPay(t.Context(), u, o, &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), "payment refused: invalid_batch_settlement_evm_permit2_allowance_required (nothing was charged, and the deposit was not made): the wallet has not approved Permit2") {
		t.Fatalf("without an allowance: %v\n%s", err, stderr.String())
	}
	testutil.AssertDelta(t, "buyer after the refusal", buyerBefore, testutil.Balance(t, buyer.Hex()), 0)

	o.ApprovePermit2 = testutil.DevnetURL
	for run := range 2 {
		stdout.Reset()
		stderr.Reset()
		if err := x402cmd.RunPay(t.Context(), u, o, &stdout, &stderr); err != nil || stdout.String() != "channel content" {
			t.Fatalf("run %d: %v %q\n%s", run, err, stdout.String(), stderr.String())
		}
		out := stderr.String()
		if approved := strings.Contains(out, "x402: approving Permit2"); approved != (run == 0) {
			t.Errorf("run %d: approval sent %v:\n%s", run, approved, out)
		}
		if deposited := strings.Contains(out, "depositing 5000 smallest units"); deposited != (run == 0) {
			t.Errorf("run %d: deposit %v:\n%s", run, deposited, out)
		}
		testutil.AssertDelta(t, fmt.Sprintf("buyer after run %d", run), buyerBefore, testutil.Balance(t, buyer.Hex()), -5000)
	}
	deadline := time.Now().Add(30 * time.Second)
	for testutil.Balance(t, payChannelPermit2Seller).Cmp(new(big.Int).Add(sellerBefore, big.NewInt(2000))) != 0 && time.Now().Before(deadline) {
		time.Sleep(200 * time.Millisecond)
	}
	testutil.AssertDelta(t, "seller after the claim round", sellerBefore, testutil.Balance(t, payChannelPermit2Seller), 2000)
}
