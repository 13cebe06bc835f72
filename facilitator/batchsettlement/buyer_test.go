package batchsettlement_test

import (
	"encoding/json"
	"errors"
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/caddy-x402/caddy-x402/facilitator/batchsettlement"
	"github.com/caddy-x402/caddy-x402/facilitator/batchsettlement/batch"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// offer is a batch-settlement offer of 1000 per request on chain 338.
var offer = x402.RequirementsV2{Scheme: x402.SchemeBatchSettlement, Network: "eip155:338", Amount: "1000",
	Asset: "0xc01efAaF7C5C61bEbFAeb358E1161b537b8bC0e0", PayTo: "0x5e11e5e11e5e11e5e11e5e11e5e11e5e11e5e11e", MaxTimeoutSeconds: 300,
	Extra: map[string]any{"receiverAuthorizer": "0x00000000000000000000000000000000000000A1", "withdrawDelay": float64(900),
		"name": "Bridged USDC (Stargate)", "version": "1", "assetTransferMethod": "eip3009"}}

// with is offer with extra[k] set to v (deleted when v is nil).
func with(k string, v any) x402.RequirementsV2 {
	a := offer
	a.Extra = map[string]any{}
	for k, v := range offer.Extra {
		a.Extra[k] = v
	}
	if v == nil {
		delete(a.Extra, k)
	} else {
		a.Extra[k] = v
	}
	return a
}

// channel is a buyer's channel on offer with the given charged and
// balance, and its key.
func channel(t *testing.T, acc x402.RequirementsV2, charged, balance int64) *batchsettlement.Channel {
	t.Helper()
	key, err := crypto.HexToECDSA("087e13a36a752a4b4ba7494f24e1e3c9a17bfb2c82d0c65928855c87cee45bb4")
	if err != nil {
		t.Fatal(err)
	}
	c, err := batchsettlement.NewChannel(key, acc, nil, common.Hash{})
	if err != nil {
		t.Fatal(err)
	}
	c.Charged, c.Balance = big.NewInt(charged), big.NewInt(balance)
	return c
}

// payload decodes a PAYMENT-SIGNATURE header's payload.
func payload(t *testing.T, header string) map[string]any {
	t.Helper()
	var p x402.PaymentPayloadV2
	var pl map[string]any
	if err := x402.DecodeBase64JSON(header, &p); err != nil || json.Unmarshal(p.Payload, &pl) != nil {
		t.Fatalf("header %q: %v", header, err)
	}
	return pl
}

// TestNewChannelRefuses: an offer the buyer cannot pay safely is refused,
// saying why; a good one gives the channel the chain computes.
func TestNewChannelRefuses(t *testing.T) {
	key, _ := crypto.GenerateKey()
	bad := offer
	bad.Network = "solana:mainnet"
	for _, tc := range []struct {
		name string
		acc  x402.RequirementsV2
		want string
	}{
		{"not eip155", bad, "not an eip155 network"},
		{"no receiver authorizer", with("receiverAuthorizer", nil), "names no receiverAuthorizer"},
		{"a zero receiver authorizer", with("receiverAuthorizer", "0x0000000000000000000000000000000000000000"), "names no receiverAuthorizer"},
		{"withdraw delay below the contract's", with("withdrawDelay", float64(60)), "withdrawDelay 60 is not a whole number of seconds from 900 to 2592000"},
		{"withdraw delay not whole", with("withdrawDelay", 900.5), "withdrawDelay 900.5"},
		{"another deposit method", with("assetTransferMethod", "lightning"), "the seller takes channel deposits by lightning; this buyer deposits by eip3009 or permit2 only"},
		{"a good offer", offer, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := batchsettlement.NewChannel(key, tc.acc, nil, common.Hash{})
			if tc.want != "" {
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("err = %v, want %q", err, tc.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			id, _ := c.Config.ID(big.NewInt(338))
			if c.ID != id || c.Config.Payer != crypto.PubkeyToAddress(key.PublicKey) || c.Config.WithdrawDelay != 900 || c.Charged.Sign() != 0 || c.Balance.Sign() != 0 {
				t.Errorf("channel %+v", c)
			}
		})
	}
}

// TestChannelDepositFor: the deposit for a voucher is the preferred amount,
// else the seller's minDeposit when at least the price, else 5 x price,
// and never less than what the voucher lacks.
func TestChannelDepositFor(t *testing.T) {
	for _, tc := range []struct {
		name         string
		acc          x402.RequirementsV2
		balance, max int64
		preferred    *big.Int
		want         int64
	}{
		{"default multiplier", offer, 0, 1000, nil, 5000},
		{"the seller's minDeposit", with("minDeposit", "7000"), 0, 1000, nil, 7000},
		{"a minDeposit below the price is ignored", with("minDeposit", "10"), 0, 1000, nil, 5000},
		{"preferred over minDeposit", with("minDeposit", "7000"), 0, 1000, big.NewInt(3000), 3000},
		{"never less than the voucher lacks", offer, 1000, 9000, big.NewInt(2000), 8000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := channel(t, tc.acc, 0, tc.balance)
			if got := c.DepositFor(big.NewInt(tc.max), big.NewInt(1000), tc.preferred); got.Int64() != tc.want {
				t.Errorf("DepositFor = %s, want %d", got, tc.want)
			}
		})
	}
}

// TestChannelPay: a payment is a voucher for the cumulative amount signed
// by the payer, with a deposit when given, and becomes the last voucher.
func TestChannelPay(t *testing.T) {
	for _, tc := range []struct {
		name    string
		balance int64
		deposit bool
		typ     string
	}{
		{"a voucher", 5000, false, "voucher"},
		{"a deposit", 0, true, "deposit"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := channel(t, offer, 2000, tc.balance)
			max := big.NewInt(3000)
			if c.NeedsDeposit(max) != tc.deposit {
				t.Fatalf("NeedsDeposit = %v", !tc.deposit)
			}
			var d map[string]any
			if tc.deposit {
				var err error
				if d, err = c.SignDeposit(c.DepositFor(max, big.NewInt(1000), nil)); err != nil {
					t.Fatal(err)
				}
			}
			h, err := c.Pay(max, d)
			if err != nil {
				t.Fatal(err)
			}
			pl := payload(t, h)
			v, _ := pl["voucher"].(map[string]any)
			sig, _ := hexutil.Decode(v["signature"].(string))
			got, err := batch.RecoverVoucherSigner(c.ChainID, c.ID, max, sig)
			if pl["type"] != tc.typ || v["maxClaimableAmount"] != "3000" || err != nil || got != c.Config.PayerAuthorizer {
				t.Errorf("payload %v: signer %s (%v)", pl, got.Hex(), err)
			}
			if dep, _ := pl["deposit"].(map[string]any); (dep != nil) != tc.deposit || (dep != nil && dep["amount"] != "5000") {
				t.Errorf("deposit %v", pl["deposit"])
			}
			if c.SignedMax.Cmp(max) != 0 || !strings.EqualFold(hexutil.Encode(c.Signature), v["signature"].(string)) {
				t.Errorf("last voucher %s %x", c.SignedMax, c.Signature)
			}
		})
	}
	if _, err := channel(t, with("name", nil), 0, 0).SignDeposit(big.NewInt(5000)); !errors.Is(err, batchsettlement.ErrNoTokenDomain) {
		t.Errorf("a deposit without the token's domain: %v", err)
	}
}

