package paywall

import (
	"encoding/json"
	"strings"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"
)

func init() {
	httpcaddyfile.RegisterDirective("x402", parseHandlerRoute)
}

// parseHandlerRoute is the x402 directive: as a handler directive (its
// matcher wraps it in a route), and with access, the path of its path
// matcher as the route's AccessPath when none is given. With a matcher, it
// adds an unscoped x402_path_guard route beside its own.
func parseHandlerRoute(h httpcaddyfile.Helper) ([]httpcaddyfile.ConfigValue, error) {
	if !h.Next() {
		return nil, h.ArgErr()
	}
	matcherSet, err := h.ExtractMatcherSet()
	if err != nil {
		return nil, err
	}
	val, err := parseHandler(h)
	if err != nil {
		return nil, err
	}
	if m, ok := val.(*Handler); ok && m.Access > 0 && m.AccessPath == "" {
		m.AccessPath = matcherPathPrefix(matcherSet)
	}
	routes := h.NewRoute(matcherSet, val)
	if len(matcherSet) > 0 {
		// A path the matcher does not match may still name a resource
		// behind it to the upstream (/api;x/premium beside x402 /api/*):
		// refuse such spellings on every request of the block (paths.go).
		routes = append(routes, h.NewRoute(nil, new(PathGuard))...)
	}
	return routes, nil
}

// matcherPathPrefix is the path prefix of a matcher set whose path
// matcher has one pattern: /api/* gives /api/, /article gives /article,
// /api* gives / (a cookie's Path matches whole segments). "" when there is
// no such prefix.
func matcherPathPrefix(ms caddy.ModuleMap) string {
	raw, ok := ms["path"]
	if !ok {
		return ""
	}
	var paths []string
	if json.Unmarshal(raw, &paths) != nil || len(paths) != 1 {
		return ""
	}
	p := paths[0]
	if !strings.HasPrefix(p, "/") {
		return ""
	}
	body := strings.TrimSuffix(p, "*")
	if strings.ContainsAny(body, "*?[%") {
		return ""
	}
	if body == p {
		return p // an exact path
	}
	return body[:strings.LastIndexByte(body, '/')+1]
}
