package x402cmd

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/caddy-x402/caddy-x402/facilitator/evm"
	x402network "github.com/caddy-x402/caddy-x402/facilitator/network"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// testBuyerKey is the development chain's public buyer 1 key (TEST-ONLY).
const testBuyerKey = "0x087e13a36a752a4b4ba7494f24e1e3c9a17bfb2c82d0c65928855c87cee45bb4"

var testReqs = x402.PaymentRequirements{
	Scheme:            x402.SchemeExact,
	Network:           x402network.CronosTestnet,
	PayTo:             "0x5e11e5e11e5e11e5e11e5e11e5e11e5e11e5e11e",
	Asset:             "0xc01efAaF7C5C61bEbFAeb358E1161b537b8bC0e0",
	MaxAmountRequired: "10000",
	MaxTimeoutSeconds: 300,
}

// paywall is a fake seller: 402 without X-PAYMENT, then accept (or refuse)
// the payment after checking its payload.
func paywall(t *testing.T, body func(w http.ResponseWriter), refuse string) (*httptest.Server, *[]*x402.Payment) {
	t.Helper()
	var got []*x402.Payment
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := r.Header.Get("X-PAYMENT")
		if h == "" {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusPaymentRequired)
			body(w)
			return
		}
		p, err := x402.DecodePaymentHeader(h)
		if err != nil {
			t.Errorf("DecodePaymentHeader: %v", err)
			return
		}
		if err := p.ParsePayload(); err != nil {
			t.Errorf("ParsePayload: %v", err)
			return
		}
		got = append(got, p)
		if refuse != "" {
			w.WriteHeader(http.StatusPaymentRequired)
			json.NewEncoder(w).Encode(map[string]any{"x402Version": 1, "error": refuse, "accepts": []any{testReqs}})
			return
		}
		sr, _ := json.Marshal(x402.SettleResponse{X402Version: 1, Event: x402.EventSettled, TxHash: "0xabc", Network: p.Network})
		w.Header().Set("X-PAYMENT-RESPONSE", base64.StdEncoding.EncodeToString(sr))
		w.Write([]byte("paid content"))
	}))
	t.Cleanup(srv.Close)
	return srv, &got
}

func acceptsBody(w http.ResponseWriter) {
	json.NewEncoder(w).Encode(map[string]any{"x402Version": 1, "error": "X-PAYMENT header is required", "accepts": []any{testReqs}})
}

func TestPayAccepts(t *testing.T) {
	srv, got := paywall(t, acceptsBody, "")
	var stdout, stderr bytes.Buffer
	o := PayOptions{Key: testBuyerKey, Method: "GET", Shape: "x402", Timeout: 10 * time.Second}
	if err := RunPay(context.Background(), srv.URL+"/api", o, &stdout, &stderr); err != nil {
		t.Fatalf("RunPay: %v\nstderr: %s", err, stderr.String())
	}
	if stdout.String() != "paid content" {
		t.Errorf("stdout = %q", stdout.String())
	}
	if !strings.Contains(stderr.String(), `"txHash": "0xabc"`) {
		t.Errorf("stderr lacks the pretty settlement: %s", stderr.String())
	}
	if strings.Contains(stderr.String(), strings.TrimPrefix(testBuyerKey, "0x")) {
		t.Error("stderr shows the key")
	}
	if len(*got) != 1 {
		t.Fatalf("%d payments, want 1", len(*got))
	}
	key, _ := evm.ParseKey(testBuyerKey)
	a := (*got)[0].Authorization
	if a.From != crypto.PubkeyToAddress(key.PublicKey) || a.Value.String() != "10000" ||
		!strings.EqualFold(a.To.Hex(), testReqs.PayTo) {
		t.Errorf("authorization = %+v", a)
	}
}

