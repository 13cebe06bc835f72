package httpx

import (
	"context"
	"crypto/tls"
	"net/http"
	"testing"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
)

// withTrust is ctx with Caddy's trusted_proxy variable set as the server
// sets it for a peer in (or out of) trusted_proxies.
func withTrust(ctx context.Context, trusted bool) context.Context {
	return context.WithValue(ctx, caddyhttp.VarsCtxKey, map[string]any{caddyhttp.TrustedProxyVarKey: trusted})
}

func TestRequestOrigin(t *testing.T) {
	for _, c := range []struct {
		name          string
		trusted, tls  bool
		proto, host   []string
		scheme, wantH string
	}{
		{"plain", false, false, nil, nil, "http", "inner:8080"},
		{"tls", false, true, nil, nil, "https", "inner:8080"},
		{"untrusted forwarding ignored", false, false, []string{"https"}, []string{"shop.example"}, "http", "inner:8080"},
		{"trusted", true, false, []string{"https"}, []string{"shop.example"}, "https", "shop.example"},
		{"trusted, host with port", true, false, []string{"HTTPS"}, []string{"shop.example:8443"}, "https", "shop.example:8443"},
		{"trusted, IPv6", true, false, []string{"https"}, []string{"[2001:db8::1]:443"}, "https", "[2001:db8::1]:443"},
		{"trusted, the nearest proxy's value", true, false, []string{"http, https"}, []string{"evil.example", "a.example, shop.example"}, "https", "shop.example"},
		{"trusted, http over tls", true, true, []string{"http"}, nil, "http", "inner:8080"},
		{"trusted, bad scheme", true, false, []string{"ftp"}, nil, "http", "inner:8080"},
		{"trusted, bad hosts", true, false, nil, []string{"user@shop.example"}, "http", "inner:8080"},
		{"trusted, host with a path", true, false, nil, []string{"shop.example/x"}, "http", "inner:8080"},
		{"trusted, host with a space", true, false, nil, []string{"shop example"}, "http", "inner:8080"},
		{"trusted, empty", true, false, []string{""}, []string{""}, "http", "inner:8080"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, _ := http.NewRequest(http.MethodGet, "http://inner:8080/x", nil)
			if c.tls {
				r.TLS = new(tls.ConnectionState)
			}
			for _, v := range c.proto {
				r.Header.Add("X-Forwarded-Proto", v)
			}
			for _, v := range c.host {
				r.Header.Add("X-Forwarded-Host", v)
			}
			r = r.WithContext(withTrust(r.Context(), c.trusted))
			if s, h := RequestOrigin(r); s != c.scheme || h != c.wantH {
				t.Errorf("RequestOrigin = %s, %s; want %s, %s", s, h, c.scheme, c.wantH)
			}
			if SecureRequest(r) != (c.scheme == "https") {
				t.Errorf("SecureRequest = %v", SecureRequest(r))
			}
		})
	}
}
