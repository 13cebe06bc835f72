package paywall

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/caddy-x402/caddy-x402/facilitator/batchsettlement/batch"
	"github.com/caddy-x402/caddy-x402/facilitator/devnet"
	"github.com/caddy-x402/caddy-x402/facilitator/store"
	"github.com/caddy-x402/caddy-x402/facilitator/store/memory"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// voucherHeaderFor is a voucher's PAYMENT-SIGNATURE as the published
// client sends it, its payload edited by edit (a JSON text replacement).
func voucherHeaderFor(t testing.TB, max int64, edit func(string) string) string {
	t.Helper()
	key, _ := crypto.HexToECDSA(strings.TrimPrefix(devnet.Buyer1PrivateKey, "0x"))
	payer := crypto.PubkeyToAddress(key.PublicKey)
	cfg := batch.ChannelConfig{Payer: payer, PayerAuthorizer: payer, Receiver: common.HexToAddress(channelPayTo),
		ReceiverAuthorizer: common.HexToAddress("0x00000000000000000000000000000000000000Aa"), Token: devnet.TokenAddress,
		WithdrawDelay: DefaultWithdrawDelay, Salt: common.BigToHash(big.NewInt(7))}
	id, err := cfg.ID(big.NewInt(devnet.ChainID))
	if err != nil {
		t.Fatal(err)
	}
	sig, err := batch.SignVoucher(key, big.NewInt(devnet.ChainID), id, big.NewInt(max))
	if err != nil {
		t.Fatal(err)
	}
	pl, _ := json.Marshal(map[string]any{"type": "voucher", "channelConfig": cfg,
		"voucher": map[string]any{"channelId": id.Hex(), "maxClaimableAmount": fmt.Sprint(max), "signature": hexutil.Encode(sig)}})
	acc := x402.RequirementsV2{Scheme: SchemeChannel, Network: "eip155:338", Asset: devnet.TokenAddress.Hex(), Amount: "1000",
		PayTo: channelPayTo, MaxTimeoutSeconds: 300, Extra: map[string]any{"receiverAuthorizer": "0x00000000000000000000000000000000000000Aa", "withdrawDelay": 900}}
	raw, _ := json.Marshal(x402.PaymentPayloadV2{X402Version: 2, Accepted: acc, Payload: json.RawMessage(edit(string(pl)))})
	return base64.StdEncoding.EncodeToString(raw)
}

// TestDecodeVoucherHeader: the one-pass decoder of the voucher hot path
// reads what the general decoder reads, and leaves to it (false) every
// header it does not read the same way.
func TestDecodeVoucherHeader(t *testing.T) {
	general := func(header string) (*x402.Payment, channelPayload, bool) {
		p, err := x402.DecodePaymentHeader(header)
		if err != nil {
			return nil, channelPayload{}, false
		}
		raw, err := p.PayloadJSON()
		var pl channelPayload
		if err != nil || json.Unmarshal(raw, &pl) != nil {
			return nil, channelPayload{}, false
		}
		return p, pl, true
	}
	same := func(s string) string { return s }
	for _, tc := range []struct {
		name string
		edit func(string) string
		fast bool // the hot path reads it
	}{
		{"as published", same, true},
		{"addresses in lower case", func(s string) string {
			return regexp.MustCompile(`0x[0-9a-fA-F]+`).ReplaceAllStringFunc(s, strings.ToLower)
		}, true},
		{"spaces between tokens", func(s string) string {
			return strings.NewReplacer(`":`, `" : `, `,"`, " ,\n\t\"").Replace(s)
		}, true},
		{"an unknown field of any shape", func(s string) string {
			return strings.Replace(s, `{"channelConfig"`, `{"note":[1,-2.5e3,{"a":"\u00e9\n"},true,null],"channelConfig"`, 1)
		}, true},
		{"a key in another letter case", func(s string) string { return strings.Replace(s, `"payer":`, `"Payer":`, 1) }, false},
		{"a repeated key", func(s string) string {
			return strings.Replace(s, `"type":"voucher"`, `"type":"voucher","type":"voucher"`, 1)
		}, false},
		{"an escaped string", func(s string) string { return strings.Replace(s, `"type":"voucher"`, `"type":"vouche\u0072"`, 1) }, false},
		{"maxClaimableAmount as a number", func(s string) string {
			return strings.Replace(s, `"maxClaimableAmount":"3000"`, `"maxClaimableAmount":3000`, 1)
		}, false},
		{"withdrawDelay as a string", func(s string) string {
			return strings.Replace(s, `"withdrawDelay":900`, `"withdrawDelay":"900"`, 1)
		}, false},
		{"trailing garbage", func(s string) string { return s + "x" }, false},
		{"a deposit", func(s string) string { return strings.Replace(s, `"type":"voucher"`, `"type":"deposit"`, 1) }, false},
		{"an address without 0x", func(s string) string { return strings.Replace(s, `"payer":"0x`, `"payer":"`, 1) }, false},
		{"a short address", func(s string) string { return strings.Replace(s, `"payer":"0x`, `"payer":"0x0`, 1) }, false},
		{"a signature of odd length", func(s string) string { return strings.Replace(s, `"signature":"0x`, `"signature":"0x0`, 1) }, false},
		{"an address as a number", func(s string) string {
			i := strings.Index(s, `"token":"`)
			return s[:i] + `"token":5,"x":"` + s[i+len(`"token":"`):]
		}, false},
		{"a null payer", func(s string) string {
			i := strings.Index(s, `"payer":"`)
			return s[:i] + `"payer":null,"x":"` + s[i+len(`"payer":"`):]
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := voucherHeaderFor(t, 3000, tc.edit)
			var pl channelPayload
			p, ok := decodeVoucherHeader(h, &pl)
			if ok != tc.fast {
				t.Fatalf("hot path read it: %v, want %v", ok, tc.fast)
			}
			if !ok {
				return
			}
			gp, gpl, gok := general(h)
			if !gok {
				t.Fatal("the general decoder refuses what the hot path read")
			}
			if !reflect.DeepEqual(pl, gpl) {
				t.Errorf("payload\n%+v\nthe general decoder's\n%+v", pl, gpl)
			}
			if p.X402Version != gp.X402Version || p.Scheme != gp.Scheme || p.Network != gp.Network || p.Accepted.Asset != gp.Accepted.Asset {
				t.Errorf("payment %+v, the general decoder's %+v", p, gp)
			}
		})
	}
}

