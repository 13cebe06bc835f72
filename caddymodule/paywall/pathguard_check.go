package paywall

import (
	"sort"
	"strings"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"go.uber.org/zap"
)

// A paywall inside a handle or route block covers only the requests of
// that block: the x402_path_guard it adds too. The rest of the site then
// has no guard: /.well-known/x402.json is not answered (the site's other
// handlers answer it, often with an empty 200) and the spellings the guard
// refuses (;, \, control characters) reach the routes outside the block,
// which an upstream may read as the paid path. So at start the paywall
// warns of each site that has a paywall but nothing that sees every one of
// its requests: an x402_path_guard (or an x402 without a matcher) at its
// top level, or in a block without a matcher there.

// checkPathGuards asks the x402 app to look at the sites when the config
// starts, once per config, and warns of each unguarded one.
func (h *Handler) checkPathGuards(ctx caddy.Context) {
	if h.app == nil {
		return // no x402 app to run the check: a remote facilitator's route without one
	}
	logger := h.logger
	h.app.OnStart("paywall: x402_path_guard", func() {
		appIface, err := ctx.AppIfConfigured("http")
		if err != nil {
			return
		}
		if app, ok := appIface.(*caddyhttp.App); ok {
			for _, site := range unguardedSites(app) {
				logger.Warn("an x402 paywall sits inside a handle or route block and nothing guards the rest of the site: its /.well-known/x402.json is not served (the site's other handlers answer it), and paths with ; \\ or control characters reach the routes outside the block unrefused; put x402_path_guard (no arguments) at the top level of the site block",
					zap.String("site", site))
			}
		}
	})
}

// unguardedSites names the sites of app (their hosts, or the server's
// addresses for a site without a host) that hold an x402 handler but
// nothing that sees every request: an x402_path_guard or an x402 handler
// reached through routes without a matcher only.
func unguardedSites(app *caddyhttp.App) []string {
	var out []string
	names := make([]string, 0, len(app.Servers))
	for name := range app.Servers {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		srv := app.Servers[name]
		var top caddyhttp.RouteList
		for _, rt := range srv.Routes {
			// A Caddyfile site with a host is a route matching its hosts
			// whose one handler is the site's subroute.
			if hosts := hostsOf(rt); hosts != nil && len(rt.Handlers) == 1 {
				if sr, ok := rt.Handlers[0].(*caddyhttp.Subroute); ok {
					if paid(sr.Routes) && !covered(sr.Routes) {
						out = append(out, strings.Join(hosts, ", "))
					}
					continue
				}
			}
			top = append(top, rt)
		}
		if paid(top) && !covered(top) {
			out = append(out, strings.Join(srv.Listen, ", "))
		}
	}
	return out
}

// hostsOf is the hosts of a route's host matcher, nil without one.
func hostsOf(rt caddyhttp.Route) []string {
	for _, set := range rt.MatcherSets {
		for _, m := range set {
			if mh, ok := m.(*caddyhttp.MatchHost); ok {
				return []string(*mh)
			}
		}
	}
	return nil
}

// paid reports whether routes hold an x402 handler, at any depth.
func paid(routes caddyhttp.RouteList) bool {
	for _, rt := range routes {
		for _, hd := range rt.Handlers {
			switch x := hd.(type) {
			case *Handler:
				return true
			case *caddyhttp.Subroute:
				if paid(x.Routes) {
					return true
				}
			}
		}
	}
	return false
}

// covered reports whether a guard (x402_path_guard, or an x402 handler)
// sees every request of routes: it is reached through routes without a
// matcher only.
func covered(routes caddyhttp.RouteList) bool {
	for _, rt := range routes {
		if len(rt.MatcherSets) > 0 {
			continue
		}
		for _, hd := range rt.Handlers {
			switch x := hd.(type) {
			case *PathGuard, *Handler:
				return true
			case *caddyhttp.Subroute:
				if covered(x.Routes) {
					return true
				}
			}
		}
	}
	return false
}
