package paywall

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddytest"
	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/caddy-x402/caddy-x402/caddymodule/app"
	"github.com/caddy-x402/caddy-x402/caddymodule/internal/testutil"
	"github.com/caddy-x402/caddy-x402/facilitator/batchsettlement/batch"
	"github.com/caddy-x402/caddy-x402/facilitator/devnet"
	"github.com/caddy-x402/caddy-x402/facilitator/store"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// refundPayTo and idlePayTo are the sellers of the refund tests, paid by
// no other test.
const (
	refundPayTo = "0x0000000000000000000000000000000000c4a126"
	idlePayTo   = "0x0000000000000000000000000000000000C4A127"
)

const refundCaddyfile = `
:%[1]d {
	handle /slow {
		x402 {
			pay_to %[2]s
			amount 1000
			scheme batch-settlement
			claim_every 5m
		}
		respond "paid content"
	}
	handle /idle {
		x402 {
			pay_to %[3]s
			amount 1000
			scheme batch-settlement
			claim_every 1s
			refund_idle 2s
		}
		respond "paid content"
	}
	handle /retry {
		x402 {
			pay_to %[4]s
			amount 1000
			scheme batch-settlement
			claim_every 1s
		}
		respond "paid content"
	}
}
`

// retryPayTo is the seller of TestChannelRefundInterrupted.
const retryPayTo = "0x0000000000000000000000000000000000c4a128"

// refund is a refund payload: a voucher of max (charging nothing) and an
// optional amount.
func (cb *channelBuyer) refund(t testing.TB, max int64, amount string) map[string]any {
	t.Helper()
	p := cb.voucher(t, cb.key, max)
	p["type"] = "refund"
	if amount != "" {
		p["amount"] = amount
	}
	return p
}

// channelGet sends a payload to u and decodes the answer's headers.
func channelGet(t *testing.T, tester *caddytest.Tester, cb *channelBuyer, u string, payload any) (int, string, x402.ReferenceSettleResponse, x402.PaymentRequiredV2) {
	t.Helper()
	resp, b := testutil.Get(t, tester, u, map[string]string{x402.HeaderPaymentSignature: cb.header(t, payload)})
	var rs x402.ReferenceSettleResponse
	var pr x402.PaymentRequiredV2
	_ = x402.DecodeBase64JSON(resp.Header.Get(x402.HeaderPaymentResponseV2), &rs)
	_ = x402.DecodeBase64JSON(resp.Header.Get(x402.HeaderPaymentRequired), &pr)
	return resp.StatusCode, string(b), rs, pr
}

// chainChannel reads a channel's state from the devnet.
func chainChannel(t *testing.T, id common.Hash) batch.ChannelState {
	t.Helper()
	client := testutil.ActiveChain(t).Client()
	var res [3][]byte
	for i, data := range batch.ChannelReadCalls(id) {
		out, err := client.CallContract(context.Background(), ethereum.CallMsg{To: &batch.SettlementAddress, Data: data}, nil)
		if err != nil {
			t.Fatal(err)
		}
		res[i] = out
	}
	st, err := batch.UnpackChannelState(res)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// activeChannels is the running x402 app's channel store.
func activeChannels(t *testing.T) store.Channels {
	t.Helper()
	a, err := caddy.ActiveContext().App("x402")
	if err != nil {
		t.Fatal(err)
	}
	return a.(*app.App).Deliveries().Store().(store.Channels)
}

// waitBalance waits until addr holds want, or 30 s.
func waitBalance(t *testing.T, addr string, want *big.Int) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); testutil.Balance(t, addr).Cmp(want) != 0 && time.Now().Before(deadline); {
		time.Sleep(100 * time.Millisecond)
	}
}

func add(v *big.Int, d int64) *big.Int { return new(big.Int).Add(v, big.NewInt(d)) }

