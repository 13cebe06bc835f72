package paywall

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/caddy-x402/caddy-x402/caddymodule/app"
	"github.com/caddy-x402/caddy-x402/facilitator/store"
	"github.com/caddy-x402/caddy-x402/facilitator/store/postgres"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
	"github.com/caddy-x402/caddy-x402/internal/pgtest"
)

// TestClaimLostNotDeliveredTwice: instance A settles a payment and runs
// the upstream; meanwhile A is paused past its lease (its lease row ends)
// and instance B, sent the same payment, takes the claim over, finds it
// paid and delivers it. When A's upstream answer begins, marking the
// payment delivered is refused (the claim row is B's): A drops the
// upstream's answer and tells its buyer so (409, the transaction), B's
// record stands, and the payment was settled once and delivered once.
func TestClaimLostNotDeliveredTwice(t *testing.T) {
	dsn := pgtest.Shared(t).DSN(t)
	open := func() *postgres.Store {
		p, err := postgres.Open(context.Background(), dsn, postgres.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { p.Close() })
		return p
	}
	a, b := open(), open()
	fc := &fakeClient{verify: x402.Valid(), settle: settled}
	hA, header := testHandler(t, fc, false)
	hA.core.redeem = app.NewSharedDeliveries(a.Redemptions(), a.Claims(), func() error { return nil })
	t.Cleanup(func() { hA.core.redeem.Destruct() })
	hB, _ := testHandler(t, fc, false)
	hB.core.redeem = app.NewSharedDeliveries(b.Redemptions(), b.Claims(), func() error { return nil })
	t.Cleanup(func() { hB.core.redeem.Destruct() })

	request := func() *http.Request {
		r := httptest.NewRequest(http.MethodGet, "http://example.com/paid", nil)
		r.Header.Set("X-Payment", header)
		return r.WithContext(context.WithValue(r.Context(), caddyhttp.VarsCtxKey, map[string]any{}))
	}
	upstreamRuns := 0
	var wB *httptest.ResponseRecorder
	next := caddyhttp.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		upstreamRuns++
		if upstreamRuns == 1 {
			// A's upstream runs: A is paused past its lease, and B serves
			// the buyer's copy of the payment meanwhile.
			if _, err := a.Pool().Exec(context.Background(), `UPDATE x402_instances SET expires_at = clock_timestamp() - interval '1 second' WHERE id = $1`, a.Instance()); err != nil {
				t.Fatal(err)
			}
			wB = httptest.NewRecorder()
			if err := hB.ServeHTTP(wB, request(), caddyhttp.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
				upstreamRuns++
				_, err := w.Write([]byte("resource from B"))
				return err
			})); err != nil {
				t.Fatal(err)
			}
		}
		_, err := w.Write([]byte("resource from A"))
		return err
	})
	wA := httptest.NewRecorder()
	if err := hA.ServeHTTP(wA, request(), next); err != nil {
		t.Fatal(err)
	}

	if wB == nil || wB.Code != http.StatusOK || wB.Body.String() != "resource from B" {
		t.Fatalf("B's answer: %v", wB)
	}
	want := `{"error":"` + textClaimLost + `","retry":"` + retryClaimLost + `","retryAfterSeconds":2,"txHash":"` + settled.TxHash + `","x402Version":1}` + "\n"
	if wA.Code != http.StatusConflict || wA.Body.String() != want || wA.Header().Get("Retry-After") != "2" {
		t.Fatalf("A's answer: %d Retry-After %q %s\nwant 409 Retry-After 2 %s", wA.Code, wA.Header().Get("Retry-After"), wA.Body, want)
	}
	if got := fc.settles.Load(); got != 1 {
		t.Fatalf("settles: %d, want 1", got)
	}
	id := authID(hA.firstReqs().Network, "exact", mustPayment(t, header).Authorization.From, mustPayment(t, header).Authorization.Nonce)
	rec, err := b.Redemptions().Get(id)
	if err != nil || rec == nil || rec.State != store.RedeemDelivered || rec.TxHash != settled.TxHash {
		t.Fatalf("record: %+v, %v; want delivered with the settlement", rec, err)
	}
}

