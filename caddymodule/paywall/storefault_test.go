package paywall

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/caddy-x402/caddy-x402/facilitator/store"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// failingOutcome is a look-up that fails with err.
type failingOutcome struct{ err error }

func (f failingOutcome) byTx(context.Context, string) (*x402.SettleResponse, error) {
	return nil, f.err
}

func (f failingOutcome) byAuthorization(context.Context, string, string, string, string) (*x402.SettleResponse, error) {
	return nil, f.err
}

// TestStoreFaultAnswers: a payment that the facilitator's shared store
// could not take, at any step, is answered 503 with Retry-After 2, what
// was done and what to do (never 500), and its record goes when nothing
// was broadcast; a fault that is not the store's stays a 500.
func TestStoreFaultAnswers(t *testing.T) {
	// What the embedded facilitator returns (facilitator/scheme/errors.go), and
	// what a remote one's client makes of its answer.
	const facilitatorText = "the facilitator's settlement store (PostgreSQL) cannot be reached; nothing was broadcast, try again shortly"
	unreachable := &x402.StatusError{Status: 503, Message: facilitatorText, Err: fmt.Errorf("%w: dial tcp: i/o timeout", store.ErrUnavailable)}
	fenced := &x402.StatusError{Status: 503, Message: facilitatorText, Err: store.ErrFenced}
	remote := &x402.StatusError{Status: 503, Message: "facilitator answered HTTP 503: " + facilitatorText}
	retry := `"retry":"send the same request again with the same payment header shortly: it is served once the store answers, and charged at most once","retryAfterSeconds":2,"x402Version":1}`
	notSettled := `{"error":"the payment store cannot be reached, so this payment was not settled: nothing was broadcast or charged",` + retry
	notTaken := `{"error":"the payment store cannot be reached, so this payment was not taken: nothing was settled or charged",` + retry
	notRead := `{"error":"the payment store cannot be reached, so the outcome of an earlier attempt with this payment cannot be read now: nothing more was charged for this request",` + retry
	tests := []struct {
		name       string
		after      bool
		fc         *fakeClient
		earlier    bool          // a record of an earlier attempt, settling
		outcomes   outcomeLookup // its look-up
		wantStatus int
		wantBody   string // exact
		wantRecord bool   // the redemption record stays
		wantNext   bool
	}{
		{name: "settle: the store out of reach", fc: &fakeClient{verify: x402.Valid(), setErr: unreachable},
			wantStatus: 503, wantBody: notSettled},
		{name: "settle: the lease does not hold", fc: &fakeClient{verify: x402.Valid(), setErr: fenced},
			wantStatus: 503, wantBody: notSettled},
		{name: "settle: a remote facilitator's store", fc: &fakeClient{verify: x402.Valid(), setErr: remote},
			wantStatus: 503, wantBody: notSettled},
		{name: "settle after: the store out of reach", after: true, fc: &fakeClient{verify: x402.Valid(), setErr: unreachable},
			wantStatus: 503, wantBody: notSettled, wantNext: true},
		{name: "verify: the store out of reach", fc: &fakeClient{verErr: unreachable},
			wantStatus: 503, wantBody: notTaken},
		{name: "an earlier attempt's outcome unreadable", fc: &fakeClient{verify: x402.Valid(), settle: settled},
			earlier: true, outcomes: failingOutcome{fmt.Errorf("%w: conn closed", store.ErrUnavailable)},
			wantStatus: 503, wantBody: notRead, wantRecord: true},
		{name: "not the store: a 500 as before", fc: &fakeClient{verify: x402.Valid(), setErr: &x402.StatusError{Status: 503, Message: "no signer"}},
			wantStatus: 500, wantBody: `{"error":"the payment could not be settled: no signer; try again shortly","x402Version":1}`},
		{name: "not the store: an earlier attempt's outcome unknown", fc: &fakeClient{verify: x402.Valid(), settle: settled},
			earlier: true, outcomes: failingOutcome{errors.New("chain unreachable")},
			wantStatus: 500, wantRecord: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, header := testHandler(t, tt.fc, tt.after)
			p, err := x402.DecodePaymentHeader(header)
			if err != nil || p.ParsePayload() != nil {
				t.Fatal(err)
			}
			id := authID(h.firstReqs().Network, "exact", p.Authorization.From, p.Authorization.Nonce)
			r := httptest.NewRequest(http.MethodGet, "http://example.com/paid", nil)
			r.Header.Set("X-Payment", header)
			r = r.WithContext(context.WithValue(r.Context(), caddyhttp.VarsCtxKey, map[string]any{}))
			if tt.earlier {
				h.core.outcomes = tt.outcomes
				if err := h.core.redeem.Store().Put(id, &redemption{Route: h.core.routeKey(r), State: redeemSettling}); err != nil {
					t.Fatal(err)
				}
			}
			w := httptest.NewRecorder()
			ranNext := false
			err = h.ServeHTTP(w, r, caddyhttp.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
				ranNext = true
				_, err := w.Write([]byte("resource"))
				return err
			}))
			if err != nil {
				t.Fatalf("error %v", err)
			}
			body := strings.TrimSpace(w.Body.String())
			if w.Code != tt.wantStatus || (tt.wantBody != "" && body != tt.wantBody) {
				t.Errorf("answer %d %s\nwant %d %s", w.Code, body, tt.wantStatus, tt.wantBody)
			}
			wantRetry := map[int]string{503: "2", 500: "5"}[tt.wantStatus]
			if got := w.Header().Get("Retry-After"); got != wantRetry {
				t.Errorf("Retry-After %q, want %q", got, wantRetry)
			}
			if ranNext != tt.wantNext {
				t.Errorf("upstream ran %v, want %v", ranNext, tt.wantNext)
			}
			if rec, err := h.core.redeem.Store().Get(id); err != nil || (rec != nil) != tt.wantRecord {
				t.Errorf("the redemption record after the answer: %+v, %v; want it kept %v", rec, err, tt.wantRecord)
			}
		})
	}
}
