package x402cmd

import (
	"bytes"
	"context"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// v2Seller is a fake x402 v2 seller: PAYMENT-REQUIRED on the 402 (and a v1
// body beside it), then it checks the PAYMENT-SIGNATURE it gets.
func v2Seller(t *testing.T, accepts []x402.RequirementsV2) (*httptest.Server, *[]*x402.Payment) {
	t.Helper()
	var got []*x402.Payment
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := r.Header.Get("Payment-Signature")
		if h == "" {
			pr, _ := x402.EncodeBase64JSON(x402.PaymentRequiredV2{X402Version: 2, Resource: &x402.ResourceInfo{URL: "http://x/y"}, Accepts: accepts, Extensions: map[string]any{}})
			w.Header().Set("Payment-Required", pr)
			w.WriteHeader(http.StatusPaymentRequired)
			acceptsBody(w)
			return
		}
		p, err := x402.DecodePaymentHeader(h)
		if err == nil {
			err = p.ParsePayload()
		}
		if err != nil {
			t.Errorf("PAYMENT-SIGNATURE: %v", err)
			return
		}
		got = append(got, p)
		sr, _ := x402.EncodeBase64JSON(x402.ReferenceSettleResponse{Success: true, Transaction: "0xabc", Network: p.Network})
		w.Header().Set("Payment-Response", sr)
		w.Write([]byte("paid v2 content"))
	}))
	t.Cleanup(srv.Close)
	return srv, &got
}

func TestPayV2(t *testing.T) {
	base := testReqs
	base.Extra = &x402.DomainInfo{Name: "Bridged USDC (Stargate)", Version: "1"}
	cheap := base.V2("eip155:338")
	dear := cheap
	dear.Amount = "5000000"
	solana := cheap
	solana.Network = "solana:mainnet"

	for _, tc := range []struct {
		name      string
		accepts   []x402.RequirementsV2
		o         PayOptions
		wantErr   string
		wantValue string
	}{
		{"first payable entry", []x402.RequirementsV2{solana, dear, cheap}, PayOptions{}, "", "10000"},
		{"above the default cap", []x402.RequirementsV2{dear}, PayOptions{}, "5000000 smallest units is more than --max-amount 1000000", ""},
		{"cap raised", []x402.RequirementsV2{dear}, PayOptions{MaxAmount: "5000000"}, "", "5000000"},
		{"v1 forced", []x402.RequirementsV2{cheap}, PayOptions{Protocol: "v1"}, "", "v1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, got := v2Seller(t, tc.accepts)
			v1srv, v1got := paywall(t, acceptsBody, "")
			url := srv.URL
			if tc.wantValue == "v1" {
				url = v1srv.URL // a v1-only seller behind the same flags
			}
			tc.o.Key, tc.o.Method, tc.o.Timeout = testBuyerKey, "GET", 10*time.Second
			var stdout, stderr bytes.Buffer
			err := RunPay(context.Background(), url, tc.o, &stdout, &stderr)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || len(*got) != 0 {
					t.Fatalf("err = %v (payments %d), want %q", err, len(*got), tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("pay: %v\n%s", err, stderr.String())
			}
			if tc.wantValue == "v1" {
				if len(*v1got) != 1 || (*v1got)[0].X402Version != 1 {
					t.Fatalf("v1 payments %+v", *v1got)
				}
				return
			}
			if len(*got) != 1 || (*got)[0].X402Version != 2 || (*got)[0].Network != "eip155:338" ||
				(*got)[0].Authorization.Value.Cmp(mustBig(tc.wantValue)) != 0 {
				t.Fatalf("payments %+v", *got)
			}
			if stdout.String() != "paid v2 content\n" && stdout.String() != "paid v2 content" {
				t.Errorf("stdout %q", stdout.String())
			}
			if !strings.Contains(stderr.String(), `"success": true`) {
				t.Errorf("stderr lacks the settlement: %s", stderr.String())
			}
		})
	}
}

func mustBig(s string) *big.Int {
	v, _ := new(big.Int).SetString(s, 10)
	return v
}