// TestChannelRefundRequested: a buyer's refund request claims the
// vouchers charged and not claimed yet and sends the rest back in one
// transaction: the payer gets deposit - charged exactly, the seller gets
// charged exactly once (settled at the next round), the channel is closed
// (vouchers refused), and the same refund sent again, or twice at once,
// pays once.
func TestChannelRefundRequested(t *testing.T) {
	tester := testutil.NewTester(t, testutil.GlobalBlock("")+fmt.Sprintf(refundCaddyfile, testutil.SitePort, refundPayTo, idlePayTo, retryPayTo))
	u := testutil.SiteURL + "/slow"
	cb := newChannelBuyer(t, tester, devnet.Buyer1PrivateKey, u, time.Now().UnixNano())
	payer := crypto.PubkeyToAddress(cb.key.PublicKey).Hex()
	sellerBefore := testutil.Balance(t, refundPayTo)
	if st, b, _, _ := channelGet(t, tester, cb, u, cb.deposit(t, 10000, 1000)); st != 200 {
		t.Fatalf("deposit: %d %s", st, b)
	}
	for i := int64(2); i <= 3; i++ {
		if st, b, _, _ := channelGet(t, tester, cb, u, cb.voucher(t, cb.key, 1000*i)); st != 200 {
			t.Fatalf("voucher %d: %d %s", i, st, b)
		}
	}
	payerBefore := testutil.Balance(t, payer)
	other := testutil.BuyerKey(t, devnet.Buyer2PrivateKey)
	for _, tc := range []struct {
		name    string
		payload map[string]any
		reason  string
	}{
		{"a refund voucher below the charged amount", cb.refund(t, 2000, ""), reasonCumulativeMismatch},
		{"a refund voucher that charges", cb.refund(t, 4000, ""), reasonCumulativeMismatch},
		{"an amount that is not a number", cb.refund(t, 3000, "12abc"), reasonRefundAmountInvalid},
		{"an amount of zero", cb.refund(t, 3000, "0"), reasonRefundAmountInvalid},
		{"a refund signed by another key", func() map[string]any {
			p := cb.voucher(t, other, 3000)
			p["type"] = "refund"
			return p
		}(), reasonVoucherSignature},
	} {
		st, b, _, pr := channelGet(t, tester, cb, u, tc.payload)
		if st != 402 || (pr.Error != tc.reason && !strings.Contains(b, tc.reason)) {
			t.Errorf("%s: %d %s %s, want 402 %s", tc.name, st, pr.Error, b, tc.reason)
		}
	}
	testutil.AssertDelta(t, "payer after refused refunds", payerBefore, testutil.Balance(t, payer), 0)

	st, b, rs, _ := channelGet(t, tester, cb, u, cb.refund(t, 3000, ""))
	var body map[string]string
	_ = json.Unmarshal([]byte(b), &body)
	cs, _ := rs.Extra["channelState"].(map[string]any)
	if st != 200 || body["message"] != "Refund acknowledged" || body["channelId"] != strings.ToLower(cb.id.Hex()) ||
		!rs.Success || rs.Transaction == "" || rs.Amount != "7000" || cs["balance"] != "3000" || cs["totalClaimed"] != "3000" ||
		cs["refundNonce"] != "1" || cs["chargedCumulativeAmount"] != "3000" {
		t.Fatalf("refund: %d %s %+v", st, b, rs)
	}
	testutil.AssertDelta(t, "payer after the refund", payerBefore, testutil.Balance(t, payer), 7000)
	if rc, err := testutil.ActiveChain(t).Client().TransactionReceipt(context.Background(), common.HexToHash(rs.Transaction)); err == nil {
		t.Logf("claim + refund in one multicall: %d gas", rc.GasUsed)
	}
	// The refund claimed the three charged requests (no claim round ran:
	// claim_every 5m); they reach pay_to at the next settle.
	if on := chainChannel(t, cb.id); on.TotalClaimed.Int64() != 3000 || on.Balance.Int64() != 3000 || on.RefundNonce.Int64() != 1 {
		t.Fatalf("chain after the refund: %+v", on)
	}
	testutil.AssertDelta(t, "seller before any settle", sellerBefore, testutil.Balance(t, refundPayTo), 0)

	// Closed: vouchers are refused, the same refund pays nothing.
	if st, b, _, _ := channelGet(t, tester, cb, u, cb.voucher(t, cb.key, 4000)); st != 402 || !strings.Contains(b, reasonChannelClosed) {
		t.Errorf("voucher after the refund: %d %s", st, b)
	}
	if st, b, _, pr := channelGet(t, tester, cb, u, cb.refund(t, 3000, "")); st != 402 || pr.Error != reasonRefundNoBalance {
		t.Errorf("refund sent again: %d %s", st, b)
	}
	testutil.AssertDelta(t, "payer after the refund sent again", payerBefore, testutil.Balance(t, payer), 7000)

	// Two refunds of one channel at once: one is sent.
	cb2 := newChannelBuyer(t, tester, devnet.Buyer1PrivateKey, u, time.Now().UnixNano()+1)
	if st, b, _, _ := channelGet(t, tester, cb2, u, cb2.deposit(t, 5000, 1000)); st != 200 {
		t.Fatalf("second deposit: %d %s", st, b)
	}
	payerBefore = testutil.Balance(t, payer)
	var wg sync.WaitGroup
	statuses := make([]int, 2)
	for k := range statuses {
		wg.Add(1)
		go func() {
			defer wg.Done()
			statuses[k], _, _, _ = channelGet(t, tester, cb2, u, cb2.refund(t, 1000, ""))
		}()
	}
	wg.Wait()
	if ok := (statuses[0] == 200) != (statuses[1] == 200); !ok || statuses[0]+statuses[1] != 602 {
		t.Errorf("two refunds at once: %v, want one 200 and one 402", statuses)
	}
	testutil.AssertDelta(t, "payer after two refunds at once", payerBefore, testutil.Balance(t, payer), 4000)

	// A reload runs the old route's last round: it settles what the
	// refunds claimed, once. (Each reload's config differs: Caddy skips
	// loading one it runs already.)
	reload := func(n int) {
		cfg := strings.Replace(fmt.Sprintf(refundCaddyfile, testutil.SitePort, refundPayTo, idlePayTo, retryPayTo), "\thandle /slow {",
			fmt.Sprintf("\thandle /reload%d {\n\t\trespond ok\n\t}\n\thandle /slow {", n), 1)
		testutil.LoadConfig(t, testutil.GlobalBlock("")+cfg)
	}
	reload(1)
	waitBalance(t, refundPayTo, add(sellerBefore, 4000))
	testutil.AssertDelta(t, "seller after the settle", sellerBefore, testutil.Balance(t, refundPayTo), 4000)
	reload(2)
	time.Sleep(time.Second)
	testutil.AssertDelta(t, "seller after another reload", sellerBefore, testutil.Balance(t, refundPayTo), 4000)
}