// TestChannelSettled: a paid answer adds the deposit to the balance and
// the charge to charged, only when the seller's cumulative agrees.
func TestChannelSettled(t *testing.T) {
	for _, tc := range []struct {
		name                     string
		sr                       x402.ReferenceSettleResponse
		deposit                  *big.Int
		wantCharged, wantErr     bool
		amount, charged, balance int64
	}{
		{"a charge", x402.ReferenceSettleResponse{Success: true, Extra: map[string]any{"chargedAmount": "1000", "channelState": map[string]any{"chargedCumulativeAmount": "3000"}}},
			nil, true, false, 1000, 3000, 5000},
		{"a charge with a deposit", x402.ReferenceSettleResponse{Success: true, Extra: map[string]any{"chargedAmount": "1000"}},
			big.NewInt(4000), true, false, 1000, 3000, 9000},
		{"a failure", x402.ReferenceSettleResponse{Success: false}, big.NewInt(4000), false, false, 0, 2000, 5000},
		{"more than the price", x402.ReferenceSettleResponse{Success: true, Extra: map[string]any{"chargedAmount": "1001"}},
			nil, false, true, 0, 2000, 5000},
		{"a cumulative that disagrees", x402.ReferenceSettleResponse{Success: true, Extra: map[string]any{"chargedAmount": "1000", "channelState": map[string]any{"chargedCumulativeAmount": "9000"}}},
			nil, true, true, 1000, 2000, 5000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := channel(t, offer, 2000, 5000)
			got, err := c.Settled(&tc.sr, tc.deposit, big.NewInt(1000))
			if (got != nil) != tc.wantCharged || (got != nil && got.Int64() != tc.amount) || (err != nil) != tc.wantErr {
				t.Errorf("Settled = %v, %v", got, err)
			}
			if c.Charged.Int64() != tc.charged || c.Balance.Int64() != tc.balance {
				t.Errorf("charged %s balance %s, want %d %d", c.Charged, c.Balance, tc.charged, tc.balance)
			}
		})
	}
}

