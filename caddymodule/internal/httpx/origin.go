package httpx

import (
	"net/http"
	"strings"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
)

// The origin a buyer addressed. Behind a proxy that terminates TLS (or
// serves another host name), the request Caddy sees is http:// to the
// inner host; the buyer asked for https:// at the public one. As Caddy
// does for the client IP and reverse_proxy for the X-Forwarded-* headers
// it passes on, the paywall takes the scheme from X-Forwarded-Proto and
// the host from X-Forwarded-Host only when the server trusts the peer as
// a proxy (the server's trusted_proxies, Caddy's trusted_proxy variable),
// and never from anyone else. The resource URLs of the 402, the
// Sign-In-With-X challenge and its check, the route identity of grants
// and the access cookie's Secure flag all use it.

// RequestOrigin is the scheme ("http" or "https") and host the buyer
// addressed: the request's own, or those a trusted proxy forwarded.
// A forwarded value that is not a scheme or a host name is ignored.
func RequestOrigin(r *http.Request) (scheme, host string) {
	scheme, host = "http", r.Host
	if r.TLS != nil {
		scheme = "https"
	}
	if trusted, _ := caddyhttp.GetVar(r.Context(), caddyhttp.TrustedProxyVarKey).(bool); !trusted {
		return scheme, host
	}
	if p := strings.ToLower(lastForwarded(r.Header, "X-Forwarded-Proto")); p == "http" || p == "https" {
		scheme = p
	}
	if h := lastForwarded(r.Header, "X-Forwarded-Host"); validHost(h) {
		host = h
	}
	return scheme, host
}

// SecureRequest reports whether the buyer reached the site over TLS, here
// or at a trusted proxy.
func SecureRequest(r *http.Request) bool {
	scheme, _ := RequestOrigin(r)
	return scheme == "https"
}

// lastForwarded is the last value of a forwarding header: the one the
// nearest proxy (the trusted one) set or appended, as reverse_proxy takes
// it.
func lastForwarded(h http.Header, field string) string {
	vs := h.Values(field)
	if len(vs) == 0 {
		return ""
	}
	v := vs[len(vs)-1]
	if i := strings.LastIndexByte(v, ','); i >= 0 {
		v = v[i+1:]
	}
	return strings.TrimSpace(v)
}

// validHost reports whether h is a host name or IP address with an
// optional port, as a Host header carries it: at most 255 bytes of
// letters, digits and .-_:[] (no user info, path, or spaces).
func validHost(h string) bool {
	if h == "" || len(h) > 255 {
		return false
	}
	for i := 0; i < len(h); i++ {
		c := h[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case c == '.', c == '-', c == '_', c == ':', c == '[', c == ']':
		default:
			return false
		}
	}
	return true
}