// TestChannelRefundIdle: a channel not charged for refund_idle is
// refunded (deposit - charged to the payer, charged to pay_to, once) and
// closed; a refund retried after it was mined pays nothing; a new deposit
// opens the closed channel again, with the chain's refund nonce in its
// state, and the next idle refund uses the next nonce.
func TestChannelRefundIdle(t *testing.T) {
	tester := testutil.NewTester(t, testutil.GlobalBlock("")+fmt.Sprintf(refundCaddyfile, testutil.SitePort, refundPayTo, idlePayTo, retryPayTo))
	u := testutil.SiteURL + "/idle"
	cb := newChannelBuyer(t, tester, devnet.Buyer2PrivateKey, u, time.Now().UnixNano())
	payer := crypto.PubkeyToAddress(cb.key.PublicKey).Hex()
	sellerBefore := testutil.Balance(t, idlePayTo)
	if st, b, _, _ := channelGet(t, tester, cb, u, cb.deposit(t, 10000, 1000)); st != 200 {
		t.Fatalf("deposit: %d %s", st, b)
	}
	if st, b, _, _ := channelGet(t, tester, cb, u, cb.voucher(t, cb.key, 2000)); st != 200 {
		t.Fatalf("voucher: %d %s", st, b)
	}
	payerBefore := testutil.Balance(t, payer)
	waitBalance(t, payer, add(payerBefore, 8000))
	testutil.AssertDelta(t, "payer after the idle refund", payerBefore, testutil.Balance(t, payer), 8000)
	waitBalance(t, idlePayTo, add(sellerBefore, 2000))
	testutil.AssertDelta(t, "seller after the idle refund", sellerBefore, testutil.Balance(t, idlePayTo), 2000)
	chans := activeChannels(t)
	ctx := context.Background()
	id := strings.ToLower(cb.id.Hex())
	var rec *store.Channel
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if rec, _ = chans.Channel(ctx, id); rec != nil && rec.State == store.ChannelClosed {
			break
		}
	}
	if rec == nil || rec.State != store.ChannelClosed || rec.RefundNonce.Int64() != 1 || rec.Balance.Int64() != 2000 || rec.Claimed.Int64() != 2000 {
		t.Fatalf("record after the idle refund: %+v", rec)
	}
	if st, b, _, _ := channelGet(t, tester, cb, u, cb.voucher(t, cb.key, 3000)); st != 402 || !strings.Contains(b, reasonChannelClosed) {
		t.Errorf("voucher after the idle refund: %d %s", st, b)
	}

	// A refund retried after it was mined (as after a crash between the
	// transaction and its record): the chain's reading closes it, nothing
	// is sent.
	if moved, err := chans.SetChannelState(ctx, id, store.ChannelClosed, store.ChannelRefunding); !moved || err != nil {
		t.Fatalf("closed -> refunding: %v %v", moved, err)
	}
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if rec, _ = chans.Channel(ctx, id); rec != nil && rec.State == store.ChannelClosed {
			break
		}
	}
	if rec == nil || rec.State != store.ChannelClosed {
		t.Fatalf("record after the retry: %+v", rec)
	}
	testutil.AssertDelta(t, "payer after the retried refund", payerBefore, testutil.Balance(t, payer), 8000)
	if on := chainChannel(t, cb.id); on.RefundNonce.Int64() != 1 {
		t.Fatalf("chain refund nonce after the retry: %v", on.RefundNonce)
	}

	// A deposit opens the closed channel again (charged goes on from 2000);
	// its authorization has a salt of its own.
	cb.salt = add(cb.salt, 1)
	st, b, rs, _ := channelGet(t, tester, cb, u, cb.deposit(t, 5000, 3000))
	cs, _ := rs.Extra["channelState"].(map[string]any)
	if st != 200 || cs["chargedCumulativeAmount"] != "3000" || cs["refundNonce"] != "1" || cs["balance"] != "7000" {
		t.Fatalf("deposit into the closed channel: %d %s %+v", st, b, rs)
	}
	payerBefore = testutil.Balance(t, payer)
	waitBalance(t, payer, add(payerBefore, 4000))
	testutil.AssertDelta(t, "payer after the second idle refund", payerBefore, testutil.Balance(t, payer), 4000)
	waitBalance(t, idlePayTo, add(sellerBefore, 3000))
	testutil.AssertDelta(t, "seller after the second idle refund", sellerBefore, testutil.Balance(t, idlePayTo), 3000)
	if on := chainChannel(t, cb.id); on.RefundNonce.Int64() != 2 || on.Balance.Int64() != 3000 || on.TotalClaimed.Int64() != 3000 {
		t.Fatalf("chain after the second idle refund: %+v", on)
	}
}