// BenchmarkDecodeVoucherHeader: the hot path's decode of a voucher header
// against the general decoder's (envelope, payload, channel payload).
//
//	go test ./caddymodule/paywall -run '^$' -bench DecodeVoucherHeader
func BenchmarkDecodeVoucherHeader(b *testing.B) {
	h := voucherHeaderFor(b, 3000, func(s string) string { return s })
	b.Run("hot", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			var pl channelPayload
			if _, ok := decodeVoucherHeader(h, &pl); !ok {
				b.Fatal("not read")
			}
		}
	})
	b.Run("general", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			p, err := x402.DecodePaymentHeader(h)
			if err != nil {
				b.Fatal(err)
			}
			raw, _ := p.PayloadJSON()
			var pl channelPayload
			if err := json.Unmarshal(raw, &pl); err != nil {
				b.Fatal(fmt.Sprint(err))
			}
		}
	})
}

// TestChannelVoucherHotPath: the hot path's answers without a read of
// the store before the charge, against a store holding the channel: a
// voucher charges it; the same voucher again gets the corrective 402 from
// the record the refused charge returns; a closed channel is refused
// before the cumulative check, a voucher beyond the balance after it; a
// channel the store does not hold goes to the facilitator's Verify.
func TestChannelVoucherHotPath(t *testing.T) {
	ctx := context.Background()
	notFound := "invalid_batch_settlement_evm_channel_not_found"
	fc := &fakeClient{verify: &x402.VerifyResponse{IsValid: false, InvalidReason: &notFound}}
	h, _ := testHandler(t, fc, false)
	h.Amount = "1000"
	h.core.attempts = newAttempts(h)
	opt := h.pricing.options[0]
	opt.caip2, opt.reqs.Scheme, opt.reqs.PayTo, opt.reqs.Asset = "eip155:338", SchemeChannel, channelPayTo, devnet.TokenAddress.Hex()
	h.PayTo = channelPayTo
	h.setTestOptions(t, opt)
	chans := memory.NewRedemptions().(store.Channels)
	cr := chanRouteOf(h, chans)
	cr.opts = []chanOption{{chainID: big.NewInt(devnet.ChainID),
		authorizer: common.HexToAddress("0x00000000000000000000000000000000000000Aa"), token: devnet.TokenAddress,
		payTo: common.HexToAddress(channelPayTo), ids: new(channelIDs)}}
	h.core.seller = cr // the route's seller, as channelScheme.NewSeller makes it
	h0 := voucherHeaderFor(t, 3000, func(s string) string { return s })
	h4 := voucherHeaderFor(t, 4000, func(s string) string { return s })
	var pl channelPayload
	if _, ok := decodeVoucherHeader(h0, &pl); !ok {
		t.Fatal("header not read")
	}
	id := strings.ToLower(pl.Voucher.ChannelID.Hex())
	serve := func(header string) (int, string) {
		r := httptest.NewRequest(http.MethodGet, "http://example.com/paid", nil)
		r.Header.Set(x402.HeaderPaymentSignature, header)
		r = r.WithContext(context.WithValue(r.Context(), caddyhttp.VarsCtxKey, map[string]any{}))
		w := httptest.NewRecorder()
		if err := h.ServeHTTP(w, r, caddyhttp.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
			_, err := w.Write([]byte("resource"))
			return err
		})); err != nil {
			t.Fatal(err)
		}
		var pr x402.PaymentRequiredV2
		_ = x402.DecodeBase64JSON(w.Header().Get(x402.HeaderPaymentRequired), &pr)
		if w.Code == http.StatusOK {
			return w.Code, w.Body.String()
		}
		return w.Code, pr.Error
	}
	charged := func() string {
		c, err := chans.Channel(ctx, id)
		if err != nil || c == nil {
			t.Fatal(c, err)
		}
		return c.Charged.String()
	}
	// Not in the store: the facilitator is asked.
	if st, reason := serve(h0); st != 402 || reason != "invalid_batch_settlement_evm_channel_not_found" || fc.lastReq == nil {
		t.Fatalf("unknown channel: %d %s (asked: %v)", st, reason, fc.lastReq != nil)
	}
	cfg := storeConfig(pl.ChannelConfig)
	if _, err := chans.Sync(ctx, id, "eip155:338", cfg, store.ChainState{Balance: big.NewInt(3500), Claimed: big.NewInt(2000), Block: 1}); err != nil {
		t.Fatal(err)
	}
	fc.lastReq = nil
	for _, tc := range []struct {
		name    string
		header  string
		prepare func()
		status  int
		reason  string
		charged string
	}{
		{"a voucher from the charged amount", h0, nil, 200, "resource", "3000"},
		{"the same voucher again", h0, nil, 402, reasonCumulativeMismatch, "3000"},
		{"a voucher beyond the balance", h4, nil, 402, reasonExceedsBalance, "3000"},
		{"a channel whose payer's withdrawal completes within the margin", h4, func() {
			cs := store.ChainState{Balance: big.NewInt(5000), Claimed: big.NewInt(2000), Block: 2,
				WithdrawRequestedAt: time.Now().Add(-DefaultWithdrawDelay * time.Second)}
			if _, err := chans.Sync(ctx, id, "eip155:338", cfg, cs); err != nil {
				t.Fatal(err)
			}
		}, 402, reasonChannelClosed, "3000"}, // charged, then given back
		{"a closed channel", h4, func() {
			if _, err := chans.SetChannelState(ctx, id, store.ChannelOpen, store.ChannelClosed); err != nil {
				t.Fatal(err)
			}
		}, 402, reasonChannelClosed, "3000"},
	} {
		if tc.prepare != nil {
			tc.prepare()
		}
		if st, got := serve(tc.header); st != tc.status || got != tc.reason || charged() != tc.charged {
			t.Errorf("%s: %d %s, charged %s; want %d %s, charged %s", tc.name, st, got, charged(), tc.status, tc.reason, tc.charged)
		}
	}
	if fc.lastReq != nil {
		t.Error("the facilitator was asked about a channel the store holds")
	}
}