// TestPayV1OfV2OnlyRoute (issue 32, finding 9): --protocol v1 against a
// route paid with x402 version 2 only (the paywall's upto and
// batch-settlement routes: a PAYMENT-REQUIRED header, and a body that says
// x402Version 2 with no version 1 requirements) says so plainly and pays
// nothing.
func TestPayV1OfV2OnlyRoute(t *testing.T) {
	base := testReqs
	base.Extra = &x402.DomainInfo{Name: "Bridged USDC (Stargate)", Version: "1"}
	accepts := []x402.RequirementsV2{base.V2("eip155:338")}
	accepts[0].Scheme = x402.SchemeUpto
	paid := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Payment") != "" || r.Header.Get("Payment-Signature") != "" {
			paid++
		}
		if r.URL.Path != "/nov2" {
			pr, _ := x402.EncodeBase64JSON(x402.PaymentRequiredV2{X402Version: 2, Resource: &x402.ResourceInfo{URL: "http://x/y"}, Accepts: accepts})
			w.Header().Set("Payment-Required", pr)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusPaymentRequired)
		w.Write([]byte(`{"x402Version":2,"error":"PAYMENT-SIGNATURE header is required","message":"this route is paid with x402 version 2 only (scheme upto)"}` + "\n"))
	}))
	t.Cleanup(srv.Close)
	for _, tc := range []struct {
		path, protocol, want string
	}{
		{"/v2only", "v1", srv.URL + "/v2only is paid with x402 version 2 only (its 402 body says x402Version 2): pay without --protocol v1"},
		{"/nov2", "", srv.URL + "/nov2 is paid with x402 version 2 only (its 402 body says x402Version 2), but its answer has no PAYMENT-REQUIRED header to pay it with"},
	} {
		var stdout, stderr bytes.Buffer
		err := RunPay(context.Background(), srv.URL+tc.path, PayOptions{Key: testBuyerKey, Method: "GET", Timeout: 10 * time.Second, Protocol: tc.protocol}, &stdout, &stderr)
		if err == nil || err.Error() != tc.want {
			t.Errorf("pay %s (protocol %q): %v\nwant %s", tc.path, tc.protocol, err, tc.want)
		}
	}
	if paid != 0 {
		t.Errorf("%d payments were sent", paid)
	}
}

// TestPayV2Refused (issue 33): a version 2 seller's refusal of the signed
// payment says whether money moved, and a Permit2 allowance refusal names
// the flag that fixes it.
func TestPayV2Refused(t *testing.T) {
	base := testReqs
	base.Extra = &x402.DomainInfo{Name: "Bridged USDC (Stargate)", Version: "1"}
	accepts := []x402.RequirementsV2{base.V2("eip155:338")}
	for _, tc := range []struct {
		name, reason string
		want         []string
		not          string
	}{
		{"allowance text", x402.ReasonPermit2AllowanceRequired, []string{"(no money moved)", "--approve-permit2 RPC_URL"}, ""},
		{"allowance code", x402.CodePermit2AllowanceRequired, []string{"(no money moved)", "--approve-permit2 RPC_URL"}, ""},
		{"other reason", "insufficient_funds", []string{"payment refused: insufficient_funds (no money moved)"}, "--approve-permit2"},
		{"pending", x402.ErrTextPending, []string{"may still move the money"}, "no money moved"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				pr := x402.PaymentRequiredV2{X402Version: 2, Resource: &x402.ResourceInfo{URL: "http://x/y"}, Accepts: accepts}
				if r.Header.Get("Payment-Signature") != "" {
					pr.Error = tc.reason
				}
				h, _ := x402.EncodeBase64JSON(pr)
				w.Header().Set("Payment-Required", h)
				w.WriteHeader(http.StatusPaymentRequired)
				w.Write([]byte("{}"))
			}))
			t.Cleanup(srv.Close)
			var stdout, stderr bytes.Buffer
			err := RunPay(context.Background(), srv.URL, PayOptions{Key: testBuyerKey, Method: "GET", Timeout: 10 * time.Second}, &stdout, &stderr)
			if err == nil {
				t.Fatal("pay succeeded against a refusal")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("err = %v, want %q in it", err, w)
				}
			}
			if tc.not != "" && strings.Contains(err.Error(), tc.not) {
				t.Errorf("err = %v, want no %q in it", err, tc.not)
			}
		})
	}
}
