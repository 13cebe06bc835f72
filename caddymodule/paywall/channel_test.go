package paywall

import (
	"crypto/ecdsa"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2/caddytest"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/caddy-x402/caddy-x402/caddymodule/internal/testutil"
	"github.com/caddy-x402/caddy-x402/facilitator/batchsettlement/batch"
	"github.com/caddy-x402/caddy-x402/facilitator/devnet"
	"github.com/caddy-x402/caddy-x402/facilitator/evm"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// channelPayTo is the seller of the channel tests, paid by no other test.
const channelPayTo = "0x0000000000000000000000000000000000c4A026"

const channelCaddyfile = `
:%[1]d {
	handle /paid {
		x402 {
			pay_to %[2]s
			amount 1000
			scheme batch-settlement
			claim_every 1s
		}
		respond "paid content"
	}
	handle /limited {
		x402 {
			pay_to %[2]s
			amount 1000
			scheme batch-settlement
			attempt_limit 2 1m
		}
		respond "paid content"
	}
}
`

// channelBuyer signs a devnet buyer's channel payloads, as the published
// client does.
type channelBuyer struct {
	key  *ecdsa.PrivateKey
	cfg  batch.ChannelConfig
	id   common.Hash
	acc  x402.RequirementsV2
	salt *big.Int
}

// newChannelBuyer reads the route's 402 and makes the buyer's channel
// config from it.
func newChannelBuyer(t testing.TB, tester *caddytest.Tester, keyHex, u string, salt int64) *channelBuyer {
	t.Helper()
	resp, err := tester.Client.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusPaymentRequired {
		t.Fatalf("unpaid: %d %s", resp.StatusCode, b)
	}
	var pr x402.PaymentRequiredV2
	if err := x402.DecodeBase64JSON(resp.Header.Get(x402.HeaderPaymentRequired), &pr); err != nil || len(pr.Accepts) != 1 {
		t.Fatalf("PAYMENT-REQUIRED: %v %+v", err, pr)
	}
	key := testutil.BuyerKey(t, keyHex)
	acc := pr.Accepts[0]
	ra, _ := acc.Extra["receiverAuthorizer"].(string)
	cb := &channelBuyer{key: key, acc: acc, salt: big.NewInt(salt)}
	payer := crypto.PubkeyToAddress(key.PublicKey)
	cb.cfg = batch.ChannelConfig{Payer: payer, PayerAuthorizer: payer, Receiver: common.HexToAddress(acc.PayTo),
		ReceiverAuthorizer: common.HexToAddress(ra), Token: common.HexToAddress(acc.Asset), WithdrawDelay: DefaultWithdrawDelay,
		Salt: common.BigToHash(big.NewInt(salt))}
	id, err := cb.cfg.ID(big.NewInt(devnet.ChainID))
	if err != nil {
		t.Fatal(err)
	}
	cb.id = id
	return cb
}

// header is the PAYMENT-SIGNATURE of a payload.
func (cb *channelBuyer) header(t testing.TB, payload any) string {
	t.Helper()
	raw, _ := json.Marshal(payload)
	h, err := x402.EncodeBase64JSON(x402.PaymentPayloadV2{X402Version: 2, Accepted: cb.acc, Payload: raw})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// voucher is a voucher payload for max, signed by key.
func (cb *channelBuyer) voucher(t testing.TB, key *ecdsa.PrivateKey, max int64) map[string]any {
	t.Helper()
	sig, err := batch.SignVoucher(key, big.NewInt(devnet.ChainID), cb.id, big.NewInt(max))
	if err != nil {
		t.Fatal(err)
	}
	return map[string]any{"type": "voucher", "channelConfig": cb.cfg,
		"voucher": map[string]any{"channelId": cb.id.Hex(), "maxClaimableAmount": fmt.Sprint(max), "signature": hexutil.Encode(sig)}}
}

// deposit is a deposit payload of amount with a voucher for max.
func (cb *channelBuyer) deposit(t testing.TB, amount, max int64) map[string]any {
	t.Helper()
	p := cb.voucher(t, cb.key, max)
	p["type"] = "deposit"
	d := batch.ERC3009Deposit{From: cb.cfg.Payer, Value: big.NewInt(amount), ValidAfter: big.NewInt(0),
		ValidBefore: big.NewInt(time.Now().Add(time.Hour).Unix()), Salt: cb.salt, ChannelID: cb.id}
	dom := evm.Domain{Name: devnet.TokenName, Version: devnet.TokenVersion, ChainID: big.NewInt(devnet.ChainID), VerifyingContract: devnet.TokenAddress}
	sig, err := batch.SignERC3009Deposit(cb.key, dom, d)
	if err != nil {
		t.Fatal(err)
	}
	p["deposit"] = map[string]any{"amount": fmt.Sprint(amount), "authorization": map[string]any{"erc3009Authorization": map[string]any{
		"validAfter": "0", "validBefore": d.ValidBefore.String(), "salt": common.BigToHash(cb.salt).Hex(), "signature": hexutil.Encode(sig)}}}
	return p
}

// TestChannelPaywall: a deposit opens the channel and is charged the
// price, vouchers are served from the store, each refusal has its reason
// and charges nothing, and the claim round pays the seller exactly what
// was served.
func TestChannelPaywall(t *testing.T) {
	tester := testutil.NewTester(t, testutil.GlobalBlock("")+fmt.Sprintf(channelCaddyfile, testutil.SitePort, channelPayTo))
	u := testutil.SiteURL + "/paid"
	cb := newChannelBuyer(t, tester, devnet.Buyer1PrivateKey, u, time.Now().UnixNano())
	if cb.acc.Scheme != SchemeChannel || cb.acc.Amount != "1000" || cb.acc.Extra["withdrawDelay"] != float64(DefaultWithdrawDelay) ||
		cb.acc.Extra["assetTransferMethod"] != "eip3009" || cb.acc.Extra["name"] != devnet.TokenName || cb.acc.Extra["version"] != devnet.TokenVersion ||
		cb.acc.Extra["receiverAuthorizer"] != crypto.PubkeyToAddress(testutil.BuyerKey(t, devnet.SignerPrivateKey).PublicKey).Hex() {
		b, _ := json.Marshal(cb.acc)
		t.Fatalf("accepts[0] = %s", b)
	}
	sellerBefore := testutil.Balance(t, channelPayTo)
	get := func(payload any) (int, string, x402.ReferenceSettleResponse, x402.PaymentRequiredV2) {
		t.Helper()
		resp, b := testutil.Get(t, tester, u, map[string]string{x402.HeaderPaymentSignature: cb.header(t, payload)})
		var rs x402.ReferenceSettleResponse
		var pr x402.PaymentRequiredV2
		_ = x402.DecodeBase64JSON(resp.Header.Get(x402.HeaderPaymentResponseV2), &rs)
		_ = x402.DecodeBase64JSON(resp.Header.Get(x402.HeaderPaymentRequired), &pr)
		return resp.StatusCode, string(b), rs, pr
	}
	charged := func(rs x402.ReferenceSettleResponse) string {
		cs, _ := rs.Extra["channelState"].(map[string]any)
		s, _ := cs["chargedCumulativeAmount"].(string)
		return s
	}

	// A voucher before any deposit: the chain knows no such channel.
	if st, b, _, _ := get(cb.voucher(t, cb.key, 1000)); st != 402 || !strings.Contains(b, "invalid_batch_settlement_evm_channel_not_found") {
		t.Fatalf("voucher before the deposit: %d %s", st, b)
	}
	// A deposit whose voucher is not price above the channel's charged;
	// the store holds no voucher of it: no voucherState (the published
	// client would throw on an empty signature), it reads the chain.
	if st, _, _, pr := get(cb.deposit(t, 10000, 2000)); st != 402 || pr.Error != reasonCumulativeMismatch || len(pr.Accepts) != 1 ||
		pr.Accepts[0].Extra["voucherState"] != nil || fmt.Sprint(pr.Accepts[0].Extra["channelState"]) == "<nil>" {
		t.Fatalf("deposit with a voucher of 2000: %d %+v", st, pr)
	}
	st, b, rs, _ := get(cb.deposit(t, 10000, 1000))
	if st != 200 || b != "paid content" || !rs.Success || rs.Transaction == "" || charged(rs) != "1000" || rs.Extra["chargedAmount"] != "1000" {
		t.Fatalf("deposit: %d %s %+v", st, b, rs)
	}
	other := testutil.BuyerKey(t, devnet.Buyer2PrivateKey)
	for _, tc := range []struct {
		name    string
		payload map[string]any
		reason  string
	}{
		{"voucher signed by another key", cb.voucher(t, other, 2000), reasonVoucherSignature},
		// The published order: a cumulative mismatch before the signature.
		{"voucher sent again, signed by another key", cb.voucher(t, other, 1000), reasonCumulativeMismatch},
		{"voucher sent again", cb.voucher(t, cb.key, 1000), reasonCumulativeMismatch},
		{"voucher skipping a price", cb.voucher(t, cb.key, 3000), reasonCumulativeMismatch},
		{"unknown payload type", map[string]any{"type": "claim"}, reasonPayloadType},
		{"another receiver", func() map[string]any {
			p := cb.voucher(t, cb.key, 2000)
			c := cb.cfg
			c.Receiver = common.HexToAddress("0x1")
			p["channelConfig"] = c
			return p
		}(), reasonReceiverMismatch},
		{"another withdraw delay", func() map[string]any {
			p := cb.voucher(t, cb.key, 2000)
			c := cb.cfg
			c.WithdrawDelay = 3600
			p["channelConfig"] = c
			return p
		}(), reasonDelayMismatch},
		{"a config that is not the channel's", func() map[string]any {
			p := cb.voucher(t, cb.key, 2000)
			c := cb.cfg
			c.Salt = common.Hash{1}
			p["channelConfig"] = c
			return p
		}(), reasonChannelIDMismatch},
	} {
		st, b, _, pr := get(tc.payload)
		if st != 402 || (pr.Error != tc.reason && !strings.Contains(b, tc.reason)) {
			t.Errorf("%s: %d %s %s, want 402 %s", tc.name, st, pr.Error, b, tc.reason)
		}
		if tc.reason == reasonCumulativeMismatch {
			ex := pr.Accepts[0].Extra
			cs, _ := ex["channelState"].(map[string]any)
			vs, _ := ex["voucherState"].(map[string]any)
			// The payer's last voucher is disclosed to the payer only
			// (a voucher signed by its key), never to another signer.
			wantVS := "1000"
			if strings.Contains(tc.name, "another key") {
				wantVS = "<nil>"
			}
			if cs["chargedCumulativeAmount"] != "1000" || cs["balance"] != "10000" || fmt.Sprint(vs["signedMaxClaimable"]) != wantVS ||
				(wantVS == "<nil>" && ex["voucherState"] != nil) {
				t.Errorf("%s: corrective extra %+v", tc.name, ex)
			}
		}
	}
	for i := int64(2); i <= 10; i++ {
		st, b, rs, _ := get(cb.voucher(t, cb.key, 1000*i))
		if st != 200 || rs.Transaction != "" || charged(rs) != fmt.Sprint(1000*i) {
			t.Fatalf("voucher %d: %d %s %+v", i, st, b, rs)
		}
	}
	// The balance is spent: the next voucher is refused.
	if st, b, _, _ := get(cb.voucher(t, cb.key, 11000)); st != 402 || !strings.Contains(b, reasonExceedsBalance) {
		t.Fatalf("voucher beyond the balance: %d %s", st, b)
	}
	deadline := time.Now().Add(30 * time.Second)
	for testutil.Balance(t, channelPayTo).Cmp(new(big.Int).Add(sellerBefore, big.NewInt(10000))) != 0 && time.Now().Before(deadline) {
		time.Sleep(200 * time.Millisecond)
	}
	testutil.AssertDelta(t, "seller after the claim round", sellerBefore, testutil.Balance(t, channelPayTo), 10000)
	// The gauges are read at the end of the round that paid the seller.
	net := map[string]string{"network": "cronos-testnet"}
	samples := testutil.Scrape(t)
	for v, _ := testutil.Sample(samples, "x402_channels_claimed_smallest_units", net); v < 10000 && time.Now().Before(deadline); v, _ = testutil.Sample(samples, "x402_channels_claimed_smallest_units", net) {
		time.Sleep(100 * time.Millisecond)
		samples = testutil.Scrape(t)
	}
	if v, _ := testutil.Sample(samples, "x402_channel_claim_transactions_total", map[string]string{"network": "cronos-testnet", "outcome": "claimed"}); v < 1 {
		t.Errorf("claim transactions: %v", v)
	}
	if v, ok := testutil.Sample(samples, "x402_channel_claiming", map[string]string{"network": "cronos-testnet", "pay_to": common.HexToAddress(channelPayTo).Hex()}); !ok || v != 1 {
		t.Errorf("claiming role: %v %v", v, ok)
	}
	if v, ok := testutil.Sample(samples, "x402_channels_claimed_smallest_units", net); !ok || v < 10000 {
		t.Errorf("claimed: %v %v", v, ok)
	}
	if v, ok := testutil.Sample(samples, "x402_channels_open", net); !ok || v < 1 {
		t.Errorf("open channels: %v %v", v, ok)
	}
}

// TestChannelConfigRefused: settings that do not go with a channel route
// are refused at load, saying why.
func TestChannelConfigRefused(t *testing.T) {
	for _, tc := range []struct{ opts, want string }{
		{"scheme batch-settlement\n\t\tsettle after", "settle after does not go with scheme batch-settlement"},
		{"scheme batch-settlement\n\t\tclaim_every soon", "want a positive duration, such as 1m"},
		{"claim_every 1m", "claim_every is for scheme batch-settlement"},
		{"scheme batch-settlement\n\t\tmeter json usage..tokens 2", "is not a dotted path"},
		{"scheme batch-settlement\n\t\tmeter json usage.tokens -1", "want a non-negative decimal number"},
		{"scheme batch-settlement\n\t\tfacilitator https://example.com", "needs the x402 app's embedded facilitator"},
		{"scheme channels", `\"batch-settlement\", got \"channels\"`},
	} {
		cfg := testutil.GlobalBlock("") + fmt.Sprintf(":%d {\n\tx402 {\n\t\tpay_to %s\n\t\tamount 1000\n\t\t%s\n\t}\n\trespond ok\n}\n", testutil.SitePort, channelPayTo, tc.opts)
		testutil.AssertLoadError(t, cfg, "caddyfile", tc.want)
	}
}

// TestChannelAttemptLimit: what makes the paywall ask the chain (a
// voucher of a channel the store does not hold, a deposit) counts
// against the client's attempt limit.
func TestChannelAttemptLimit(t *testing.T) {
	tester := testutil.NewTester(t, testutil.GlobalBlock("")+fmt.Sprintf(channelCaddyfile, testutil.SitePort, channelPayTo))
	u := testutil.SiteURL + "/limited"
	var got []int
	for i := int64(0); i < 3; i++ {
		cb := newChannelBuyer(t, tester, devnet.Buyer2PrivateKey, u, time.Now().UnixNano()+i)
		resp, _ := testutil.Get(t, tester, u, map[string]string{x402.HeaderPaymentSignature: cb.header(t, cb.voucher(t, cb.key, 1000))})
		got = append(got, resp.StatusCode)
	}
	if fmt.Sprint(got) != "[402 402 429]" {
		t.Errorf("statuses %v, want [402 402 429]", got)
	}
}
