package facilitator_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/caddy-x402/caddy-x402/facilitator"
	"github.com/caddy-x402/caddy-x402/facilitator/exact"
	"github.com/caddy-x402/caddy-x402/facilitator/httpapi"
	"github.com/caddy-x402/caddy-x402/facilitator/network"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// clientFrom is an HTTP client whose connections come from a loopback
// address of its own (127.0.0.2 and so on are all this host's on Linux),
// so that the facilitator sees another client IP.
func clientFrom(t *testing.T, ip string) *http.Client {
	t.Helper()
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
	tr := &http.Transport{DialContext: d.DialContext}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr, Timeout: 30 * time.Second}
}

// TestUnknownAPIKeys: a facilitator with API keys answers an unknown key
// 401, ten times per client IP (DefaultUnknownKeyLimit), then 429 with
// Retry-After and a JSON body, to any key from that IP, the right one
// included, so that a right guess cannot be told from a wrong one. The
// seller with the right key from its own IP is served, and requests
// without a key are not affected. NoRateLimits does not turn this off.
func TestUnknownAPIKeys(t *testing.T) {
	const key = "the-seller-key-0123456789"
	nc := testnetConfig()
	nc.SignerKeys = nil // verify only; the shared facilitator's engine owns the devnet signer
	f, err := facilitator.New(context.Background(), facilitator.Config{Networks: []network.Config{nc}, Logger: testLogger()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	srv := httptest.NewServer(httpapi.New(f, httpapi.Config{APIKeys: []string{key}, NoRateLimits: true}))
	t.Cleanup(srv.Close)
	guesser, seller := clientFrom(t, "127.0.0.1"), clientFrom(t, "127.0.0.2")

	req := requirements(newSeller(t), "1000")
	h, p := pay(t, buyer(0), req, exact.PaymentOptions{})
	payment := body(h, req)
	call := func(c *http.Client, path, auth string) (int, string, string) {
		t.Helper()
		r, _ := http.NewRequest(http.MethodPost, srv.URL+path, bytes.NewReader(payment))
		r.Header.Set("Content-Type", "application/json")
		if auth != "" {
			r.Header.Set("Authorization", auth)
		}
		resp, err := c.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, resp.Header.Get("Retry-After"), string(b)
	}
	const (
		body401 = `{"isValid":false,"invalidReason":"Unknown API key: the Authorization: Bearer key is not one of this facilitator's; send a valid key, or none to be limited per client IP"}` + "\n"
		body429 = `{"isValid":false,"invalidReason":"Too many requests with an unknown API key from this client IP; retry in %[1]s s"}` + "\n"
	)
	valid := fmt.Sprintf(`{"isValid":true,"invalidReason":null,"payer":%q}`+"\n", p.Authorization.From.Hex())

	const guesses = 3000
	start := time.Now()
	unauthorized, first429 := 0, -1
	for i := 0; i < guesses; i++ {
		status, retry, b := call(guesser, x402.PathVerify, fmt.Sprintf("Bearer guess-%d", i))
		switch {
		case status == http.StatusUnauthorized && b == body401:
			unauthorized++
		case status == http.StatusTooManyRequests && b == fmt.Sprintf(body429, retry):
			if s, err := strconv.Atoi(retry); err != nil || s < 1 || s > 6 {
				t.Fatalf("guess %d: Retry-After %q, want 1 to 6 (a guess every 6 s)", i, retry)
			}
			if first429 < 0 {
				first429 = i
			}
		default:
			t.Fatalf("guess %d: %d %s (Retry-After %q); want 401 %s or 429 %s", i, status, b, retry, body401, body429)
		}
	}
	elapsed := time.Since(start)
	t.Logf("%d wrong keys in %s: %d answered 401, %d answered 429, the first at guess %d (0: none)",
		guesses, elapsed.Round(time.Millisecond), unauthorized, guesses-unauthorized, first429+1)
	// Ten at once, then one more every 6 s the loop took.
	if first429 != 10 || unauthorized > 10+int(elapsed/(6*time.Second)) {
		t.Errorf("%d guesses answered 401, the first 429 at guess %d (0: none); want 10 answered 401, then 429 with one more 401 per 6 s", unauthorized, first429+1)
	}

	tests := []struct {
		name       string
		client     *http.Client
		path, auth string
		status     int
		body       string // %[1]s: Retry-After, %[2]s: the answer's timestamp
		wantRetry  bool
	}{
		{"the right key from another IP", seller, x402.PathVerify, "Bearer " + key, http.StatusOK, valid, false},
		{"no key from the guessing IP", guesser, x402.PathVerify, "", http.StatusOK, valid, false},
		{"the right key from the guessing IP", guesser, x402.PathVerify, "Bearer " + key, http.StatusTooManyRequests, body429, true},
		{"a wrong key to settle from the guessing IP", guesser, x402.PathSettle, "Bearer guess", http.StatusTooManyRequests,
			`{"x402Version":1,"event":"payment.failed","network":"","timestamp":"%[2]s","error":"Too many requests with an unknown API key from this client IP; retry in %[1]s s"}` + "\n", true},
		{"a wrong key from another IP", seller, x402.PathVerify, "Bearer guess", http.StatusUnauthorized, body401, false},
	}
	for _, tt := range tests {
		status, retry, b := call(tt.client, tt.path, tt.auth)
		want := tt.body
		if tt.wantRetry {
			want = fmt.Sprintf(tt.body, retry, timestampOf(t, b))
		}
		if status != tt.status || b != want || (retry != "") != tt.wantRetry {
			t.Errorf("%s: %d %s (Retry-After %q); want %d %s", tt.name, status, b, retry, tt.status, want)
		}
	}
}

// timestampOf returns the "timestamp" of a settle answer, which must be
// the time of the answer (within a minute).
func timestampOf(t *testing.T, answer string) string {
	t.Helper()
	m := regexp.MustCompile(`"timestamp":"([^"]*)"`).FindStringSubmatch(answer)
	if m == nil {
		return ""
	}
	if ts, err := time.Parse(time.RFC3339, m[1]); err != nil || time.Since(ts).Abs() > time.Minute {
		t.Errorf("timestamp %q is not the time of the answer", m[1])
	}
	return m[1]
}