// TestChannelRefundConfig: refund_idle is read, checked and refused where
// it does not belong.
func TestChannelRefundConfig(t *testing.T) {
	for _, tc := range []struct{ opts, want string }{
		{"scheme batch-settlement\n\t\trefund_idle soon", "want a duration of at least 1s, such as 24h, or off"},
		{"scheme batch-settlement\n\t\trefund_idle 10ms", "want a duration of at least 1s"},
		{"refund_idle 1h", "refund_idle is for scheme batch-settlement"},
		{"scheme batch-settlement\n\t\trefund_window 10ms", "want a duration of at least 1s, such as 10m"},
		{"scheme batch-settlement\n\t\trefund_min 1e3", "want a price in whole tokens, such as 0.01"},
		{"scheme batch-settlement\n\t\trefund_min 0.0000001", "has more than 6 decimal places, the token's precision"},
		{"refund_window 1m", "refund_window and refund_min are for scheme batch-settlement"},
		{"refund_min 0.01", "refund_window and refund_min are for scheme batch-settlement"},
	} {
		cfg := testutil.GlobalBlock("") + fmt.Sprintf(":%d {\n\tx402 {\n\t\tpay_to %s\n\t\tamount 1000\n\t\t%s\n\t}\n\trespond ok\n}\n", testutil.SitePort, refundPayTo, tc.opts)
		testutil.AssertLoadError(t, cfg, "caddyfile", tc.want)
	}
}

