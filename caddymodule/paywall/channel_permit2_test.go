package paywall

import (
	"fmt"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/caddy-x402/caddy-x402/caddymodule/internal/testutil"
	"github.com/caddy-x402/caddy-x402/facilitator/batchsettlement/batch"
	"github.com/caddy-x402/caddy-x402/facilitator/devnet"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// channelPermit2PayTo is the seller of the Permit2 channel test, paid by
// no other test.
const channelPermit2PayTo = "0x0000000000000000000000000000000000C4a027"

const channelPermit2Caddyfile = `
:%[1]d {
	handle /paid {
		x402 {
			pay_to %[2]s
			amount 1000
			scheme batch-settlement
			asset_transfer permit2
			claim_every 1s
		}
		respond "paid content"
	}
}
`

// permit2Deposit is a deposit payload of amount by a Permit2 witness
// transfer (nonce) with a voucher for max, as @x402/evm 2.27's
// createBatchSettlementPermit2DepositPayload builds it.
func (cb *channelBuyer) permit2Deposit(t testing.TB, amount, max, nonce int64) map[string]any {
	t.Helper()
	p := cb.voucher(t, cb.key, max)
	p["type"] = "deposit"
	d := batch.Permit2Deposit{Token: devnet.TokenAddress, Amount: big.NewInt(amount), Nonce: big.NewInt(nonce),
		Deadline: big.NewInt(time.Now().Add(time.Hour).Unix()), ChannelID: cb.id}
	sig, err := batch.SignPermit2Deposit(cb.key, big.NewInt(devnet.ChainID), d)
	if err != nil {
		t.Fatal(err)
	}
	p["deposit"] = map[string]any{"amount": fmt.Sprint(amount), "authorization": map[string]any{"permit2Authorization": map[string]any{
		"from": cb.cfg.Payer.Hex(), "permitted": map[string]any{"token": devnet.TokenAddress.Hex(), "amount": fmt.Sprint(amount)},
		"spender": batch.Permit2CollectorAddress.Hex(), "nonce": fmt.Sprint(nonce), "deadline": d.Deadline.String(),
		"witness": map[string]any{"channelId": cb.id.Hex()}, "signature": hexutil.Encode(sig)}}}
	return p
}

// TestChannelPermit2Deposit: a batch-settlement route with asset_transfer
// permit2 states assetTransferMethod permit2; a buyer who has not approved
// Permit2 is refused with the published reason; once approved, the
// deposit by Permit2 opens the channel (the buyer's tokens move into the
// escrow once, a resent deposit moves nothing more), vouchers are served
// as on any channel and the claim round pays the seller what was served.
func TestChannelPermit2Deposit(t *testing.T) {
	tester := testutil.NewTester(t, testutil.GlobalBlock("")+fmt.Sprintf(channelPermit2Caddyfile, testutil.SitePort, channelPermit2PayTo))
	u := testutil.SiteURL + "/paid"
	get := func(cb *channelBuyer, payload any) (int, string, x402.ReferenceSettleResponse) {
		t.Helper()
		resp, b := testutil.Get(t, tester, u, map[string]string{x402.HeaderPaymentSignature: cb.header(t, payload)})
		var rs x402.ReferenceSettleResponse
		_ = x402.DecodeBase64JSON(resp.Header.Get(x402.HeaderPaymentResponseV2), &rs)
		return resp.StatusCode, string(b), rs
	}

	// A buyer who never approved Permit2 (a fresh key).
	fresh, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	nb := newChannelBuyer(t, tester, hexutil.Encode(crypto.FromECDSA(fresh))[2:], u, time.Now().UnixNano())
	if nb.acc.Extra["assetTransferMethod"] != "permit2" {
		t.Fatalf("accepts[0].extra = %v, want assetTransferMethod permit2", nb.acc.Extra)
	}
	if st, b, _ := get(nb, nb.permit2Deposit(t, 5000, 1000, 1)); st != 402 || !strings.Contains(b, "invalid_batch_settlement_evm_permit2_allowance_required") {
		t.Fatalf("deposit without an allowance to Permit2: %d %s", st, b)
	}

	key := testutil.BuyerKey(t, devnet.Buyer4PrivateKey)
	approvePermit2(t, key)
	cb := newChannelBuyer(t, tester, devnet.Buyer4PrivateKey, u, time.Now().UnixNano())
	// An ERC-3009 deposit on a Permit2 route: refused as the published
	// facilitator does.
	if st, b, _ := get(cb, cb.deposit(t, 5000, 1000)); st != 402 || !strings.Contains(b, "invalid_batch_settlement_evm_payload_type") {
		t.Fatalf("ERC-3009 deposit on a Permit2 route: %d %s", st, b)
	}
	buyer := crypto.PubkeyToAddress(key.PublicKey).Hex()
	buyerBefore, sellerBefore := testutil.Balance(t, buyer), testutil.Balance(t, channelPermit2PayTo)
	nonce := time.Now().UnixNano()
	dep := cb.permit2Deposit(t, 5000, 1000, nonce)
	st, b, rs := get(cb, dep)
	if st != 200 || b != "paid content" || !rs.Success || rs.Transaction == "" {
		t.Fatalf("deposit by Permit2: %d %s %+v", st, b, rs)
	}
	testutil.AssertDelta(t, "buyer after the deposit", buyerBefore, testutil.Balance(t, buyer), -5000)
	// The same deposit again pays nothing more.
	if st, b, _ := get(cb, dep); st == 200 {
		t.Fatalf("the same deposit again: %d %s", st, b)
	}
	// A deposit of the same Permit2 nonce with a voucher from the charged
	// amount: the nonce is used, refused.
	if st, b, _ := get(cb, cb.permit2Deposit(t, 5000, 2000, nonce)); st == 200 {
		t.Fatalf("a deposit of a used nonce: %d %s", st, b)
	}
	testutil.AssertDelta(t, "buyer after the resends", buyerBefore, testutil.Balance(t, buyer), -5000)
	for i := int64(2); i <= 3; i++ {
		if st, b, rs := get(cb, cb.voucher(t, cb.key, 1000*i)); st != 200 || rs.Transaction != "" {
			t.Fatalf("voucher %d: %d %s %+v", i, st, b, rs)
		}
	}
	deadline := time.Now().Add(30 * time.Second)
	for testutil.Balance(t, channelPermit2PayTo).Cmp(new(big.Int).Add(sellerBefore, big.NewInt(3000))) != 0 && time.Now().Before(deadline) {
		time.Sleep(200 * time.Millisecond)
	}
	testutil.AssertDelta(t, "seller after the claim round", sellerBefore, testutil.Balance(t, channelPermit2PayTo), 3000)
	testutil.AssertDelta(t, "buyer at the end", buyerBefore, testutil.Balance(t, buyer), -5000)
}
