package facilitator_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	ethcommon "github.com/ethereum/go-ethereum/common"

	"github.com/caddy-x402/caddy-x402/facilitator"
	"github.com/caddy-x402/caddy-x402/facilitator/exact"
	"github.com/caddy-x402/caddy-x402/facilitator/remote"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// TestDialects settles one payment in each dialect on the same routes and
// checks that each answer is in the request's dialect, that the money moved
// once, and that a second settle of the same authorization is refused with
// the dialect's reason.
func TestDialects(t *testing.T) {
	for _, tc := range []struct {
		name string
		body func(t *testing.T, seller string) ([]byte, string) // body and payer
	}{
		{"cronos", func(t *testing.T, seller string) ([]byte, string) {
			r := requirements(addr(seller), "1234")
			h, p := pay(t, buyer(0), r, exact.PaymentOptions{})
			return body(h, r), p.Authorization.From.Hex()
		}},
		{"v1", func(t *testing.T, seller string) ([]byte, string) {
			r := requirements(addr(seller), "1234")
			h, p := pay(t, buyer(1), r, exact.PaymentOptions{Shape: x402.ShapeX402})
			raw, _ := x402.DecodeBase64(h)
			b, _ := json.Marshal(map[string]any{"x402Version": 1, "paymentPayload": json.RawMessage(raw), "paymentRequirements": r})
			return b, p.Authorization.From.Hex()
		}},
		{"v2", func(t *testing.T, seller string) ([]byte, string) {
			r := requirements(addr(seller), "1234")
			r.Extra = &x402.DomainInfo{Name: "Bridged USDC (Stargate)", Version: "1"}
			acc := r.V2("eip155:338")
			h, p, err := exact.CreatePaymentV2(buyer(2).Key, acc, &x402.ResourceInfo{URL: "http://x/y"}, exact.PaymentOptions{ValidFor: 3600e9})
			if err != nil {
				t.Fatal(err)
			}
			raw, _ := x402.DecodeBase64(h)
			b, _ := json.Marshal(map[string]any{"x402Version": 2, "paymentPayload": json.RawMessage(raw), "paymentRequirements": acc})
			return b, p.Authorization.From.Hex()
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			seller := newSeller(t).Hex()
			b, payer := tc.body(t, seller)

			var v map[string]any
			if st := post(t, "/v2/x402/verify", b, &v); st != 200 || v["isValid"] != true || v["payer"] != payer {
				t.Fatalf("verify = %d %v", st, v)
			}
			if _, has := v["invalidReason"]; has != (tc.name == "cronos") {
				t.Fatalf("verify answer %v: invalidReason (null) belongs to the Cronos dialect only", v)
			}
			before := balance(t, addr(seller))
			var s map[string]any
			if st := post(t, "/v2/x402/settle", b, &s); st != 200 || s["success"] != true || s["payer"] != payer {
				t.Fatalf("settle = %d %v", st, s)
			}
			if got := new(big.Int).Sub(balance(t, addr(seller)), before); got.Int64() != 1234 {
				t.Fatalf("seller received %s, want 1234", got)
			}
			tx, _ := s["transaction"].(string)
			if len(tx) != 66 {
				t.Fatalf("transaction %q", tx)
			}
			switch tc.name {
			case "cronos":
				if s["event"] != "payment.settled" || s["txHash"] != tx || s["value"] != "1234" || s["network"] != "cronos-testnet" {
					t.Fatalf("Cronos answer lost a field: %v", s)
				}
			case "v1":
				if _, has := s["event"]; has || s["network"] != "cronos-testnet" {
					t.Fatalf("v1 answer %v", s)
				}
			case "v2":
				if _, has := s["event"]; has || s["network"] != "eip155:338" || s["amount"] != "1234" {
					t.Fatalf("v2 answer %v", s)
				}
			}

			var again map[string]any
			if st := post(t, "/v2/x402/settle", b, &again); st != 200 || again["success"] != false ||
				again["errorReason"] != x402.CodeNonceAlreadyUsed {
				t.Fatalf("second settle = %d %v", st, again)
			}
			if tc.name == "cronos" && (again["event"] != "payment.failed" || again["error"] != "Authorization already used") {
				t.Fatalf("Cronos failure lost a field: %v", again)
			}
			if tc.name == "v2" && again["errorMessage"] != "Authorization already used" {
				t.Fatalf("v2 failure without the Cronos text: %v", again)
			}
			if got := new(big.Int).Sub(balance(t, addr(seller)), before); got.Int64() != 1234 {
				t.Fatalf("seller received %s after the refused settle, want 1234", got)
			}
		})
	}
}

