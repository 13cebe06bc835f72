package paywall

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"github.com/ethereum/go-ethereum/crypto"
	"go.uber.org/zap"

	"github.com/caddy-x402/caddy-x402/caddymodule/app"
	"github.com/caddy-x402/caddy-x402/caddymodule/internal/httpx"
	"github.com/caddy-x402/caddy-x402/caddymodule/internal/testutil"
	"github.com/caddy-x402/caddy-x402/facilitator/devnet"
	"github.com/caddy-x402/caddy-x402/facilitator/exact"
	"github.com/caddy-x402/caddy-x402/facilitator/network"
	"github.com/caddy-x402/caddy-x402/facilitator/store/memory"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// fakeClient is a FAKE facilitator.Client with canned answers. It exists for
// the faults a real facilitator cannot be made to produce on demand (settle
// failing after verify passed, a facilitator erroring at one step but not
// the other) and for the response-writer edge cases of settle-after (an
// upstream that flushes first, writes through io.Copy, or writes nothing).
// The real flows, with a real Caddy, facilitator and chain, are in
// integration_test.go.
type fakeClient struct {
	verify  *x402.VerifyResponse
	verErr  error
	settle  *x402.SettleResponse
	setErr  error
	settles atomic.Int32
	lastReq *x402.Request
}

func (f *fakeClient) Verify(_ context.Context, req *x402.Request) (*x402.VerifyResponse, error) {
	f.lastReq = req
	return f.verify, f.verErr
}

func (f *fakeClient) Settle(_ context.Context, req *x402.Request) (*x402.SettleResponse, error) {
	f.settles.Add(1)
	return f.settle, f.setErr
}

var (
	block7  = uint64(7)
	settled = &x402.SettleResponse{X402Version: 1, Event: x402.EventSettled, TxHash: "0x" + strings.Repeat("ab", 32),
		From: "0xBuyer", To: "0xSeller", Value: "10000", BlockNumber: &block7, Network: "cronos-testnet", Timestamp: "2026-01-01T00:00:00.000Z"}
	failedSettle = &x402.SettleResponse{X402Version: 1, Event: x402.EventFailed, Network: "cronos-testnet", Error: x402.ErrTextInsufficientFunds}
)

