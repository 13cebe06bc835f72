package testutil

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/caddyserver/caddy/v2/caddytest"

	"github.com/caddy-x402/caddy-x402/caddymodule/internal/httpx"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// Body402 is the seller's 402 answer.
type Body402 struct {
	Error               string                   `json:"error"`
	InvalidReason       string                   `json:"invalidReason"`
	X402Version         int                      `json:"x402Version"`
	PaymentRequirements x402.PaymentRequirements `json:"paymentRequirements"`
	Accepts             []x402.PaymentRequirements
}

// Get fetches url with the tester's client and the given headers.
func Get(t *testing.T, tester *caddytest.Tester, url string, header map[string]string) (*http.Response, []byte) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := tester.Client.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, b
}

// Require402 fetches url without payment and returns the 402 answer.
func Require402(t *testing.T, tester *caddytest.Tester, url string) Body402 {
	t.Helper()
	resp, b := Get(t, tester, url, nil)
	if resp.StatusCode != http.StatusPaymentRequired {
		t.Fatalf("GET %s without payment: status %d, want 402; body %s", url, resp.StatusCode, b)
	}
	var out Body402
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("402 body is not JSON: %v: %s", err, b)
	}
	return out
}

// echoed are the request headers EchoUpstream answers with: those the
// paywall sets for the upstream, and the buyer's payment.
var echoed = []string{httpx.HeaderTxHash, httpx.HeaderFrom, httpx.HeaderValue, httpx.HeaderNetwork, httpx.HeaderBlockNumber,
	httpx.HeaderAccessUntil, httpx.HeaderAccessVia, httpx.HeaderPayment}

// EchoUpstream answers with the X-Payment-* request headers it got, as JSON.
func EchoUpstream(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got := map[string]string{}
		for _, k := range echoed {
			got[k] = r.Header.Get(k)
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(got)
	}))
	t.Cleanup(srv.Close)
	return srv
}