func addr(s string) ethcommon.Address { return ethcommon.HexToAddress(s) }

// TestRemoteDialects settles through Remote in each dialect against our
// own API (which speaks all three), with a v1 and a v2 buyer, and checks
// what Remote learns from /supported.
func TestRemoteDialects(t *testing.T) {
	for i, tc := range []struct {
		dialect string
		v2Buyer bool
	}{
		{"cronos", false}, {"cronos", true}, {"v1", false}, {"v1", true}, {"v2", false}, {"v2", true}, {"auto", true},
	} {
		t.Run(fmt.Sprintf("%s/v2buyer=%v", tc.dialect, tc.v2Buyer), func(t *testing.T) {
			opts := remote.Options{}
			if tc.dialect != "auto" {
				d, err := x402.ParseDialect(tc.dialect)
				if err != nil {
					t.Fatal(err)
				}
				opts.Dialect = &d
			}
			client := remote.New(api.URL, opts)
			seller := newSeller(t)
			r := requirements(seller, "777")
			r.Extra = &x402.DomainInfo{Name: "Bridged USDC (Stargate)", Version: "1"}
			acc := r.V2("eip155:338")
			req := &x402.Request{X402Version: 1, PaymentRequirements: r, RequirementsV2: &acc}
			b := buyer(i % 5)
			if tc.v2Buyer {
				h, _, err := exact.CreatePaymentV2(b.Key, acc, nil, exact.PaymentOptions{ValidFor: time.Hour})
				if err != nil {
					t.Fatal(err)
				}
				req.PaymentHeader, req.Dialect = h, x402.DialectV2
			} else {
				req.PaymentHeader, _ = pay(t, b, r, exact.PaymentOptions{})
			}
			v, err := client.Verify(context.Background(), req)
			if err != nil || !v.IsValid || !strings.EqualFold(v.Payer, b.Address.Hex()) && tc.dialect != "cronos" {
				t.Fatalf("verify = %+v, %v", v, err)
			}
			before := balance(t, seller)
			s, err := client.Settle(context.Background(), req)
			if err != nil || !s.Settled() || len(s.TxHash) != 66 {
				t.Fatalf("settle = %+v, %v", s, err)
			}
			if got := new(big.Int).Sub(balance(t, seller), before); got.Int64() != 777 {
				t.Fatalf("seller received %s, want 777", got)
			}
			s, err = client.Settle(context.Background(), req)
			if err != nil || s.Settled() || s.Error != x402.ErrTextAlreadyUsed {
				t.Fatalf("second settle = %+v, %v", s, err)
			}
		})
	}
}

// TestRemoteFailures: an unreachable facilitator and one that answers
// without saying whether it settled are errors, never a verdict.
func TestRemoteFailures(t *testing.T) {
	r := requirements(newSeller(t), "5")
	h, _ := pay(t, buyer(0), r, exact.PaymentOptions{})
	req := &x402.Request{X402Version: 1, PaymentHeader: h, PaymentRequirements: r}

	down := remote.New("http://127.0.0.1:1", remote.Options{})
	if _, err := down.Verify(context.Background(), req); err == nil || x402.StatusOf(err) != 502 {
		t.Errorf("unreachable verify: %v", err)
	}
	odd := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case strings.HasSuffix(r.URL.Path, "/settle"):
			w.Write([]byte(`{"network":"cronos-testnet"}`))
		case strings.HasSuffix(r.URL.Path, "/verify"):
			w.WriteHeader(http.StatusTooManyRequests)
			w.Write([]byte(`{"isValid":false,"invalidReason":"Rate limit exceeded"}`))
		default:
			http.NotFound(w, r)
		}
	}))
	defer odd.Close()
	client := remote.New(odd.URL, remote.Options{})
	if _, err := client.Settle(context.Background(), req); err == nil || !strings.Contains(err.Error(), "does not say whether it settled") {
		t.Errorf("settle answer without an outcome: %v", err)
	}
	if _, err := client.Verify(context.Background(), req); err == nil || x402.StatusOf(err) != 429 || !strings.Contains(err.Error(), "Rate limit exceeded") {
		t.Errorf("rate-limited verify: %v", err)
	}
}