func TestPayRefused(t *testing.T) {
	// The specification's shape: paymentRequirements without accepts.
	srv, _ := paywall(t, func(w http.ResponseWriter) {
		json.NewEncoder(w).Encode(map[string]any{"x402Version": 1, "error": "X-PAYMENT header is required", "paymentRequirements": testReqs})
	}, "ERC20: transfer amount exceeds balance")
	var stdout, stderr bytes.Buffer
	o := PayOptions{Key: testBuyerKey, Method: "GET", Timeout: 10 * time.Second}
	err := RunPay(context.Background(), srv.URL, o, &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), "ERC20: transfer amount exceeds balance") {
		t.Fatalf("err = %v, want the refusal reason", err)
	}
	if stdout.Len() != 0 {
		t.Errorf("stdout = %q, want nothing", stdout.String())
	}
}

func TestPayLimits(t *testing.T) {
	srv, got := paywall(t, acceptsBody, "")
	var stdout, stderr bytes.Buffer
	o := PayOptions{Key: testBuyerKey, Method: "GET", MaxAmount: "9999", Timeout: 10 * time.Second}
	if err := RunPay(context.Background(), srv.URL, o, &stdout, &stderr); err == nil || !strings.Contains(err.Error(), "--max-amount") {
		t.Fatalf("err = %v, want a --max-amount refusal", err)
	}
	o = PayOptions{Key: "0x1234", Method: "GET", Timeout: 10 * time.Second}
	if err := RunPay(context.Background(), srv.URL, o, &stdout, &stderr); err == nil || strings.Contains(err.Error(), "1234") {
		t.Fatalf("err = %v, want a key error that does not repeat the key", err)
	}
	if len(*got) != 0 {
		t.Errorf("%d payments made, want 0", len(*got))
	}
}

func TestPayNotPaywalled(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-PAYMENT") != "" {
			t.Error("paid a free resource")
		}
		w.Write([]byte("free"))
	}))
	defer srv.Close()
	var stdout, stderr bytes.Buffer
	o := PayOptions{Key: testBuyerKey, Method: "GET", Timeout: 10 * time.Second}
	if err := RunPay(context.Background(), srv.URL, o, &stdout, &stderr); err != nil || stdout.String() != "free" {
		t.Fatalf("err = %v, stdout = %q", err, stdout.String())
	}
}

func TestDecodePaymentResponse(t *testing.T) {
	js := `{"success":true}`
	for _, in := range []string{base64.StdEncoding.EncodeToString([]byte(js)), js} {
		if got := decodePaymentResponse(in); got != "{\n  \"success\": true\n}" {
			t.Errorf("decodePaymentResponse(%q) = %q", in, got)
		}
	}
	if got := decodePaymentResponse("not json"); got != "not json" {
		t.Errorf("got %q", got)
	}
}

// TestPaySaysWhetherMoneyMoved: after a failed paid request, caddy x402 pay
// says whether the payment was settled.
func TestPaySaysWhetherMoneyMoved(t *testing.T) {
	settledHeader := base64.StdEncoding.EncodeToString([]byte(`{"success":true,"transaction":"0xfeed","txHash":"0xfeed"}`))
	tests := []struct {
		name       string
		status     int
		body       string
		settlement string
		want       []string
	}{
		{"facilitator down", 500, `{"x402Version":1,"error":"the payment could not be verified: facilitator unreachable; try again shortly"}`, "",
			[]string{"answered 500 Internal Server Error: the payment could not be verified", "no money moved"}},
		{"rate limited", 429, `{"error":"Too many payment attempts from this client; retry in 7 s","retryAfterSeconds":7}`, "",
			[]string{"429", "Too many payment attempts", "no money moved"}},
		{"upstream failed after settling", 502, "bad gateway", settledHeader,
			[]string{"after the payment was settled: money moved (transaction 0xfeed)"}},
		{"pending", 402, `{"x402Version":1,"error":"Settlement pending"}`, "",
			[]string{"Settlement pending: the transfer was broadcast and may still move the money"}},
		{"refused", 402, `{"x402Version":1,"error":"ERC20: transfer amount exceeds balance"}`, "",
			[]string{"payment refused: ERC20: transfer amount exceeds balance (no money moved)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				if r.Header.Get("X-PAYMENT") == "" {
					w.WriteHeader(http.StatusPaymentRequired)
					acceptsBody(w)
					return
				}
				if tt.settlement != "" {
					w.Header().Set("X-PAYMENT-RESPONSE", tt.settlement)
				}
				w.WriteHeader(tt.status)
				w.Write([]byte(tt.body))
			}))
			defer srv.Close()
			var stdout, stderr bytes.Buffer
			err := RunPay(context.Background(), srv.URL, PayOptions{Key: testBuyerKey, Method: "GET", Timeout: 10 * time.Second}, &stdout, &stderr)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

