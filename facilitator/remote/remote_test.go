package remote

import (
	"encoding/json"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

func TestLayout(t *testing.T) {
	for _, tc := range []struct{ url, prefix string }{
		{"https://f.example.com", "https://f.example.com/v2/x402"},
		{"https://f.example.com/", "https://f.example.com/v2/x402"},
		{"https://x402.org/facilitator", "https://x402.org/facilitator"},
		{"https://host/v2/x402/", "https://host/v2/x402"},
	} {
		if got := New(tc.url, Options{}).prefix; got != tc.prefix {
			t.Errorf("New(%q) prefix %q, want %q", tc.url, got, tc.prefix)
		}
	}
}

// TestBody converts a flat Cronos payment into each dialect's body.
func TestBody(t *testing.T) {
	p := &x402.Payment{X402Version: 1, Scheme: "exact", Network: "cronos-testnet", Asset: "0xc01efAaF7C5C61bEbFAeb358E1161b537b8bC0e0",
		Signature: make([]byte, 65), Authorization: x402.Authorization{
			From: common.HexToAddress("0x1111111111111111111111111111111111111111"), To: common.HexToAddress("0x2222222222222222222222222222222222222222"),
			Value: big.NewInt(10000), ValidAfter: big.NewInt(0), ValidBefore: big.NewInt(1900000000), Nonce: [32]byte{1},
		}}
	header, err := x402.EncodePaymentHeader(p, x402.ShapeCronos)
	if err != nil {
		t.Fatal(err)
	}
	reqs := x402.PaymentRequirements{Scheme: "exact", Network: "cronos-testnet", PayTo: "0x2222222222222222222222222222222222222222",
		Asset: "0xc01efAaF7C5C61bEbFAeb358E1161b537b8bC0e0", MaxAmountRequired: "10000", MaxTimeoutSeconds: 60,
		Extra: &x402.DomainInfo{Name: "Bridged USDC (Stargate)", Version: "1"}}
	req := &request{X402Version: 1, PaymentHeader: header, PaymentRequirements: reqs}
	for _, tc := range []struct {
		d    x402.Dialect
		want func(m map[string]json.RawMessage) bool
	}{
		{x402.DialectCronos, func(m map[string]json.RawMessage) bool {
			return string(m["x402Version"]) == "1" && string(m["paymentHeader"]) == `"`+header+`"`
		}},
		{x402.DialectV1, func(m map[string]json.RawMessage) bool {
			var pp struct {
				Network string
				Payload struct{ Authorization *struct{ Value string } }
			}
			return string(m["x402Version"]) == "1" && json.Unmarshal(m["paymentPayload"], &pp) == nil &&
				pp.Network == "cronos-testnet" && pp.Payload.Authorization != nil && pp.Payload.Authorization.Value == "10000"
		}},
		{x402.DialectV2, func(m map[string]json.RawMessage) bool {
			var pp x402.PaymentPayloadV2
			var r x402.RequirementsV2
			return string(m["x402Version"]) == "2" && json.Unmarshal(m["paymentPayload"], &pp) == nil &&
				json.Unmarshal(m["paymentRequirements"], &r) == nil && pp.X402Version == 2 &&
				pp.Accepted.Network == "eip155:338" && r.Network == "eip155:338" && r.Amount == "10000" && r.Domain() != nil
		}},
	} {
		b, err := body(tc.d, req)
		if err != nil {
			t.Fatalf("%s: %v", tc.d, err)
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(b, &m); err != nil || !tc.want(m) {
			t.Errorf("%s body: %s", tc.d, b)
		}
	}
	if _, err := body(x402.DialectV2, &request{PaymentHeader: "garbage", PaymentRequirements: reqs}); x402.StatusOf(err) != 400 {
		t.Errorf("an unreadable payment: %v", err)
	}
}
