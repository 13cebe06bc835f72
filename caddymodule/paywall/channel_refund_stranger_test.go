package paywall

import (
	"bytes"
	"context"
	"fmt"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/caddy-x402/caddy-x402/caddymodule/internal/testutil"
	"github.com/caddy-x402/caddy-x402/facilitator/devnet"
	"github.com/caddy-x402/caddy-x402/facilitator/store"
)

// strangerPayTo and claimedPayTo are the sellers of the stranger's refund
// tests, paid by no other test.
const (
	strangerPayTo = "0x0000000000000000000000000000000000c4A129"
	claimedPayTo  = "0x0000000000000000000000000000000000C4A12A"
)

const strangerCaddyfile = `
:%[1]d {
	handle /reload%[4]d {
		respond ok
	}
	handle /stranger {
		x402 {
			pay_to %[2]s
			amount 1000
			scheme batch-settlement
			claim_every 5m
		}
		respond "paid content"
	}
	handle /claimed {
		x402 {
			pay_to %[3]s
			amount 1000
			scheme batch-settlement
			claim_every 5m
			refund_min 0.001
		}
		respond "paid content"
	}
}
`

// chainMark is a point on the devnet to count a channel's transactions
// from: the head block.
func chainMark(t *testing.T) uint64 {
	t.Helper()
	n, err := testutil.ActiveChain(t).Client().BlockNumber(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// channelTxs counts the facilitator signer's transactions mined after
// block from whose calldata names cb's channel (its config's salt, unique
// to the test): claims and refunds of it. Other tests' transactions of
// the same signer are not counted.
func channelTxs(t *testing.T, cb *channelBuyer, from uint64) int {
	t.Helper()
	client := testutil.ActiveChain(t).Client()
	signer := crypto.PubkeyToAddress(testutil.BuyerKey(t, devnet.SignerPrivateKey).PublicKey)
	head := chainMark(t)
	n := 0
	for b := from + 1; b <= head; b++ {
		blk, err := client.BlockByNumber(context.Background(), new(big.Int).SetUint64(b))
		if err != nil {
			t.Fatal(err)
		}
		for _, tx := range blk.Transactions() {
			sender, err := types.Sender(types.LatestSignerForChainID(tx.ChainId()), tx)
			if err == nil && sender == signer && bytes.Contains(tx.Data(), cb.cfg.Salt[:]) {
				n++
			}
		}
	}
	return n
}

// refundOf is a refund payload of a voucher someone holds (max and
// signature, not signed by the sender), with an optional amount.
func (cb *channelBuyer) refundOf(max string, sig []byte, amount string) map[string]any {
	p := map[string]any{"type": "refund", "channelConfig": cb.cfg,
		"voucher": map[string]any{"channelId": cb.id.Hex(), "maxClaimableAmount": max, "signature": hexutil.Encode(sig)}}
	if amount != "" {
		p["amount"] = amount
	}
	return p
}

// TestChannelRefundStranger (issue 32, finding 1): a stranger who knows a
// channel's public config and sends a voucher with a wrong cumulative
// gets the corrective 402 without voucherState (the payer's last voucher
// and signature), so it has nothing to sign a refund with: its full and
// partial refunds are refused, no transaction is sent (the signer's nonce
// stays), and the channel stays open with its balance. The payer's own
// corrective 402 still carries voucherState; a buyer's refund of a channel
// another instance is refunding sends nothing (finding 9); the payer's own
// refund goes through.
func TestChannelRefundStranger(t *testing.T) {
	tester := testutil.NewTester(t, testutil.GlobalBlock("")+fmt.Sprintf(strangerCaddyfile, testutil.SitePort, strangerPayTo, claimedPayTo, 0))
	u := testutil.SiteURL + "/stranger"
	cb := newChannelBuyer(t, tester, devnet.Buyer4PrivateKey, u, time.Now().UnixNano())
	payer := crypto.PubkeyToAddress(cb.key.PublicKey).Hex()
	if st, b, _, _ := channelGet(t, tester, cb, u, cb.deposit(t, 10000, 1000)); st != 200 {
		t.Fatalf("deposit: %d %s", st, b)
	}
	for i := int64(2); i <= 3; i++ {
		if st, b, _, _ := channelGet(t, tester, cb, u, cb.voucher(t, cb.key, 1000*i)); st != 200 {
			t.Fatalf("voucher %d: %d %s", i, st, b)
		}
	}
	payerBefore, mark, chainBefore := testutil.Balance(t, payer), chainMark(t), chainChannel(t, cb.id)

	// The stranger's voucher with a wrong cumulative: the corrective 402
	// says where the channel stands (public on chain), not the voucher.
	stranger, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	st, b, _, pr := channelGet(t, tester, cb, u, cb.voucher(t, stranger, 7000))
	if st != 402 || pr.Error != reasonCumulativeMismatch || len(pr.Accepts) != 1 {
		t.Fatalf("stranger's voucher: %d %s", st, b)
	}
	ex := pr.Accepts[0].Extra
	cs, _ := ex["channelState"].(map[string]any)
	if cs["chargedCumulativeAmount"] != "3000" || cs["balance"] != "10000" || ex["voucherState"] != nil {
		t.Errorf("the stranger's corrective 402: %+v, want channelState and no voucherState", ex)
	}
	// What the stranger can sign a refund with: the corrective's
	// voucherState if it had one (it had, before), else its own key.
	max, sig := "3000", func() []byte {
		p := cb.voucher(t, stranger, 3000)
		s, _ := hexutil.Decode(p["voucher"].(map[string]any)["signature"].(string))
		return s
	}()
	if vs, ok := ex["voucherState"].(map[string]any); ok {
		max, _ = vs["signedMaxClaimable"].(string)
		sig, _ = hexutil.Decode(fmt.Sprint(vs["signature"]))
	}
	for _, amount := range []string{"1", "1", "", "5000"} {
		st, b, _, pr := channelGet(t, tester, cb, u, cb.refundOf(max, sig, amount))
		if st != 402 || pr.Error != reasonVoucherSignature {
			t.Errorf("the stranger's refund (amount %q): %d %s %s, want 402 %s", amount, st, pr.Error, b, reasonVoucherSignature)
		}
	}
	if n := channelTxs(t, cb, mark); n != 0 {
		t.Errorf("the signer sent %d transactions for the stranger's refunds, want none", n)
	}
	testutil.AssertDelta(t, "payer after the stranger's refunds", payerBefore, testutil.Balance(t, payer), 0)
	if on := chainChannel(t, cb.id); on.Balance.Cmp(chainBefore.Balance) != 0 || on.RefundNonce.Cmp(chainBefore.RefundNonce) != 0 || on.Balance.Int64() != 10000 {
		t.Errorf("chain after the stranger's refunds: %+v, before %+v", on, chainBefore)
	}
	chans := activeChannels(t)
	id := strings.ToLower(cb.id.Hex())
	if rec, err := chans.Channel(context.Background(), id); err != nil || rec == nil || rec.State != store.ChannelOpen || rec.Charged.Int64() != 3000 {
		t.Fatalf("record after the stranger's refunds: %+v %v", rec, err)
	}

	// The payer's own voucher with a wrong cumulative: voucherState, to
	// resynchronise from.
	st, b, _, pr = channelGet(t, tester, cb, u, cb.voucher(t, cb.key, 7000))
	if st != 402 || pr.Error != reasonCumulativeMismatch {
		t.Fatalf("the payer's stale voucher: %d %s", st, b)
	}
	if vs, _ := pr.Accepts[0].Extra["voucherState"].(map[string]any); vs["signedMaxClaimable"] != "3000" {
		t.Errorf("the payer's corrective 402: %+v, want voucherState of 3000", pr.Accepts[0].Extra)
	}

	// Another instance is refunding the channel (it moved it to
	// refunding): the payer's refund here sends nothing.
	if moved, err := chans.SetChannelState(context.Background(), id, store.ChannelOpen, store.ChannelRefunding); !moved || err != nil {
		t.Fatalf("open -> refunding: %v %v", moved, err)
	}
	if st, b, _, pr := channelGet(t, tester, cb, u, cb.refund(t, 3000, "")); st != 402 || pr.Error != reasonChannelBusy {
		t.Errorf("refund of a channel refunding elsewhere: %d %s %s, want 402 %s", st, pr.Error, b, reasonChannelBusy)
	}
	if n := channelTxs(t, cb, mark); n != 0 {
		t.Errorf("the signer sent %d transactions for a refund under way elsewhere, want none", n)
	}
	if moved, err := chans.SetChannelState(context.Background(), id, store.ChannelRefunding, store.ChannelOpen); !moved || err != nil {
		t.Fatalf("refunding -> open: %v %v", moved, err)
	}

	// The payer's own refund: the rest, in one transaction.
	st, b, rs, _ := channelGet(t, tester, cb, u, cb.refund(t, 3000, ""))
	if st != 200 || rs.Amount != "7000" {
		t.Fatalf("the payer's refund: %d %s %+v", st, b, rs)
	}
	testutil.AssertDelta(t, "payer after its refund", payerBefore, testutil.Balance(t, payer), 7000)
	if n := channelTxs(t, cb, mark); n != 1 {
		t.Errorf("the signer sent %d transactions for the payer's refund, want 1", n)
	}
}

// TestChannelRefundClaimedVoucher (issue 32, finding 1): a claim puts the
// payer's voucher in its calldata, where anyone reads it; replayed as a
// refund it cannot be told from the payer's (its client signs the same
// voucher), so the gas it can cost is bounded: a partial refund below
// refund_min is refused, one refund transaction per channel per
// refund_window goes through (to the payer), the others are refused with
// nothing sent; the channel stays open. The payer, having paid a request
// since (a voucher above the claimed total, which no claim carried), gets
// its refund at once.
func TestChannelRefundClaimedVoucher(t *testing.T) {
	tester := testutil.NewTester(t, testutil.GlobalBlock("")+fmt.Sprintf(strangerCaddyfile, testutil.SitePort, strangerPayTo, claimedPayTo, 0))
	u := testutil.SiteURL + "/claimed"
	cb := newChannelBuyer(t, tester, devnet.Buyer5PrivateKey, u, time.Now().UnixNano())
	payer := crypto.PubkeyToAddress(cb.key.PublicKey).Hex()
	sellerBefore, start := testutil.Balance(t, claimedPayTo), chainMark(t)
	if st, b, _, _ := channelGet(t, tester, cb, u, cb.deposit(t, 20000, 1000)); st != 200 {
		t.Fatalf("deposit: %d %s", st, b)
	}
	if st, b, _, _ := channelGet(t, tester, cb, u, cb.voucher(t, cb.key, 2000)); st != 200 {
		t.Fatalf("voucher: %d %s", st, b)
	}
	// A reload runs the route's last claim round: it claims 2000 and
	// settles it (each reload's config differs: Caddy skips one it runs).
	testutil.LoadConfig(t, testutil.GlobalBlock("")+fmt.Sprintf(strangerCaddyfile, testutil.SitePort, strangerPayTo, claimedPayTo, 1))
	waitBalance(t, claimedPayTo, add(sellerBefore, 2000))
	testutil.AssertDelta(t, "seller after the claim round", sellerBefore, testutil.Balance(t, claimedPayTo), 2000)
	chans := activeChannels(t)
	id := strings.ToLower(cb.id.Hex())
	var rec *store.Channel
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if rec, _ = chans.Channel(context.Background(), id); rec != nil && rec.Claimed.Int64() == 2000 {
			break
		}
	}
	if rec == nil || rec.Claimed.Int64() != 2000 || rec.VoucherMax.Int64() != 2000 {
		t.Fatalf("record after the claim round: %+v", rec)
	}
	// The stranger reads the voucher from the claim's calldata.
	sig := rec.VoucherSignature
	client := testutil.ActiveChain(t).Client()
	found := false
	for n := start + 1; n <= chainMark(t) && !found; n++ {
		blk, err := client.BlockByNumber(context.Background(), new(big.Int).SetUint64(n))
		if err != nil {
			t.Fatal(err)
		}
		for _, tx := range blk.Transactions() {
			found = found || bytes.Contains(tx.Data(), sig)
		}
	}
	if !found {
		t.Fatalf("the claimed voucher's signature is in no transaction's calldata since the deposit")
	}
	payerBefore, mark := testutil.Balance(t, payer), chainMark(t)

	// Below refund_min (0.001 = 1000 units): refused, nothing sent.
	if st, b, _, pr := channelGet(t, tester, cb, u, cb.refundOf("2000", sig, "1")); st != 402 || !strings.HasPrefix(pr.Error, reasonRefundBelowMinimum) ||
		!strings.Contains(pr.Error, "at least 1000 smallest units") {
		t.Errorf("a replayed refund of 1: %d %s %s, want 402 %s", st, pr.Error, b, reasonRefundBelowMinimum)
	}
	if n := channelTxs(t, cb, mark); n != 0 {
		t.Fatalf("the signer sent %d transactions for a refund below refund_min, want none", n)
	}
	// One partial refund per window goes through (to the payer); the
	// others, partial or full, are refused with nothing sent.
	if st, b, rs, _ := channelGet(t, tester, cb, u, cb.refundOf("2000", sig, "1000")); st != 200 || rs.Amount != "1000" {
		t.Fatalf("the first replayed refund: %d %s %+v", st, b, rs)
	}
	for _, amount := range []string{"1000", "1000", "5000", ""} {
		if st, b, _, pr := channelGet(t, tester, cb, u, cb.refundOf("2000", sig, amount)); st != 402 || !strings.HasPrefix(pr.Error, reasonRefundTooSoon) {
			t.Errorf("a replayed refund (amount %q) within the window: %d %s %s, want 402 %s", amount, st, pr.Error, b, reasonRefundTooSoon)
		}
	}
	if n := channelTxs(t, cb, mark); n != 1 {
		t.Errorf("the signer sent %d transactions for the replayed refunds, want 1", n)
	}
	testutil.AssertDelta(t, "payer after the replayed refunds", payerBefore, testutil.Balance(t, payer), 1000)
	if on := chainChannel(t, cb.id); on.Balance.Int64() != 19000 || on.RefundNonce.Int64() != 1 {
		t.Errorf("chain after the replayed refunds: %+v", on)
	}
	if rec, err := chans.Channel(context.Background(), id); err != nil || rec == nil || rec.State != store.ChannelOpen {
		t.Fatalf("record after the replayed refunds: %+v %v", rec, err)
	}

	// The payer pays a request, then asks for its refund: a voucher above
	// the claimed total, at once.
	if st, b, _, _ := channelGet(t, tester, cb, u, cb.voucher(t, cb.key, 3000)); st != 200 {
		t.Fatalf("voucher after the replayed refunds: %d %s", st, b)
	}
	st, b, rs, _ := channelGet(t, tester, cb, u, cb.refund(t, 3000, ""))
	if st != 200 || rs.Amount != "16000" {
		t.Fatalf("the payer's refund: %d %s %+v", st, b, rs)
	}
	testutil.AssertDelta(t, "payer after its refund", payerBefore, testutil.Balance(t, payer), 17000)
}