// FuzzDecodeVoucherHeader: whatever header the hot path reads, the
// general decoder reads the same way.
//
//	go test ./caddymodule/paywall -run '^$' -fuzz FuzzDecodeVoucherHeader -fuzztime 60s
func FuzzDecodeVoucherHeader(f *testing.F) {
	raw, _ := base64.StdEncoding.DecodeString(voucherHeaderFor(f, 3000, func(s string) string { return s }))
	f.Add(raw)
	f.Add([]byte(strings.Replace(string(raw), `"payer"`, ` "payer" `, 1)))
	f.Fuzz(func(t *testing.T, raw []byte) {
		h := base64.StdEncoding.EncodeToString(raw)
		var pl channelPayload
		p, ok := decodeVoucherHeader(h, &pl)
		if !ok {
			return
		}
		gp, err := x402.DecodePaymentHeader(h)
		if err != nil {
			t.Fatalf("the hot path read %s; the general decoder: %v", raw, err)
		}
		graw, err := gp.PayloadJSON()
		var gpl channelPayload
		if err != nil || json.Unmarshal(graw, &gpl) != nil {
			t.Fatalf("the hot path read %s; the general decoder's payload: %v", raw, err)
		}
		if !reflect.DeepEqual(pl, gpl) || p.X402Version != gp.X402Version || p.Scheme != gp.Scheme || p.Network != gp.Network ||
			gp.Accepted == nil || p.Accepted.Asset != gp.Accepted.Asset {
			t.Fatalf("%s\nhot %+v %+v\ngeneral %+v %+v", raw, p, pl, gp, gpl)
		}
	})
}
