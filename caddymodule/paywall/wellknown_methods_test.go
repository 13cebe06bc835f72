package paywall

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/caddy-x402/caddy-x402/caddymodule/internal/testutil"
)

// wellKnownMethodsSite has a discoverable paid route and, after it, the
// handler every other request reaches (the seller's upstream).
const wellKnownMethodsSite = `
:%d {
	x402 /paid {
		pay_to 0x1111111111111111111111111111111111111111
		amount 21
		network eip155:338
	}
	respond "the next handler" 200
}
`

// TestWellKnownMethods: the well-known answers (x402.json, did.json and
// the receipt look-up) take GET and HEAD; any other method gets 405 with
// Allow, and OPTIONS (a CORS preflight) 204, so that none reaches the
// site's next handler, the seller's upstream (before, a POST fell through
// to it). A path the site does not answer (no receipt keys: no did.json,
// no look-up) still goes to the next handler, whatever the method.
func TestWellKnownMethods(t *testing.T) {
	const notAllowed = `{"error":"%s is not answered here: ask with GET"}` + "\n"
	do := func(t *testing.T, method, path string) (*http.Response, string) {
		t.Helper()
		req, err := http.NewRequest(method, testutil.SiteURL+path, strings.NewReader(`{"x":1}`))
		if err != nil {
			t.Fatal(err)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, string(b)
	}
	type want struct {
		status int
		body   string // "" : not checked
	}
	for _, site := range []struct {
		name, global string
		cases        map[string]map[string]want // path -> method -> answer
	}{
		{"receipt keys", "receipt_key {env.X402_TEST_RECEIPT_A}", map[string]map[string]want{
			"/.well-known/x402.json": {
				http.MethodGet: {200, ""}, http.MethodHead: {200, ""}, http.MethodOptions: {204, ""},
				http.MethodPost: {405, fmt.Sprintf(notAllowed, "POST")}, http.MethodPut: {405, fmt.Sprintf(notAllowed, "PUT")},
				http.MethodDelete: {405, fmt.Sprintf(notAllowed, "DELETE")}},
			"/.well-known/did.json": {
				http.MethodGet: {200, ""}, http.MethodOptions: {204, ""}, http.MethodPost: {405, fmt.Sprintf(notAllowed, "POST")},
				http.MethodPatch: {405, fmt.Sprintf(notAllowed, "PATCH")}},
			"/.well-known/x402/receipt": {
				http.MethodGet: {400, ""}, http.MethodPost: {405, fmt.Sprintf(notAllowed, "POST")}, http.MethodOptions: {204, ""}},
			"/other": {http.MethodPost: {200, "the next handler"}},
		}},
		{"no receipt keys", "", map[string]map[string]want{
			"/.well-known/x402.json":    {http.MethodPost: {405, fmt.Sprintf(notAllowed, "POST")}},
			"/.well-known/did.json":     {http.MethodGet: {200, "the next handler"}, http.MethodPost: {200, "the next handler"}},
			"/.well-known/x402/receipt": {http.MethodPost: {200, "the next handler"}},
		}},
	} {
		t.Run(site.name, func(t *testing.T) {
			t.Setenv("X402_TEST_RECEIPT_A", receiptKeyA)
			testutil.NewTester(t, testutil.GlobalBlock(site.global)+fmt.Sprintf(wellKnownMethodsSite, testutil.SitePort))
			for path, methods := range site.cases {
				for method, w := range methods {
					resp, body := do(t, method, path)
					if resp.StatusCode != w.status || (w.body != "" && body != w.body) {
						t.Errorf("%s %s = %d %q, want %d %q", method, path, resp.StatusCode, body, w.status, w.body)
						continue
					}
					if resp.StatusCode == 405 || resp.StatusCode == 204 {
						if got := resp.Header.Get("Allow"); got != "GET, HEAD, OPTIONS" {
							t.Errorf("%s %s: Allow %q", method, path, got)
						}
						if got := resp.Header.Get("Access-Control-Allow-Origin"); got != "*" {
							t.Errorf("%s %s: Access-Control-Allow-Origin %q", method, path, got)
						}
					}
					if resp.StatusCode == 204 && resp.Header.Get("Access-Control-Allow-Methods") != "GET, HEAD, OPTIONS" {
						t.Errorf("%s %s: Access-Control-Allow-Methods %q", method, path, resp.Header.Get("Access-Control-Allow-Methods"))
					}
				}
			}
		})
	}
}