func mustPayment(t *testing.T, header string) *x402.Payment {
	t.Helper()
	p, err := x402.DecodePaymentHeader(header)
	if err == nil {
		err = p.ParsePayload()
	}
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// takeOverOnSettle is the fake facilitator whose settle, once the money
// moved, runs after: another instance takes the payment over there.
type takeOverOnSettle struct {
	*fakeClient
	after func()
}

func (s *takeOverOnSettle) Settle(ctx context.Context, req *x402.Request) (*x402.SettleResponse, error) {
	sr, err := s.fakeClient.Settle(ctx, req)
	s.after()
	return sr, err
}

// TestClaimLostSettleAfter: on a settle-after route, instance A settles
// as its upstream's answer begins; while the settlement is under way A is
// paused past its lease and instance B takes the buyer's copy over, finds
// the payment settled (the facilitator's look-up) and delivers it. A's
// write of the delivered record is refused: A drops its upstream's answer
// and answers 409 with the transaction; the payment was settled once and
// delivered once, by B.
func TestClaimLostSettleAfter(t *testing.T) {
	dsn := pgtest.Shared(t).DSN(t)
	open := func() *postgres.Store {
		p, err := postgres.Open(context.Background(), dsn, postgres.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { p.Close() })
		return p
	}
	a, b := open(), open()
	fc := &fakeClient{verify: x402.Valid(), settle: settled}
	hA, header := testHandler(t, fc, true)
	hA.core.redeem = app.NewSharedDeliveries(a.Redemptions(), a.Claims(), func() error { return nil })
	t.Cleanup(func() { hA.core.redeem.Destruct() })
	hB, _ := testHandler(t, fc, true)
	hB.core.redeem = app.NewSharedDeliveries(b.Redemptions(), b.Claims(), func() error { return nil })
	t.Cleanup(func() { hB.core.redeem.Destruct() })
	hB.core.outcomes = outcomesOf(settled)

	request := func() *http.Request {
		r := httptest.NewRequest(http.MethodGet, "http://example.com/paid", nil)
		r.Header.Set("X-Payment", header)
		return r.WithContext(context.WithValue(r.Context(), caddyhttp.VarsCtxKey, map[string]any{}))
	}
	upstreamRuns := 0
	var wB *httptest.ResponseRecorder
	hA.core.client = &takeOverOnSettle{fakeClient: fc, after: func() {
		if _, err := a.Pool().Exec(context.Background(), `UPDATE x402_instances SET expires_at = clock_timestamp() - interval '1 second' WHERE id = $1`, a.Instance()); err != nil {
			t.Fatal(err)
		}
		wB = httptest.NewRecorder()
		if err := hB.ServeHTTP(wB, request(), caddyhttp.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
			upstreamRuns++
			_, err := w.Write([]byte("resource from B"))
			return err
		})); err != nil {
			t.Fatal(err)
		}
	}}
	wA := httptest.NewRecorder()
	if err := hA.ServeHTTP(wA, request(), caddyhttp.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		upstreamRuns++
		_, err := w.Write([]byte("resource from A"))
		return err
	})); err != nil {
		t.Fatal(err)
	}

	if wB == nil || wB.Code != http.StatusOK || wB.Body.String() != "resource from B" {
		t.Fatalf("B's answer: %v", wB)
	}
	want := `{"error":"` + textClaimLost + `","retry":"` + retryClaimLost + `","retryAfterSeconds":2,"txHash":"` + settled.TxHash + `","x402Version":1}` + "\n"
	if wA.Code != http.StatusConflict || wA.Body.String() != want || wA.Header().Get("Retry-After") != "2" {
		t.Fatalf("A's answer: %d Retry-After %q %s\nwant 409 Retry-After 2 %s", wA.Code, wA.Header().Get("Retry-After"), wA.Body, want)
	}
	if got := fc.settles.Load(); got != 1 {
		t.Fatalf("settles: %d, want 1", got)
	}
	p := mustPayment(t, header)
	rec, err := b.Redemptions().Get(authID(hA.firstReqs().Network, "exact", p.Authorization.From, p.Authorization.Nonce))
	if err != nil || rec == nil || rec.State != store.RedeemDelivered || rec.TxHash != settled.TxHash {
		t.Fatalf("record: %+v, %v; want delivered with the settlement", rec, err)
	}
}
