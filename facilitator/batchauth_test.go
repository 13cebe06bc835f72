package facilitator_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum"

	"github.com/caddy-x402/caddy-x402/facilitator/batchsettlement"
	"github.com/caddy-x402/caddy-x402/facilitator/batchsettlement/batch"
	"github.com/caddy-x402/caddy-x402/facilitator/devnet"
	"github.com/caddy-x402/caddy-x402/facilitator/httpapi"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// testAPIKey is the shared test API's key (api in e2e_test.go): batch-
// settlement claims, settles and refunds need one.
const testAPIKey = "test-operator-key-0123456789"

// postKeyed is post with the test API key.
func postKeyed(t *testing.T, path string, b []byte, out any) int {
	t.Helper()
	st, _ := postAs(t, api.URL+path, testAPIKey, b, out)
	return st
}

// postAs posts b to url with "Authorization: Bearer key" (none when key
// is empty) and returns the status and the response headers.
func postAs(t testing.TB, url, key string, b []byte, out any) (int, http.Header) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if err := json.Unmarshal(data, out); err != nil {
		t.Fatalf("%s: %v", data, err)
	}
	return resp.StatusCode, resp.Header
}

// channelState reads a channel on chain.
func channelState(t testing.TB, cfg batch.ChannelConfig) batch.ChannelState {
	t.Helper()
	id, err := cfg.ID(chain.ChainID())
	if err != nil {
		t.Fatal(err)
	}
	var res [3][]byte
	for i, data := range batch.ChannelReadCalls(id) {
		to := batch.SettlementAddress
		if res[i], err = chain.Client().CallContract(context.Background(), ethereum.CallMsg{To: &to, Data: data}, nil); err != nil {
			t.Fatal(err)
		}
	}
	s, err := batch.UnpackChannelState(res)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestBatchReceiverOpsNeedKey: the attack on a facilitator that signs
// refunds for anyone. A buyer deposits 5000 and is served on vouchers up
// to 1500 that the seller has not claimed yet; the buyer then asks our
// /v2/x402/settle for a refund of its own channel without the seller's
// claims. Anonymous, with an unknown key, with another seller's key, or
// on a facilitator without keys, it is refused before anything is signed
// or sent: the channel, the escrow and the buyer's balance are unchanged.
// Claims and settles are refused alike. The seller's keyed enriched
// refund then claims its 1500 and returns 3500. Deposits and voucher
// verifies need no key, and /supported lists the kind without keys.
func TestBatchReceiverOpsNeedKey(t *testing.T) {
	seller, otherSeller := newSeller(t), newSeller(t)
	const sellerKey, otherKey = "seller-key-0123456789abcdef", "other-seller-key-0123456789"
	keyed := httptest.NewServer(httpapi.New(fac, httpapi.Config{NoRateLimits: true, APIKeys: []string{sellerKey, otherKey},
		KeyReceivers: map[string][]string{sellerKey: {strings.ToLower(seller.Hex())}, otherKey: {otherSeller.Hex()}}}))
	t.Cleanup(keyed.Close)
	keyless := httptest.NewServer(httpapi.New(fac, httpapi.Config{NoRateLimits: true}))
	t.Cleanup(keyless.Close)

	req := channelReq(seller)
	buyer, cfg := openChannel(t, seller, 5000, 31) // anonymous: deposits need no key
	var v x402.ReferenceVerifyResponse
	if st, _ := postAs(t, keyless.URL+x402.PathVerify, "", channelBody(t, voucherPayload(t, buyer, cfg, "voucher", 1500), req), &v); st != 200 || !v.IsValid {
		t.Fatalf("anonymous voucher verify = %d %+v", st, v)
	}
	state, escrow, held := channelState(t, cfg), balance(t, batch.SettlementAddress), balance(t, buyer.Address)
	unchanged := func(when string) {
		t.Helper()
		if got := channelState(t, cfg); got.Balance.Cmp(state.Balance) != 0 || got.TotalClaimed.Cmp(state.TotalClaimed) != 0 || got.RefundNonce.Cmp(state.RefundNonce) != 0 {
			t.Fatalf("%s: channel %+v -> %+v", when, state, got)
		}
		if got := balance(t, batch.SettlementAddress); got.Cmp(escrow) != 0 {
			t.Fatalf("%s: escrow %s -> %s", when, escrow, got)
		}
		if got := balance(t, buyer.Address); got.Cmp(held) != 0 {
			t.Fatalf("%s: buyer %s -> %s", when, held, got)
		}
	}

	// The buyer's own refund of everything unclaimed, without claims.
	attack := voucherPayload(t, buyer, cfg, "refund", 1)
	attack["amount"], attack["refundNonce"], attack["claims"] = "5000", "0", []any{}
	claim := map[string]any{"type": "claim", "claims": []any{claimRow(t, buyer, cfg, 1500, 100)}}
	settle := map[string]any{"type": "settle", "receiver": seller.Hex(), "token": devnet.TokenAddress.Hex()}
	need := func(op string) string {
		return "Not authorized: batch-settlement " + op + " acts for the channel's receiver and is served only to callers with an API key: send Authorization: Bearer KEY with the key this facilitator's operator gave the seller; deposits and vouchers need no key"
	}
	for _, tc := range []struct {
		name, url, key string
		payload        map[string]any
		status         int
		reason         string
	}{
		{"anonymous refund", api.URL, "", attack, 401, need("refund")},
		{"anonymous refund, restricted keys", keyed.URL, "", attack, 401, need("refund")},
		{"unknown key", api.URL, "guessed-key", attack, 401, "Unknown API key: the Authorization: Bearer key is not one of this facilitator's; send a valid key, or none to be limited per client IP"},
		{"another seller's key", keyed.URL, otherKey, attack, 403, "Not authorized: batch-settlement refund acts for receiver " + seller.Hex() + ", which this API key may not act for; use the key of that receiver"},
		{"no keys configured", keyless.URL, "", attack, 403, "Not authorized: batch-settlement refund is served only to callers with an API key, and this facilitator has none configured: its operator must add an api_key to x402_facilitator (httpapi.Config.APIKeys) and give it to the sellers; deposits and vouchers need no key"},
		{"anonymous claim", api.URL, "", claim, 401, need("claim")},
		{"another seller's claim", keyed.URL, otherKey, claim, 403, "Not authorized: batch-settlement claim acts for receiver " + seller.Hex() + ", which this API key may not act for; use the key of that receiver"},
		{"anonymous settle", api.URL, "", settle, 401, need("settle")},
	} {
		var s struct {
			x402.ReferenceSettleResponse
			Error string `json:"error"` // the limits' answer (an unknown key)
		}
		st, h := postAs(t, tc.url+x402.PathSettle, tc.key, channelBody(t, tc.payload, req), &s)
		if s.Error != "" {
			s.ErrorReason, s.ErrorMessage = x402.CodeUnauthorized, s.Error
		}
		if st != tc.status || s.Success || s.ErrorReason != x402.CodeUnauthorized || s.ErrorMessage != tc.reason || s.Transaction != "" {
			t.Fatalf("%s = %d %+v, want %d %q", tc.name, st, s, tc.status, tc.reason)
		}
		if tc.status == 401 && tc.key == "" && h.Get("WWW-Authenticate") == "" {
			t.Fatalf("%s: no WWW-Authenticate", tc.name)
		}
		unchanged(tc.name)
	}

	// The seller's enriched refund with its claim (through its restricted
	// key): 1500 claimed, 3500 back to the buyer.
	refund := voucherPayload(t, buyer, cfg, "refund", 1500)
	refund["amount"], refund["refundNonce"], refund["claims"] = "5000", "0", []any{claimRow(t, buyer, cfg, 1500, 1500)}
	var s x402.ReferenceSettleResponse
	if st, _ := postAs(t, keyed.URL+x402.PathSettle, sellerKey, channelBody(t, refund, req), &s); st != 200 || !s.Success || s.Amount != "3500" {
		t.Fatalf("seller's refund = %d %+v", st, s)
	}
	if got := new(big.Int).Sub(balance(t, buyer.Address), held); got.Int64() != 3500 {
		t.Fatalf("buyer got %s back, want 3500", got)
	}
	if got := channelState(t, cfg); got.Balance.Int64() != 1500 || got.TotalClaimed.Int64() != 1500 {
		t.Fatalf("channel after the refund %+v", got)
	}
	if st, _ := postAs(t, keyed.URL+x402.PathSettle, sellerKey, channelBody(t, settle, req), &s); st != 200 || !s.Success || s.Amount != "1500" {
		t.Fatalf("seller's settle = %d %+v", st, s)
	}
	if got := balance(t, seller); got.Int64() != 1500 {
		t.Fatalf("seller holds %s, want 1500", got)
	}

	// /supported lists the kind on a facilitator without keys.
	resp, err := http.Get(keyless.URL + x402.PathSupported)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if !strings.Contains(string(b), `"scheme":"`+batchsettlement.Scheme+`"`) {
		t.Fatalf("/supported without keys: %s", b)
	}
}
