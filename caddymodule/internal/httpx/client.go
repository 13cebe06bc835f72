package httpx

import (
	"net"
	"net/http"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
)

// ClientIP is Caddy's idea of the client IP, which honours the server's
// trusted_proxies; it falls back to the connection's address.
func ClientIP(r *http.Request) string {
	if ip, ok := caddyhttp.GetVar(r.Context(), caddyhttp.ClientIPVarKey).(string); ok && ip != "" {
		return ip
	}
	if host, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
		return host
	}
	return r.RemoteAddr
}