func testHandler(t *testing.T, fc *fakeClient, settleAfter bool) (*Handler, string) {
	t.Helper()
	b, _ := network.Builtin("cronos-testnet")
	h := &Handler{logger: zap.NewNop(), PayTo: "0x1111111111111111111111111111111111111111", Amount: "10000",
		core: &core{client: fc, redeem: app.NewDeliveries(memory.NewRedemptions()), settleAfter: settleAfter}}
	h.core.seller = exactCheckout{h: h.core}
	h.setTestOptions(t, payOption{reqs: x402.PaymentRequirements{
		Scheme: "exact", Network: b.Name, PayTo: h.PayTo, Asset: b.Token,
		MaxTimeoutSeconds: 300, Extra: &x402.DomainInfo{Name: b.EIP712Name, Version: b.EIP712Version},
	}, decimals: 6, decimalsKnown: true, chainID: b.ChainID})
	key, _ := crypto.GenerateKey()
	header, _, err := exact.CreatePayment(key, h.firstReqs(), exact.PaymentOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return h, header
}

// setTestOptions gives a handler built by hand its options and offer, as
// Provision does (version 2 stays off unless an option has a caip2).
func (h *Handler) setTestOptions(t testing.TB, opts ...payOption) {
	t.Helper()
	h.pricing = newPricing(h.Price, h.Amount, h.pricing.fac)
	for i := range opts {
		opts[i].canon = h.pricing.canonNetwork(opts[i].reqs.Network)
	}
	h.pricing.options = opts
	h.reply = newReplies(h)
	o, err := h.pricing.priceOffer(h.pricing.expr)
	if err != nil {
		t.Fatal(err)
	}
	h.pricing.static = o
	h.fillCore()
}

// firstReqs are the requirements of the handler's first option at its
// fixed price.
func (h *Handler) firstReqs() x402.PaymentRequirements { return h.pricing.static.parts[0].reqs }

// TestHandlerFlows drives the handler with a fake facilitator, settle
// before and after, through every outcome of spec 4.5's seller rules.
func TestHandlerFlows(t *testing.T) {
	upstreamOK := func(w http.ResponseWriter, r *http.Request) error {
		w.Header().Set("X-Upstream", "yes")
		w.WriteHeader(http.StatusOK)
		_, err := w.Write([]byte("resource"))
		return err
	}
	tests := []struct {
		name        string
		after       bool
		fc          *fakeClient
		upstream    caddyhttp.HandlerFunc
		wantStatus  int    // status written (0: nothing written)
		wantErr     int    // status of the returned caddyhttp error (0: none)
		wantBody    string // substring
		wantPR      bool   // X-PAYMENT-RESPONSE present
		wantSettles int32
		wantNext    bool
	}{
		{name: "before: settled", fc: &fakeClient{verify: x402.Valid(), settle: settled}, upstream: upstreamOK,
			wantStatus: 200, wantBody: "resource", wantPR: true, wantSettles: 1, wantNext: true},
		{name: "before: invalid", fc: &fakeClient{verify: x402.Invalid("Invalid EIP-3009 signature")}, upstream: upstreamOK,
			wantStatus: 402, wantBody: `"invalidReason":"Invalid EIP-3009 signature"`},
		{name: "before: verify unreachable", fc: &fakeClient{verErr: errors.New("dial tcp: refused")}, upstream: upstreamOK,
			wantStatus: 500, wantBody: `{"error":"the payment could not be verified: internal error: dial tcp: refused; try again shortly","x402Version":1}`},
		{name: "before: settle failed", fc: &fakeClient{verify: x402.Valid(), settle: failedSettle}, upstream: upstreamOK,
			wantStatus: 402, wantBody: `"error":"ERC20: transfer amount exceeds balance"`, wantSettles: 1},
		{name: "before: settle unreachable", fc: &fakeClient{verify: x402.Valid(), setErr: &x402.StatusError{Status: 503, Message: "no signer"}}, upstream: upstreamOK,
			wantStatus: 500, wantBody: `{"error":"the payment could not be settled: no signer; try again shortly","x402Version":1}`, wantSettles: 1},
		{name: "before: settle unavailable says what to do once", fc: &fakeClient{verify: x402.Valid(), setErr: &x402.StatusError{Status: 503, Message: "cannot reach the chain of network cronos-testnet; nothing was broadcast, try again shortly"}}, upstream: upstreamOK,
			wantStatus: 500, wantBody: `{"error":"the payment could not be settled: cannot reach the chain of network cronos-testnet; nothing was broadcast, try again shortly","x402Version":1}`, wantSettles: 1},
		{name: "after: settled", after: true, fc: &fakeClient{verify: x402.Valid(), settle: settled}, upstream: upstreamOK,
			wantStatus: 200, wantBody: "resource", wantPR: true, wantSettles: 1, wantNext: true},
		{name: "after: upstream 404 passes, no settle", after: true, fc: &fakeClient{verify: x402.Valid(), settle: settled},
			upstream: func(w http.ResponseWriter, r *http.Request) error {
				http.Error(w, "not here", http.StatusNotFound)
				return nil
			}, wantStatus: 404, wantBody: "not here", wantNext: true},
		{name: "after: settle failed drops the upstream's answer", after: true, fc: &fakeClient{verify: x402.Valid(), settle: failedSettle}, upstream: upstreamOK,
			wantStatus: 402, wantBody: `"error":"ERC20: transfer amount exceeds balance"`, wantSettles: 1, wantNext: true},
		{name: "after: settle unreachable is a 500", after: true, fc: &fakeClient{verify: x402.Valid(), setErr: errors.New("boom")}, upstream: upstreamOK,
			wantStatus: 500, wantBody: `{"error":"the payment could not be settled: internal error: boom; try again shortly","x402Version":1}`, wantSettles: 1, wantNext: true},
		{name: "after: upstream writes nothing", after: true, fc: &fakeClient{verify: x402.Valid(), settle: settled},
			upstream:   func(w http.ResponseWriter, r *http.Request) error { return nil },
			wantStatus: 200, wantPR: true, wantSettles: 1, wantNext: true},
		{name: "after: upstream error, nothing written", after: true, fc: &fakeClient{verify: x402.Valid(), settle: settled},
			upstream: func(w http.ResponseWriter, r *http.Request) error {
				return caddyhttp.Error(http.StatusNotFound, errors.New("no file"))
			}, wantErr: 404, wantNext: true},
		{name: "after: io.Copy path", after: true, fc: &fakeClient{verify: x402.Valid(), settle: settled},
			upstream: func(w http.ResponseWriter, r *http.Request) error {
				_, err := io.Copy(w, strings.NewReader("copied body"))
				return err
			}, wantStatus: 200, wantBody: "copied body", wantPR: true, wantSettles: 1, wantNext: true},
		{name: "after: io.Copy dropped when settle fails", after: true, fc: &fakeClient{verify: x402.Valid(), settle: failedSettle},
			upstream: func(w http.ResponseWriter, r *http.Request) error {
				_, err := io.Copy(w, strings.NewReader("copied body"))
				return err
			}, wantStatus: 402, wantBody: "exceeds balance", wantSettles: 1, wantNext: true},
		{name: "after: flush first settles first", after: true, fc: &fakeClient{verify: x402.Valid(), settle: settled},
			upstream: func(w http.ResponseWriter, r *http.Request) error {
				if err := http.NewResponseController(w).Flush(); err != nil {
					return err
				}
				_, err := w.Write([]byte("streamed"))
				return err
			}, wantStatus: 200, wantBody: "streamed", wantPR: true, wantSettles: 1, wantNext: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, header := testHandler(t, tt.fc, tt.after)
			r := httptest.NewRequest(http.MethodGet, "http://example.com/paid?q=1", nil)
			r.Header.Set("X-Payment", header)
			r.Header.Set(httpx.HeaderTxHash, "0xforged")
			ctx := context.WithValue(r.Context(), caddyhttp.VarsCtxKey, map[string]any{})
			r = r.WithContext(ctx)
			w := httptest.NewRecorder()
			ranNext := false
			err := h.ServeHTTP(w, r, caddyhttp.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
				ranNext = true
				if got := r.Header.Get(httpx.HeaderTxHash); got == "0xforged" {
					t.Errorf("the buyer's %s reached the upstream", httpx.HeaderTxHash)
				}
				if got := r.Header.Get(httpx.HeaderPayment); got != "" {
					t.Errorf("the buyer's %s reached the upstream", httpx.HeaderPayment)
				}
				return tt.upstream(w, r)
			}))

			var he caddyhttp.HandlerError
			switch {
			case tt.wantErr != 0:
				if !errors.As(err, &he) || he.StatusCode != tt.wantErr {
					t.Fatalf("error %v, want a caddyhttp error %d", err, tt.wantErr)
				}
				if w.Code != 200 || w.Body.Len() != 0 || w.Flushed {
					t.Errorf("something was written before the error: %d %q", w.Code, w.Body)
				}
			case err != nil:
				t.Fatalf("unexpected error %v", err)
			default:
				if w.Code != tt.wantStatus {
					t.Errorf("status %d, want %d; body %s", w.Code, tt.wantStatus, w.Body)
				}
			}
			if tt.wantBody != "" && !strings.Contains(w.Body.String(), tt.wantBody) {
				t.Errorf("body %q lacks %q", w.Body, tt.wantBody)
			}
			if tt.wantStatus == 402 {
				var out testutil.Body402
				if err := json.Unmarshal(w.Body.Bytes(), &out); err != nil {
					t.Fatalf("402 body is not JSON: %s", w.Body)
				}
				if out.PaymentRequirements.Resource != "http://example.com/paid?q=1" || len(out.Accepts) != 1 {
					t.Errorf("402 body %s", w.Body)
				}
				if w.Header().Get("X-Upstream") != "" {
					t.Errorf("the upstream's headers went out with the 402")
				}
			}
			if got := w.Header().Get("X-Payment-Response") != ""; got != tt.wantPR {
				t.Errorf("X-PAYMENT-RESPONSE present %v, want %v", got, tt.wantPR)
			}
			if got := tt.fc.settles.Load(); got != tt.wantSettles {
				t.Errorf("settle called %d times, want %d", got, tt.wantSettles)
			}
			if ranNext != tt.wantNext {
				t.Errorf("next handler ran %v, want %v", ranNext, tt.wantNext)
			}
			if tt.fc.lastReq != nil {
				rq := tt.fc.lastReq.PaymentRequirements
				if rq.PayTo != h.PayTo || rq.MaxAmountRequired != "10000" || rq.Resource != "http://example.com/paid?q=1" {
					t.Errorf("facilitator asked with requirements %+v", rq)
				}
			}
		})
	}
}

