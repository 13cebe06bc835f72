package paywall

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/caddy-x402/caddy-x402/caddymodule/app"
	"github.com/caddy-x402/caddy-x402/facilitator"
	"github.com/caddy-x402/caddy-x402/facilitator/store"
	"github.com/caddy-x402/caddy-x402/facilitator/store/postgres"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
	"github.com/caddy-x402/caddy-x402/internal/pgtest"
)

// stopOnSettle is the fake facilitator (fakeClient) whose settle answers
// "settled" after it has stopped the real PostgreSQL server: the database
// goes away between the money moving and its record, at the one moment a
// test cannot otherwise hit.
type stopOnSettle struct {
	*fakeClient
	stop func()
}

func (s *stopOnSettle) Settle(ctx context.Context, req *x402.Request) (*x402.SettleResponse, error) {
	s.stop()
	return s.fakeClient.Settle(ctx, req)
}

// TestSharedStoreAnswers: with the shared PostgreSQL store, a payment that
// another instance is serving is answered 409 with Retry-After (never a
// final refusal); one that arrives while the database is down is answered
// 503 with Retry-After and nothing is verified or settled; one whose
// money moved just before the database went down is answered 503 with its
// transaction, and the same header again, once the database is back,
// gets the resource without a second settle.
func TestSharedStoreAnswers(t *testing.T) {
	srv := pgtest.Start(t)
	dsn := srv.DSN(t)
	open := func() *postgres.Store {
		p, err := postgres.Open(context.Background(), dsn, postgres.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { p.Close() })
		return p
	}
	a, b := open(), open()
	handler := func(fc facilitator.Client) (*Handler, string) {
		h, header := testHandler(t, &fakeClient{}, false)
		h.core.client = fc
		h.core.redeem = app.NewSharedDeliveries(a.Redemptions(), a.Claims(), func() error { return nil })
		t.Cleanup(func() { h.core.redeem.Destruct() })
		return h, header
	}
	serve := func(h *Handler, header string) (*httptest.ResponseRecorder, bool) {
		r := httptest.NewRequest(http.MethodGet, "http://example.com/paid", nil)
		r.Header.Set("X-Payment", header)
		r = r.WithContext(context.WithValue(r.Context(), caddyhttp.VarsCtxKey, map[string]any{}))
		w := httptest.NewRecorder()
		ran := false
		if err := h.ServeHTTP(w, r, caddyhttp.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
			ran = true
			_, err := w.Write([]byte("resource"))
			return err
		})); err != nil {
			t.Fatal(err)
		}
		return w, ran
	}
	check := func(w *httptest.ResponseRecorder, status int, body string) {
		t.Helper()
		if w.Code != status || w.Body.String() != body {
			t.Fatalf("answer %d %s\nwant %d %s", w.Code, w.Body, status, body)
		}
		if status != 200 && w.Header().Get("Retry-After") != "2" {
			t.Fatalf("Retry-After %q, want 2", w.Header().Get("Retry-After"))
		}
	}

	// Another instance holds the authorization.
	fc := &fakeClient{verify: x402.Valid(), settle: settled}
	h, header := handler(fc)
	payment, err := x402.DecodePaymentHeader(header)
	if err == nil {
		err = payment.ParsePayload()
	}
	if err != nil {
		t.Fatal(err)
	}
	id := authID(h.firstReqs().Network, "exact", payment.Authorization.From, payment.Authorization.Nonce)
	if got, err := b.Claims().Claim(context.Background(), id); got != store.Claimed || err != nil {
		t.Fatalf("claim on b = %v, %v", got, err)
	}
	w, ran := serve(h, header)
	check(w, http.StatusConflict, `{"error":"`+textInFlightUnknown+`","retry":"`+retryInFlight+`","retryAfterSeconds":2,"x402Version":1}`+"\n")
	if ran || fc.settles.Load() != 0 || fc.lastReq != nil {
		t.Fatal("a payment held by another instance was verified, settled or served")
	}
	b.Claims().Release(id)
	if w, ran = serve(h, header); w.Code != 200 || !ran || fc.settles.Load() != 1 {
		t.Fatalf("once released: %d %s, upstream %v, settles %d", w.Code, w.Body, ran, fc.settles.Load())
	}

	// The money moves, then the database goes away before the record.
	fc2 := &fakeClient{verify: x402.Valid(), settle: settled}
	h2, header2 := handler(&stopOnSettle{fakeClient: fc2, stop: func() { srv.Stop(t) }})
	w, ran = serve(h2, header2)
	check(w, http.StatusServiceUnavailable, `{"error":"`+textPaidUnrecorded+`","retry":"`+retryPaidUnrecorded+`","retryAfterSeconds":2,"txHash":"`+settled.TxHash+`","x402Version":1}`+"\n")
	if ran {
		t.Fatal("the upstream ran without a record")
	}

	// While it is down: 503, nothing verified or settled.
	fc3 := &fakeClient{verify: x402.Valid(), settle: settled}
	h3, header3 := handler(fc3)
	w, ran = serve(h3, header3)
	check(w, http.StatusServiceUnavailable, `{"error":"`+textStoreDown+`","retry":"`+retryStoreDown+`","retryAfterSeconds":2,"x402Version":1}`+"\n")
	if ran || fc3.lastReq != nil || fc3.settles.Load() != 0 {
		t.Fatal("a payment was verified or settled while the store was down")
	}

	// Back: the paid buyer's same header gets the resource; the record
	// said settling, so the outcome is looked up (the fake facilitator
	// knows it by its answer) and nothing is settled again.
	srv.Restart(t)
	h2.core.client = fc2
	h2.core.outcomes = outcomesOf(settled)
	deadline := time.Now().Add(20 * time.Second)
	for {
		if w, ran = serve(h2, header2); w.Code == 200 || time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	if w.Code != 200 || !ran || fc2.settles.Load() != 1 {
		t.Fatalf("the paid retry: %d %s, upstream %v, settles %d; want 200, the resource, one settle", w.Code, w.Body, ran, fc2.settles.Load())
	}
}

// knownOutcome is the fake facilitator's look-up (beside fakeClient): it
// knows one settlement, by any key.
type knownOutcome struct{ sr *x402.SettleResponse }

func outcomesOf(sr *x402.SettleResponse) outcomeLookup { return knownOutcome{sr} }

func (k knownOutcome) byTx(context.Context, string) (*x402.SettleResponse, error) {
	return k.sr, nil
}

func (k knownOutcome) byAuthorization(context.Context, string, string, string, string) (*x402.SettleResponse, error) {
	return k.sr, nil
}
