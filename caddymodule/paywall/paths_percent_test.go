package paywall

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
)

// TestAllowEncodedPercent (issue 33): allow_encoded_percent lets a path
// holding %25 through, priced as decoded once; every other refusal stays,
// and without the option %25 is refused as before.
func TestAllowEncodedPercent(t *testing.T) {
	d := caddyfile.NewTestDispenser("x402 {\npay_to 0x5e11e5e11e5e11e5e11e5e11e5e11e5e11e5e11e\nprice 0.01\nallow_encoded_percent\n}")
	var h Handler
	if err := h.UnmarshalCaddyfile(d); err != nil || !h.AllowEncodedPercent {
		t.Fatalf("allow_encoded_percent: %v, set %v", err, h.AllowEncodedPercent)
	}
	for _, tt := range []struct {
		target  string
		allow   bool
		refusal string
		path    string
	}{
		{"/pp/100%25-ready", true, "", "/pp/100%-ready"},
		{"/pp/100%25-ready", false, textPathPercent, ""},
		{"/pp/de%2far", true, textPathSlash, ""},
		{"/pp;a/de%25ar", true, textPathParameter, ""},
	} {
		r := httptest.NewRequest("GET", "http://shop.example"+tt.target, nil)
		r = r.WithContext(context.WithValue(r.Context(), caddyhttp.OriginalRequestCtxKey, *r.Clone(r.Context())))
		w := httptest.NewRecorder()
		handled, err := canonicalRequest(w, r, tt.allow)
		switch {
		case err != nil:
			t.Errorf("%s (allow %v): %v", tt.target, tt.allow, err)
		case tt.refusal == "" && (handled || r.URL.Path != tt.path):
			t.Errorf("%s (allow %v): handled %v, path %q; want served as %q", tt.target, tt.allow, handled, r.URL.Path, tt.path)
		case tt.refusal != "" && (!handled || pathAnswerOf(t, w.Body.String()).Error != tt.refusal):
			t.Errorf("%s (allow %v): handled %v, %q; want %q", tt.target, tt.allow, handled, w.Body, tt.refusal)
		}
	}
}
