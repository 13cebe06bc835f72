package paywall

import (
	"slices"
	"testing"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
)

// TestUnguardedSites (issue 33): a site whose paywall sits in a handle or
// route block, with nothing that sees every request, is named; one with
// x402_path_guard at its top (or inside a block without a matcher), or a
// top-level x402 (whose directive adds the guard), is not.
func TestUnguardedSites(t *testing.T) {
	path := func(p string) caddyhttp.MatcherSets {
		m := caddyhttp.MatchPath{p}
		return caddyhttp.MatcherSets{{&m}}
	}
	route := func(ms caddyhttp.MatcherSets, hs ...caddyhttp.MiddlewareHandler) caddyhttp.Route {
		return caddyhttp.Route{MatcherSets: ms, Handlers: hs}
	}
	sub := func(routes ...caddyhttp.Route) *caddyhttp.Subroute { return &caddyhttp.Subroute{Routes: routes} }
	respond := &caddyhttp.StaticResponse{}
	inHandle := route(path("/paid"), sub(route(nil, new(Handler)), route(nil, respond)))
	site := func(host string, routes ...caddyhttp.Route) caddyhttp.Route {
		m := caddyhttp.MatchHost{host}
		return route(caddyhttp.MatcherSets{{&m}}, sub(routes...))
	}
	for _, tc := range []struct {
		name   string
		routes caddyhttp.RouteList
		want   []string
	}{
		{"x402 in handle, no guard", caddyhttp.RouteList{inHandle, route(nil, respond)}, []string{":8080"}},
		{"x402 in handle, guard at top", caddyhttp.RouteList{route(nil, new(PathGuard)), inHandle, route(nil, respond)}, nil},
		{"x402 in handle, guard in a route block", caddyhttp.RouteList{route(nil, sub(route(nil, new(PathGuard)))), inHandle}, nil},
		{"x402 in handle, guard in another handle", caddyhttp.RouteList{route(path("/a/*"), sub(route(nil, new(PathGuard)))), inHandle}, []string{":8080"}},
		{"top-level x402 with its guard", caddyhttp.RouteList{route(path("/paid"), new(Handler)), route(nil, new(PathGuard)), route(nil, respond)}, nil},
		{"no paywall", caddyhttp.RouteList{route(nil, respond)}, nil},
		{"sites with hosts", caddyhttp.RouteList{site("a.example", inHandle), site("b.example", route(nil, new(PathGuard)), inHandle)}, []string{"a.example"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			app := &caddyhttp.App{Servers: map[string]*caddyhttp.Server{"srv0": {Listen: []string{":8080"}, Routes: tc.routes}}}
			if got := unguardedSites(app); !slices.Equal(got, tc.want) {
				t.Fatalf("unguarded sites %q, want %q", got, tc.want)
			}
		})
	}
}
