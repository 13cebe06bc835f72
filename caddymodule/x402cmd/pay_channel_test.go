package x402cmd

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/caddy-x402/caddy-x402/facilitator/batchsettlement"
	"github.com/caddy-x402/caddy-x402/facilitator/batchsettlement/batch"
	"github.com/caddy-x402/caddy-x402/facilitator/evm"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// channelOffer is a batch-settlement offer of 1000 per request on chain 338.
var channelOffer = x402.RequirementsV2{Scheme: SchemeChannel, Network: "eip155:338", Amount: "1000",
	Asset: "0xc01efAaF7C5C61bEbFAeb358E1161b537b8bC0e0", PayTo: "0x5e11e5e11e5e11e5e11e5e11e5e11e5e11e5e11e", MaxTimeoutSeconds: 300,
	Extra: map[string]any{"receiverAuthorizer": "0x00000000000000000000000000000000000000A1", "withdrawDelay": 900, "name": "Bridged USDC (Stargate)", "version": "1", "assetTransferMethod": "eip3009"}}

// channelSeller is a fake batch-settlement seller: the offer without a
// payment, then answer(n, payload) for the n-th payment.
func channelSeller(t *testing.T, answer func(n int, pl map[string]any, w http.ResponseWriter)) *httptest.Server {
	t.Helper()
	n := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := r.Header.Get(x402.HeaderPaymentSignature)
		if h == "" {
			pr, _ := x402.EncodeBase64JSON(x402.PaymentRequiredV2{X402Version: 2, Accepts: []x402.RequirementsV2{channelOffer}})
			w.Header().Set(x402.HeaderPaymentRequired, pr)
			w.WriteHeader(http.StatusPaymentRequired)
			return
		}
		var p x402.PaymentPayloadV2
		var pl map[string]any
		if err := x402.DecodeBase64JSON(h, &p); err != nil || json.Unmarshal(p.Payload, &pl) != nil {
			t.Errorf("PAYMENT-SIGNATURE: %v", err)
			return
		}
		n++
		answer(n, pl, w)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// corrective writes a corrective 402 with the given channel and voucher state.
func corrective(w http.ResponseWriter, cs, vs map[string]any) {
	acc := channelOffer
	acc.Extra = map[string]any{}
	for k, v := range channelOffer.Extra {
		acc.Extra[k] = v
	}
	acc.Extra["channelState"], acc.Extra["voucherState"] = cs, vs
	pr, _ := x402.EncodeBase64JSON(x402.PaymentRequiredV2{X402Version: 2, Error: batchsettlement.ErrCumulativeMismatch, Accepts: []x402.RequirementsV2{acc}})
	w.Header().Set(x402.HeaderPaymentRequired, pr)
	w.WriteHeader(http.StatusPaymentRequired)
}

// charge writes a paid answer charging 1000 to cumulative.
func charge(w http.ResponseWriter, chargedAmount, cumulative string) {
	sr, _ := x402.EncodeBase64JSON(x402.ReferenceSettleResponse{Success: true, Network: "eip155:338",
		Extra: map[string]any{"chargedAmount": chargedAmount, "channelState": map[string]any{"chargedCumulativeAmount": cumulative}}})
	w.Header().Set(x402.HeaderPaymentResponseV2, sr)
	w.Write([]byte("paid"))
}

// TestPayChannelResync: what a corrective 402 may make the buyer sign.
// The seller's charged amount is taken only when a voucher signed by the
// buyer at least as high backs it; otherwise nothing more is signed, and
// the record is not touched. A resynchronised payment is retried once.
func TestPayChannelResync(t *testing.T) {
	key, _ := evm.ParseKey(testBuyerKey)
	other, _ := crypto.GenerateKey()
	payer := crypto.PubkeyToAddress(key.PublicKey)
	cfg := batch.ChannelConfig{Payer: payer, PayerAuthorizer: payer, Receiver: common.HexToAddress(channelOffer.PayTo),
		ReceiverAuthorizer: common.HexToAddress("0xA1"), Token: common.HexToAddress(channelOffer.Asset), WithdrawDelay: 900}
	id, _ := cfg.ID(big.NewInt(338))
	voucher := func(k *ecdsa.PrivateKey, max int64) string {
		sig, err := batch.SignVoucher(k, big.NewInt(338), id, big.NewInt(max))
		if err != nil {
			t.Fatal(err)
		}
		return hexutil.Encode(sig)
	}
	cs := func(charged string) map[string]any {
		return map[string]any{"channelId": id.Hex(), "balance": "5000", "chargedCumulativeAmount": charged}
	}
	for _, tc := range []struct {
		name     string
		answer   func(n int, pl map[string]any, w http.ResponseWriter)
		wantErr  string
		payments int
		charged  string // the record's after the run; "" none written
	}{
		{"charged above the seller's voucher", func(n int, pl map[string]any, w http.ResponseWriter) {
			corrective(w, cs("5000"), map[string]any{"signedMaxClaimable": "4000", "signature": voucher(key, 4000)})
		}, "the seller says charged 5000 above its voucher of 4000: not trusted", 1, ""},
		{"a voucher signed by another key", func(n int, pl map[string]any, w http.ResponseWriter) {
			corrective(w, cs("4000"), map[string]any{"signedMaxClaimable": "4000", "signature": voucher(other, 4000)})
		}, "is not signed by " + payer.Hex(), 1, ""},
		{"no voucher and no --rpc", func(n int, pl map[string]any, w http.ResponseWriter) {
			corrective(w, cs("3000"), map[string]any{"signedMaxClaimable": "3000", "signature": "0x"})
		}, "shows no voucher of ours for it: give --rpc URL", 1, ""},
		{"another channel's state", func(n int, pl map[string]any, w http.ResponseWriter) {
			s := cs("3000")
			s["channelId"] = common.Hash{1}.Hex()
			corrective(w, s, map[string]any{"signedMaxClaimable": "3000", "signature": voucher(key, 3000)})
		}, "not ours", 1, ""},
		{"backed by our voucher: resynchronised, paid once", func(n int, pl map[string]any, w http.ResponseWriter) {
			if n == 1 {
				corrective(w, cs("3000"), map[string]any{"signedMaxClaimable": "3000", "signature": voucher(key, 3000)})
				return
			}
			v := pl["voucher"].(map[string]any)
			if pl["type"] != "voucher" || v["maxClaimableAmount"] != "4000" {
				t.Errorf("retry: %v", pl)
			}
			charge(w, "1000", "4000")
		}, "", 2, "4000"},
		{"a second corrective: not retried again", func(n int, pl map[string]any, w http.ResponseWriter) {
			corrective(w, cs("3000"), map[string]any{"signedMaxClaimable": "3000", "signature": voucher(key, 3000)})
		}, "payment refused: " + batchsettlement.ErrCumulativeMismatch, 2, "3000"},
		{"chargedAmount above the price", func(n int, pl map[string]any, w http.ResponseWriter) {
			charge(w, "2000", "2000")
		}, "", 1, "0"},
		{"a cumulative that disagrees", func(n int, pl map[string]any, w http.ResponseWriter) {
			charge(w, "1000", "7000")
		}, "", 1, "0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			payments := 0
			srv := channelSeller(t, func(n int, pl map[string]any, w http.ResponseWriter) { payments = n; tc.answer(n, pl, w) })
			dir := t.TempDir()
			var stdout, stderr bytes.Buffer
			err := RunPay(context.Background(), srv.URL, PayOptions{Key: testBuyerKey, Timeout: 10 * time.Second, Channels: dir}, &stdout, &stderr)
			if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Fatalf("err = %v, want %q\n%s", err, tc.wantErr, stderr.String())
			}
			if payments != tc.payments {
				t.Errorf("%d payments, want %d", payments, tc.payments)
			}
			b, err := os.ReadFile(filepath.Join(dir, strings.ToLower(id.Hex())+".json"))
			var rec channelRecord
			_ = json.Unmarshal(b, &rec)
			if (tc.charged == "") != (err != nil) || rec.Charged != tc.charged {
				t.Errorf("record charged %q (%v), want %q", rec.Charged, err, tc.charged)
			}
		})
	}
}