// TestSettlePendingDialects: a settle that outlives its timeout answers
// errorReason settlement_pending with the transaction hash, in the Cronos
// dialect (beside "Settlement pending") and in v2.
func TestSettlePendingDialects(t *testing.T) {
	tf := newTestFacilitator(t, nil, func(c *facilitator.Config) {
		c.SettleTimeout = 300 * time.Millisecond
	})
	seller := newSeller(t)
	r := requirements(seller, "901")
	r.Extra = &x402.DomainInfo{Name: "Bridged USDC (Stargate)", Version: "1"}
	cronosHeader, _ := pay(t, newBuyer(t, chain, 901), r, exact.PaymentOptions{})
	acc := r.V2("eip155:338")
	v2Header, _, err := exact.CreatePaymentV2(newBuyer(t, chain, 901).Key, acc, nil, exact.PaymentOptions{ValidFor: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := x402.DecodeBase64(v2Header)
	v2Body, _ := json.Marshal(map[string]any{"x402Version": 2, "paymentPayload": json.RawMessage(raw), "paymentRequirements": acc})

	chain.PauseMining()
	var c, v map[string]any
	cs := postWithURL(t, http.DefaultClient, tf.url+x402.PathSettle, body(cronosHeader, r), &c)
	vs := postWithURL(t, http.DefaultClient, tf.url+x402.PathSettle, v2Body, &v)
	chain.ResumeMining()
	if tx, _ := c["txHash"].(string); cs != 200 || c["event"] != "payment.failed" || c["error"] != "Settlement pending" ||
		c["errorReason"] != "settlement_pending" || len(tx) != 66 || c["transaction"] != tx {
		t.Errorf("Cronos pending answer = %d %v", cs, c)
	}
	if tx, _ := v["transaction"].(string); vs != 200 || v["success"] != false || v["errorReason"] != "settlement_pending" || len(tx) != 66 {
		t.Errorf("v2 pending answer = %d %v", vs, v)
	}
}

// TestV2BadRequests: a malformed v2 body is a 400 in the v2 shape.
func TestV2BadRequests(t *testing.T) {
	for _, tc := range []struct{ name, body, message string }{
		{"amount missing", `{"x402Version":2,"paymentPayload":{"x402Version":2},"paymentRequirements":{"scheme":"exact","network":"eip155:338","payTo":"0x2222222222222222222222222222222222222222","asset":"0xc01efAaF7C5C61bEbFAeb358E1161b537b8bC0e0","maxTimeoutSeconds":60}}`,
			"paymentRequirements.amount is required"},
		{"payload not an object", `{"x402Version":2,"paymentPayload":"abc","paymentRequirements":{}}`, "paymentPayload must be a JSON object"},
		{"requirements missing", `{"x402Version":2,"paymentPayload":{"x402Version":2}}`, "paymentRequirements is required"},
		{"amount wrong type", `{"x402Version":2,"paymentPayload":{},"paymentRequirements":{"amount":5}}`, "paymentRequirements: amount must be a string, got number"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var v map[string]any
			if st := post(t, x402.PathVerify, []byte(tc.body), &v); st != 400 || v["isValid"] != false ||
				v["invalidReason"] != "invalid_payload" || v["invalidMessage"] != tc.message {
				t.Fatalf("verify = %d %v", st, v)
			}
			var s map[string]any
			if st := post(t, x402.PathSettle, []byte(tc.body), &s); st != 400 || s["success"] != false || s["errorReason"] != "invalid_payload" {
				t.Fatalf("settle = %d %v", st, s)
			}
		})
	}
}