// TestChoosePayment: "caddy x402 pay" picks the first option it can pay,
// or the one of --network (by v1 name or CAIP-2 id), in version 1 and 2.
func TestChoosePayment(t *testing.T) {
	entry := func(network, amount string) x402.PaymentRequirements {
		r := testReqs
		r.Network, r.MaxAmountRequired = network, amount
		return r
	}
	max := big.NewInt(1000000)
	for _, tt := range []struct {
		name           string
		accepts        []x402.PaymentRequirements
		network        string
		chainID        int64
		want, wantErr  string
		wantV2, errV2  string
		skipV2Networks bool
	}{
		{name: "the first", accepts: []x402.PaymentRequirements{entry("cronos-testnet", "10000"), entry("base-sepolia", "10000")},
			want: "cronos-testnet", wantV2: "eip155:338"},
		{name: "--network by v1 name", accepts: []x402.PaymentRequirements{entry("cronos-testnet", "10000"), entry("base-sepolia", "10000")},
			network: "base-sepolia", want: "base-sepolia", wantV2: "eip155:84532"},
		{name: "--network by CAIP-2 id", accepts: []x402.PaymentRequirements{entry("cronos-testnet", "10000"), entry("base-sepolia", "10000")},
			network: "eip155:84532", want: "base-sepolia", wantV2: "eip155:84532"},
		{name: "the first within --max-amount", accepts: []x402.PaymentRequirements{entry("cronos-testnet", "2000000"), entry("base-sepolia", "10000")},
			want: "base-sepolia", wantV2: "eip155:84532"},
		{name: "a chain ID unknown is skipped", accepts: []x402.PaymentRequirements{entry("my-chain", "10000"), entry("base-sepolia", "10000")},
			want: "base-sepolia", skipV2Networks: true},
		{name: "--network not offered", accepts: []x402.PaymentRequirements{entry("cronos-testnet", "10000")},
			network: "base", wantErr: "refusing to pay: cronos-testnet: not --network base",
			errV2: "refusing to pay: no acceptable way to pay (eip155:338: not --network base)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, _, err := chooseV1(&x402.PaymentRequired{Accepts: tt.accepts}, max, tt.network, tt.chainID)
			switch {
			case tt.wantErr != "":
				if err == nil || err.Error() != tt.wantErr {
					t.Errorf("v1: err %v, want %q", err, tt.wantErr)
				}
			case err != nil || got.Network != tt.want:
				t.Errorf("v1: chose %q (%v), want %q", got.Network, err, tt.want)
			}
			if tt.skipV2Networks {
				return
			}
			var v2 []x402.RequirementsV2
			for _, a := range tt.accepts {
				id, _ := x402.ChainIDOf(a.Network)
				v2 = append(v2, a.V2(x402.CAIP2(id)))
			}
			got2, _, err := chooseV2(v2, max, tt.chainID, tt.network)
			switch {
			case tt.errV2 != "":
				if err == nil || err.Error() != tt.errV2 {
					t.Errorf("v2: err %v, want %q", err, tt.errV2)
				}
			case err != nil || got2.Network != tt.wantV2:
				t.Errorf("v2: chose %q (%v), want %q", got2.Network, err, tt.wantV2)
			}
		})
	}
}