// TestPayChannelOfferRefused: a batch-settlement offer the command cannot
// pay safely is refused before anything is signed, saying why.
func TestPayChannelOfferRefused(t *testing.T) {
	key, _ := evm.ParseKey(testBuyerKey)
	with := func(k string, v any) x402.RequirementsV2 {
		a := channelOffer
		a.Extra = map[string]any{}
		for k, v := range channelOffer.Extra {
			a.Extra[k] = v
		}
		if v == nil {
			delete(a.Extra, k)
		} else {
			a.Extra[k] = v
		}
		return a
	}
	flags, _ := parseChannelFlags(PayOptions{Channels: t.TempDir()}, big.NewInt(1000000))
	for _, tc := range []struct {
		name string
		acc  x402.RequirementsV2
		o    PayOptions
		want string
	}{
		{"no receiver authorizer", with("receiverAuthorizer", nil), PayOptions{}, "names no receiverAuthorizer"},
		{"a zero receiver authorizer", with("receiverAuthorizer", "0x0000000000000000000000000000000000000000"), PayOptions{}, "names no receiverAuthorizer"},
		{"withdraw delay below the contract's", with("withdrawDelay", float64(60)), PayOptions{}, "withdrawDelay 60 is not a whole number of seconds from 900 to 2592000"},
		{"withdraw delay not whole", with("withdrawDelay", 900.5), PayOptions{}, "withdrawDelay 900.5"},
		{"another deposit method", with("assetTransferMethod", "lightning"), PayOptions{}, "takes channel deposits by lightning; this buyer deposits by eip3009 or permit2 only"},
		{"a smart wallet", channelOffer, PayOptions{SmartWallet: "devnet"}, "which --smart-wallet does not pay here"},
		{"no token domain", with("name", nil), PayOptions{}, "lacks the token's EIP-712 name and version"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.o.chans = flags
			if err := tc.o.walletOptions(key); err != nil {
				t.Fatal(err)
			}
			var stderr bytes.Buffer
			c, err := newChanPay("http://x/y", key, tc.acc, nil, big.NewInt(1000), tc.o, &stderr)
			if err == nil {
				c.Charged, c.Balance = new(big.Int), new(big.Int)
				_, _, _, err = c.payment()
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
		})
	}
}
