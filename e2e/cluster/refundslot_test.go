package cluster

import (
	"encoding/json"
	"math/big"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/caddy-x402/caddy-x402/facilitator/batchsettlement/batch"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// refundHeader is the PAYMENT-SIGNATURE of a refund of amount authorized
// by the voucher for max: at the claimed total, the voucher anyone can
// read from the claim's calldata (the signature is deterministic, so the
// payer's and a stranger's replay are the same bytes).
func (b *chanBuyer) refundHeader(c *cluster, max int64, amount string) map[string]string {
	c.t.Helper()
	sig, err := batch.SignVoucher(b.acct.Key, c.chain.ChainID(), b.id, big.NewInt(max))
	if err != nil {
		c.t.Fatal(err)
	}
	raw, _ := json.Marshal(map[string]any{"type": "refund", "channelConfig": b.cfg, "amount": amount,
		"voucher": map[string]any{"channelId": b.id.Hex(), "maxClaimableAmount": strconv.FormatInt(max, 10), "signature": hexutil.Encode(sig)}})
	h, err := x402.EncodeBase64JSON(x402.PaymentPayloadV2{X402Version: 2, Accepted: b.acc, Payload: raw})
	if err != nil {
		c.t.Fatal(err)
	}
	return map[string]string{"Payment-Signature": h}
}

// TestChannelRefundSlotAcrossInstances: a refund on a voucher at the
// claimed total (public in the claim's calldata, so anyone's) goes
// through once per channel per refund_window for the whole cluster, not
// once per instance: the slot is the channel record's in PostgreSQL
// (TakeRefundSlot). The first, through one instance, refunds the payer;
// the same refund through the other is refused with nothing sent (before,
// each instance kept its own slots, and a stranger got a refund
// transaction, paid by the seller's gas, from every instance).
func TestChannelRefundSlotAcrossInstances(t *testing.T) {
	c := newCluster(t, options{instances: 2})
	offer := c.offerV2(c.nodes[0], "/chan/x")
	b := c.chanBuyer(c.chain.Buyers()[1], offer, time.Now().UnixNano())
	seller0 := c.balance(c.payTo)
	if a := c.nodes[0].get("/chan/x", b.header(c, price, 100*price), 60*time.Second); a.status != http.StatusOK || chargedOf(a) != price {
		t.Fatalf("deposit: %v", a)
	}
	// A claim round claims the voucher: it is public from then on.
	for deadline := time.Now().Add(60 * time.Second); delta(seller0, c.balance(c.payTo)) != price; time.Sleep(200 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the seller received %d, want %d (the claim round)", delta(seller0, c.balance(c.payTo)), price)
		}
	}
	payer0 := c.balance(b.acct.Address)
	refund := b.refundHeader(c, price, strconv.Itoa(10*price)) // refund_min is 0.01: 10,000 units
	a := c.nodes[0].get("/chan/x", refund, 60*time.Second)
	var rs x402.ReferenceSettleResponse
	if a.status != http.StatusOK || x402.DecodeBase64JSON(a.header.Get("Payment-Response"), &rs) != nil || rs.Amount != strconv.Itoa(10*price) {
		t.Fatalf("the first refund on the public voucher, through %s: %v", a.node, a)
	}
	// A partial refund leaves the channel open: once it is, the other
	// instance is asked.
	conn := c.connect()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		var state string
		if err := conn.QueryRow(bg, `SELECT state FROM x402_channels WHERE id = $1`, strings.ToLower(b.id.Hex())).Scan(&state); err != nil {
			t.Fatal(err)
		}
		if state == "open" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the channel is %s 30 s after a partial refund, want open", state)
		}
	}
	latest0, _ := c.nonces()
	a = c.nodes[1].get("/chan/x", refund, 60*time.Second)
	var pr x402.PaymentRequiredV2
	if a.status != http.StatusPaymentRequired || x402.DecodeBase64JSON(a.header.Get("Payment-Required"), &pr) != nil ||
		!strings.HasPrefix(pr.Error, "invalid_batch_settlement_evm_refund_too_soon: ") {
		t.Fatalf("the same refund through %s within the window: %d %s %q, want 402 invalid_batch_settlement_evm_refund_too_soon", a.node, a.status, a.body, pr.Error)
	}
	if latest, pending := c.nonces(); latest != latest0 || pending != latest0 {
		t.Errorf("the gas payer's nonce went from %d to %d (pending %d) for a refused refund", latest0, latest, pending)
	}
	if got := delta(payer0, c.balance(b.acct.Address)); got != 10*price {
		t.Errorf("the payer received %d, want %d (one refund)", got, 10*price)
	}
}