// TestChannelRefund: a refund carries a voucher of the charged amount and
// the amount asked; its answer lowers the balance.
func TestChannelRefund(t *testing.T) {
	c := channel(t, offer, 2000, 5000)
	h, err := c.Refund(big.NewInt(1000))
	if err != nil {
		t.Fatal(err)
	}
	pl := payload(t, h)
	if v, _ := pl["voucher"].(map[string]any); pl["type"] != "refund" || pl["amount"] != "1000" || v["maxClaimableAmount"] != "2000" {
		t.Errorf("refund payload %v", pl)
	}
	for _, tc := range []struct {
		name string
		sr   x402.ReferenceSettleResponse
		want int64
	}{
		{"an amount", x402.ReferenceSettleResponse{Amount: "1000"}, 4000},
		{"the seller's balance", x402.ReferenceSettleResponse{Extra: map[string]any{"channelState": map[string]any{"balance": "2500"}}}, 2500},
		{"neither: all that was left", x402.ReferenceSettleResponse{}, 2000},
		{"an amount beyond the balance", x402.ReferenceSettleResponse{Amount: "9000"}, 2000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := channel(t, offer, 2000, 5000)
			c.Refunded(&tc.sr)
			if c.Balance.Int64() != tc.want {
				t.Errorf("balance %s, want %d", c.Balance, tc.want)
			}
		})
	}
}

// TestChannelResync: a corrective 402's charge is taken only when a
// voucher of ours backs it, or the chain says it.
func TestChannelResync(t *testing.T) {
	c0 := channel(t, offer, 0, 0)
	sign := func(key string, amount int64) string {
		k, _ := crypto.HexToECDSA(key)
		sig, _ := batch.SignVoucher(k, c0.ChainID, c0.ID, big.NewInt(amount))
		return hexutil.Encode(sig)
	}
	ours := sign("087e13a36a752a4b4ba7494f24e1e3c9a17bfb2c82d0c65928855c87cee45bb4", 3000)
	theirs := sign("2222222222222222222222222222222222222222222222222222222222222222", 3000)
	corrective := func(cs, vs map[string]any) *x402.PaymentRequiredV2 {
		acc := with("channelState", cs)
		if vs != nil {
			acc.Extra["voucherState"] = vs
		}
		return &x402.PaymentRequiredV2{Error: batchsettlement.ErrCumulativeMismatch, Accepts: []x402.RequirementsV2{acc}}
	}
	chain := func() (batch.ChannelState, error) {
		return batch.ChannelState{Balance: big.NewInt(8000), TotalClaimed: big.NewInt(1000)}, nil
	}
	for _, tc := range []struct {
		name             string
		pr               *x402.PaymentRequiredV2
		chain            func() (batch.ChannelState, error)
		want             string // an error's text, or "" for success
		kind             error
		charged, balance int64
	}{
		{"backed by our voucher", corrective(map[string]any{"chargedCumulativeAmount": "3000", "balance": "5000"}, map[string]any{"signedMaxClaimable": "3000", "signature": ours}),
			nil, "", nil, 3000, 5000},
		{"a voucher of another key", corrective(map[string]any{"chargedCumulativeAmount": "3000", "balance": "5000"}, map[string]any{"signedMaxClaimable": "3000", "signature": theirs}),
			nil, "is not signed by", nil, 0, 0},
		{"charged above the voucher", corrective(map[string]any{"chargedCumulativeAmount": "4000", "balance": "5000"}, map[string]any{"signedMaxClaimable": "3000", "signature": ours}),
			nil, "above its voucher", nil, 0, 0},
		{"no voucher, no chain", corrective(map[string]any{"chargedCumulativeAmount": "3000", "balance": "5000"}, nil),
			nil, "shows no voucher of ours for it", batchsettlement.ErrUnbackedCharge, 0, 0},
		{"no voucher: the chain's claimed", corrective(map[string]any{"chargedCumulativeAmount": "3000", "balance": "5000"}, nil),
			chain, "", nil, 1000, 8000},
		{"no balance, no chain", corrective(map[string]any{"chargedCumulativeAmount": "3000"}, map[string]any{"signedMaxClaimable": "3000", "signature": ours}),
			nil, "without the channel's balance", batchsettlement.ErrNoChannelBalance, 0, 0},
		{"another channel", corrective(map[string]any{"channelId": "0x" + strings.Repeat("ab", 32), "chargedCumulativeAmount": "0", "balance": "0"}, nil),
			nil, "not ours", nil, 0, 0},
		{"no batch-settlement offer", &x402.PaymentRequiredV2{Error: batchsettlement.ErrCumulativeMismatch},
			nil, "offers no batch-settlement", nil, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := channel(t, offer, 0, 0)
			err := c.Resync(tc.pr, tc.chain)
			if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
			if tc.kind != nil && !errors.Is(err, tc.kind) {
				t.Errorf("err %v is not %v", err, tc.kind)
			}
			if c.Charged.Int64() != tc.charged || c.Balance.Int64() != tc.balance {
				t.Errorf("charged %s balance %s, want %d %d", c.Charged, c.Balance, tc.charged, tc.balance)
			}
		})
	}
}