// TestChannelRefundUnknownChannel: a refund of a channel the store does
// not hold (its record lost; here funded past the paywall) is checked
// against the chain, recorded, and refunded: all of it, nothing being
// charged or claimed.
func TestChannelRefundUnknownChannel(t *testing.T) {
	tester := testutil.NewTester(t, testutil.GlobalBlock("")+fmt.Sprintf(refundCaddyfile, testutil.SitePort, refundPayTo, idlePayTo, retryPayTo))
	u := testutil.SiteURL + "/slow"
	cb := newChannelBuyer(t, tester, devnet.Buyer3PrivateKey, u, time.Now().UnixNano())
	payer := crypto.PubkeyToAddress(cb.key.PublicKey).Hex()
	reqs := x402.PaymentRequirements{Scheme: SchemeChannel, Network: "cronos-testnet", PayTo: cb.acc.PayTo, Asset: cb.acc.Asset,
		MaxAmountRequired: cb.acc.Amount, MaxTimeoutSeconds: 300, Resource: u}
	sr, err := testutil.ActiveFacilitator(t).Settle(context.Background(), &x402.Request{X402Version: 1,
		PaymentHeader: cb.header(t, cb.deposit(t, 6000, 1000)), PaymentRequirements: reqs, Dialect: x402.DialectV2, RequirementsV2: &cb.acc})
	if err != nil || !sr.Settled() {
		t.Fatalf("deposit past the paywall: %+v %v", sr, err)
	}
	if rec, err := activeChannels(t).Channel(context.Background(), strings.ToLower(cb.id.Hex())); rec != nil || err != nil {
		t.Fatalf("the store holds the channel: %+v %v", rec, err)
	}
	before := testutil.Balance(t, payer)
	// A refund voucher must be of the charged amount: the chain says 0.
	if st, b, _, pr := channelGet(t, tester, cb, u, cb.refund(t, 1000, "")); st != 402 || pr.Error != reasonCumulativeMismatch {
		t.Fatalf("refund voucher of 1000: %d %s", st, b)
	}
	st, b, rs, _ := channelGet(t, tester, cb, u, cb.refund(t, 0, ""))
	if st != 200 || rs.Amount != "6000" {
		t.Fatalf("refund: %d %s %+v", st, b, rs)
	}
	testutil.AssertDelta(t, "payer after the refund", before, testutil.Balance(t, payer), 6000)
}