func TestBodyTemplate(t *testing.T) {
	h, _ := testHandler(t, &fakeClient{}, false)
	for _, resource := range []string{"http://a/b?c=d", "http://a/\"quoted\"\\<tag>&\x01é"} {
		b := h.pricing.static.build("X-PAYMENT header is required", "", resource)
		var out testutil.Body402
		if err := json.Unmarshal(b, &out); err != nil {
			t.Fatalf("not JSON: %v: %s", err, b)
		}
		if out.PaymentRequirements.Resource != resource || out.Accepts[0].Resource != resource {
			t.Errorf("resource %q came back as %q", resource, out.PaymentRequirements.Resource)
		}
		if out.InvalidReason != "" {
			t.Errorf("invalidReason set without a verify verdict")
		}
		if !strings.Contains(string(b), `"description":"","mimeType":""`) {
			t.Errorf("description and mimeType are not always present: %s", b)
		}
	}
}

// TestPaymentHeaderNotForwarded pays routes of a real Caddy, in front of
// an upstream that reports the request headers it got: by default the
// buyer's X-PAYMENT or PAYMENT-SIGNATURE does not reach it (nor,
// therefore, reverse_proxy's debug log of the request), with
// forward_payment_header it does; the X-Payment-* settlement headers
// reach it either way.
func TestPaymentHeaderNotForwarded(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got := map[string][]string{}
		for _, k := range []string{httpx.HeaderPayment, x402.HeaderPaymentSignature, httpx.HeaderFrom, httpx.HeaderTxHash} {
			got[k] = r.Header.Values(k)
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(got)
	}))
	t.Cleanup(up.Close)
	tester := testutil.NewTester(t, testutil.GlobalBlock("")+fmt.Sprintf(`
:%d {
	x402 /before {
		pay_to %[2]s
		amount 1
	}
	x402 /after {
		pay_to %[2]s
		amount 1
		settle after
	}
	x402 /forward {
		pay_to %[2]s
		amount 1
		forward_payment_header
	}
	reverse_proxy %[3]s
}
`, testutil.SitePort, testutil.SellerAddr, up.Listener.Addr()))

	buyer := testutil.BuyerKey(t, devnet.Buyer2PrivateKey)
	from := crypto.PubkeyToAddress(buyer.PublicKey).Hex()
	v1 := func(path string) (string, string) {
		return httpx.HeaderPayment, testutil.Pay(t, buyer, testutil.Require402(t, tester, testutil.SiteURL+path).PaymentRequirements)
	}
	v2 := func(path string) (string, string) {
		resp, _ := testutil.Get(t, tester, testutil.SiteURL+path, nil)
		var pr x402.PaymentRequiredV2
		if err := x402.DecodeBase64JSON(resp.Header.Get(x402.HeaderPaymentRequired), &pr); err != nil || len(pr.Accepts) != 1 {
			t.Fatalf("PAYMENT-REQUIRED of %s: %v", path, err)
		}
		h, _, err := exact.CreatePaymentV2(buyer, pr.Accepts[0], pr.Resource, exact.PaymentOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return x402.HeaderPaymentSignature, h
	}
	tests := []struct {
		name    string
		path    string
		pay     func(string) (string, string)
		forward bool
	}{
		{"X-PAYMENT, settle before", "/before", v1, false},
		{"PAYMENT-SIGNATURE, settle before", "/before", v2, false},
		{"X-PAYMENT, settle after", "/after", v1, false},
		{"PAYMENT-SIGNATURE, settle after", "/after", v2, false},
		{"X-PAYMENT, forward_payment_header", "/forward", v1, true},
		{"PAYMENT-SIGNATURE, forward_payment_header", "/forward", v2, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			name, value := tt.pay(tt.path)
			resp, b := testutil.Get(t, tester, testutil.SiteURL+tt.path, map[string]string{name: value})
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("paid request: %d %s", resp.StatusCode, b)
			}
			var seen map[string][]string
			if err := json.Unmarshal(b, &seen); err != nil {
				t.Fatalf("upstream answer %s: %v", b, err)
			}
			want := map[string][]string{httpx.HeaderPayment: nil, x402.HeaderPaymentSignature: nil, httpx.HeaderFrom: {from}}
			if tt.forward {
				want[name] = []string{value}
			}
			for k, v := range want {
				if !slices.Equal(seen[k], v) {
					t.Errorf("the upstream got %s %.60q, want %.60q", k, seen[k], v)
				}
			}
			// The paywall still reads the header it took away: the
			// settlement goes back in the header of the payment's version.
			v2Answer, v1Answer := resp.Header.Get(x402.HeaderPaymentResponseV2) != "", resp.Header.Get(httpx.HeaderPaymentResponse) != ""
			if isV2 := name == x402.HeaderPaymentSignature; v2Answer != isV2 || v1Answer == isV2 {
				t.Errorf("PAYMENT-RESPONSE present %v, X-PAYMENT-RESPONSE present %v, for a payment in %s", v2Answer, v1Answer, name)
			}
			// The settlement is the upstream's in settle before, not
			// after (the transaction does not exist yet when it runs).
			if hash := seen[httpx.HeaderTxHash]; (len(hash) == 1 && len(hash[0]) == 66) != (tt.path != "/after") {
				t.Errorf("the upstream got %s %q", httpx.HeaderTxHash, hash)
			}
		})
	}
}