// TestChannelRefundInterrupted: a refund interrupted after its channel
// stopped charging (an instance killed between the state write and the
// send) is finished by the next round: the payer gets deposit - charged,
// once, and the seller the charged amount.
func TestChannelRefundInterrupted(t *testing.T) {
	tester := testutil.NewTester(t, testutil.GlobalBlock("")+fmt.Sprintf(refundCaddyfile, testutil.SitePort, refundPayTo, idlePayTo, retryPayTo))
	u := testutil.SiteURL + "/retry"
	cb := newChannelBuyer(t, tester, devnet.Buyer3PrivateKey, u, time.Now().UnixNano())
	payer := crypto.PubkeyToAddress(cb.key.PublicKey).Hex()
	sellerBefore := testutil.Balance(t, retryPayTo)
	if st, b, _, _ := channelGet(t, tester, cb, u, cb.deposit(t, 9000, 1000)); st != 200 {
		t.Fatalf("deposit: %d %s", st, b)
	}
	before := testutil.Balance(t, payer)
	chans := activeChannels(t)
	id := strings.ToLower(cb.id.Hex())
	if moved, err := chans.SetChannelState(context.Background(), id, store.ChannelOpen, store.ChannelRefunding); !moved || err != nil {
		t.Fatalf("open -> refunding: %v %v", moved, err)
	}
	if st, b, _, _ := channelGet(t, tester, cb, u, cb.voucher(t, cb.key, 2000)); st != 402 || !strings.Contains(b, reasonChannelClosed) {
		t.Errorf("voucher of a refunding channel: %d %s", st, b)
	}
	waitBalance(t, payer, add(before, 8000))
	waitBalance(t, retryPayTo, add(sellerBefore, 1000))
	time.Sleep(1500 * time.Millisecond) // more rounds: nothing more moves
	testutil.AssertDelta(t, "payer after the finished refund", before, testutil.Balance(t, payer), 8000)
	testutil.AssertDelta(t, "seller after the finished refund", sellerBefore, testutil.Balance(t, retryPayTo), 1000)
	if rec, err := chans.Channel(context.Background(), id); err != nil || rec == nil || rec.State != store.ChannelClosed || rec.RefundNonce.Int64() != 1 {
		t.Fatalf("record after the finished refund: %+v %v", rec, err)
	}
}

// TestChannelRefundPartial: a refund of part of what is not charged
// leaves the channel open (vouchers go on from the charged amount); an
// amount above what is left refunds what is left and closes it.
func TestChannelRefundPartial(t *testing.T) {
	tester := testutil.NewTester(t, testutil.GlobalBlock("")+fmt.Sprintf(refundCaddyfile, testutil.SitePort, refundPayTo, idlePayTo, retryPayTo))
	u := testutil.SiteURL + "/slow"
	cb := newChannelBuyer(t, tester, devnet.Buyer3PrivateKey, u, time.Now().UnixNano())
	payer := crypto.PubkeyToAddress(cb.key.PublicKey).Hex()
	if st, b, _, _ := channelGet(t, tester, cb, u, cb.deposit(t, 10000, 1000)); st != 200 {
		t.Fatalf("deposit: %d %s", st, b)
	}
	before := testutil.Balance(t, payer)
	st, b, rs, _ := channelGet(t, tester, cb, u, cb.refund(t, 1000, "3000"))
	cs, _ := rs.Extra["channelState"].(map[string]any)
	if st != 200 || rs.Amount != "3000" || cs["balance"] != "7000" || cs["refundNonce"] != "1" {
		t.Fatalf("partial refund: %d %s %+v", st, b, rs)
	}
	testutil.AssertDelta(t, "payer after the partial refund", before, testutil.Balance(t, payer), 3000)
	for i := int64(2); i <= 4; i++ {
		if st, b, _, _ := channelGet(t, tester, cb, u, cb.voucher(t, cb.key, 1000*i)); st != 200 {
			t.Fatalf("voucher %d after the partial refund: %d %s", i, st, b)
		}
	}
	// 7000 in the channel, 4000 charged: an amount of 100000 refunds 3000.
	st, b, rs, _ = channelGet(t, tester, cb, u, cb.refund(t, 4000, "100000"))
	cs, _ = rs.Extra["channelState"].(map[string]any)
	if st != 200 || rs.Amount != "3000" || cs["balance"] != "4000" || cs["totalClaimed"] != "4000" || cs["refundNonce"] != "2" {
		t.Fatalf("refund above what is left: %d %s %+v", st, b, rs)
	}
	testutil.AssertDelta(t, "payer after both refunds", before, testutil.Balance(t, payer), 6000)
	if st, b, _, _ := channelGet(t, tester, cb, u, cb.voucher(t, cb.key, 5000)); st != 402 || !strings.Contains(b, reasonChannelClosed) {
		t.Fatalf("voucher after the last refund: %d %s", st, b)
	}
	if on := chainChannel(t, cb.id); on.Balance.Int64() != 4000 || on.TotalClaimed.Int64() != 4000 || on.RefundNonce.Int64() != 2 {
		t.Fatalf("chain at the end: %+v", on)
	}
}
