package discovery

import (
	"net"
	"net/http"
	"sort"
	"strconv"
	"strings"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp/rewrite"

	"github.com/caddy-x402/caddy-x402/caddymodule/facilitatorapi"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// The paid routes as the servers reach them: the provisioned route tree
// of Caddy's http app (the same handlers that answer the 402s), walked
// with the host, path and method matchers on the way to each x402
// handler.

// discoveredRoute is an x402 handler's listing with the matchers that
// lead to it.
type discoveredRoute struct {
	l Listing
	// hosts are the host names of the host matchers on its way; nil for
	// any host.
	hosts []string
	// path is its path pattern (the innermost path matcher, under the
	// prefix a handle_path strips); "" for every path.
	path string
	// prefix is the path prefix stripped on its way (handle_path).
	prefix string
	// methods are its method matcher's methods; nil for any method.
	methods []string
}

// walkRoutes appends the discoverable x402 handlers reached through
// routes to out. A route with several matcher sets (any of which may
// match) reaches its handlers once per set.
func walkRoutes(routes caddyhttp.RouteList, at discoveredRoute, out *[]discoveredRoute) {
	for _, rt := range routes {
		if len(rt.MatcherSets) == 0 {
			// handle_path strips its prefix in a route of its own, ahead
			// of the block's routes.
			for _, hd := range rt.Handlers {
				if x, ok := hd.(*rewrite.Rewrite); ok && x.StripPathPrefix != "" {
					at.prefix = joinPrefix(at.prefix, x.StripPathPrefix)
				}
			}
		}
		sets := rt.MatcherSets
		if len(sets) == 0 {
			sets = caddyhttp.MatcherSets{nil}
		}
		for _, set := range sets {
			c := at
			paths := []string{c.path}
			for _, m := range set {
				switch m := m.(type) {
				case *caddyhttp.MatchHost:
					c.hosts = []string(*m)
				case *caddyhttp.MatchPath:
					paths = nil
					for _, p := range *m {
						paths = append(paths, joinPrefix(c.prefix, p))
					}
				case *caddyhttp.MatchMethod:
					c.methods = []string(*m)
				}
			}
			for _, p := range paths {
				cp := c
				cp.path = p
				for _, hd := range rt.Handlers {
					switch x := hd.(type) {
					case Paid:
						if l, ok := x.Listing(); ok {
							found := cp
							found.l = l
							*out = append(*out, found)
						}
					case *caddyhttp.Subroute:
						walkRoutes(x.Routes, cp, out)
					case *rewrite.Rewrite:
						if x.StripPathPrefix != "" {
							cp.prefix = joinPrefix(cp.prefix, x.StripPathPrefix)
						}
					}
				}
			}
		}
	}
}

// joinPrefix is pattern p under a stripped prefix.
func joinPrefix(prefix, p string) string {
	if prefix == "" || p == "" {
		return p
	}
	return strings.TrimSuffix(prefix, "/") + "/" + strings.TrimPrefix(p, "/")
}

// siteRoutes are the paid routes of the site that serves r: the routes
// of r's server whose host matchers match r (a site block is a route with
// a host matcher), up to the first terminal one, and within them the
// routes whose inner host matchers match r.
func siteRoutes(r *http.Request) []discoveredRoute {
	srv, _ := r.Context().Value(caddyhttp.ServerCtxKey).(*caddyhttp.Server)
	if srv == nil {
		return nil
	}
	var all []discoveredRoute
	for _, rt := range srv.Routes {
		if !hostsMatch(rt.MatcherSets, r) {
			continue
		}
		walkRoutes(caddyhttp.RouteList{rt}, discoveredRoute{}, &all)
		if rt.Terminal && len(rt.MatcherSets) > 0 {
			break
		}
	}
	var out []discoveredRoute
	for _, p := range all {
		if p.hosts == nil || matchesHost(p.hosts, r) {
			out = append(out, p)
		}
	}
	return out
}

// hostsMatch reports whether some matcher set's host matcher matches r
// (a set without one counts as matching).
func hostsMatch(sets caddyhttp.MatcherSets, r *http.Request) bool {
	if len(sets) == 0 {
		return true
	}
	for _, set := range sets {
		ok := true
		for _, m := range set {
			if mh, is := m.(*caddyhttp.MatchHost); is {
				if match, err := mh.MatchWithError(r); err != nil || !match {
					ok = false
				}
			}
		}
		if ok {
			return true
		}
	}
	return false
}

func matchesHost(hosts []string, r *http.Request) bool {
	mh := caddyhttp.MatchHost(hosts)
	ok, err := mh.MatchWithError(r)
	return err == nil && ok
}

func init() { facilitatorapi.ListResources(ownResources) }

// ownResources are the discovery list entries, ordered by URL, of every
// discoverable x402 route of this Caddy that uses the embedded facilitator,
// for the facilitator's list. A route's URL comes from the configuration,
// never from the request: its site's origin with its path pattern, the
// host of its host matcher (one entry per host), or for a site without one
// its server's bind address, else localhost; the scheme and port its
// server listens with. A server that listens on loopback addresses only is
// not listed, but for routes with discovery always.
func ownResources(_ *http.Request) []x402.DiscoveryItem {
	appIface, err := caddy.ActiveContext().AppIfConfigured("http")
	if err != nil {
		return nil
	}
	app, _ := appIface.(*caddyhttp.App)
	if app == nil {
		return nil
	}
	names := make([]string, 0, len(app.Servers))
	for name := range app.Servers {
		names = append(names, name)
	}
	sort.Strings(names)
	var out []x402.DiscoveryItem
	for _, name := range names {
		srv := app.Servers[name]
		var routes []discoveredRoute
		walkRoutes(srv.Routes, discoveredRoute{}, &routes)
		local := loopbackOnly(srv)
		for _, p := range routes {
			if p.l.Remote {
				continue // another facilitator lists it
			}
			if local && !p.l.Always {
				continue // reachable from this machine only
			}
			var origins []string
			for _, host := range p.hosts {
				if !strings.ContainsAny(host, "*{") {
					origins = append(origins, serverOrigin(srv, host))
				}
			}
			if p.hosts == nil {
				origins = []string{serverOrigin(srv, hostlessHost(srv))}
			}
			for _, o := range origins {
				out = append(out, p.l.discoveryItems(o+routePattern(p.path), p.methods)...)
			}
		}
	}
	// By URL, as the catalog lists by key: the same order whatever the
	// servers are called.
	sort.SliceStable(out, func(i, k int) bool { return out[i].Resource < out[k].Resource })
	return out
}

// serverOrigin is the origin of host on a server: https when it has TLS
// connection policies, with its first listener's port unless that is the
// scheme's default.
func serverOrigin(srv *caddyhttp.Server, host string) string {
	scheme, def := "http", uint(80)
	if len(srv.TLSConnPolicies) > 0 {
		scheme, def = "https", 443
	}
	port := uint(0)
	if len(srv.Listen) > 0 {
		if na, err := caddy.ParseNetworkAddress(srv.Listen[0]); err == nil {
			port = na.StartPort
		}
	}
	if port == 0 || port == def {
		if strings.Contains(host, ":") {
			host = "[" + host + "]" // an IPv6 bind address
		}
		return scheme + "://" + host
	}
	return scheme + "://" + net.JoinHostPort(host, strconv.FormatUint(uint64(port), 10))
}

// routePattern is a route's path pattern as listed: the pattern of its
// path matcher, or /* for every path.
func routePattern(p string) string {
	if p == "" {
		return "/*"
	}
	return p
}

// routeTemplate is the bazaar route template of a path pattern whose
// wildcards are whole middle segments (/users/*/posts gives
// /users/:var1/posts, as the reference servers name them); "" for a static
// path or a prefix pattern (/api/*), whose pattern stands in the URL.
func routeTemplate(p string) string {
	if !strings.Contains(p, "*") || strings.HasSuffix(p, "*") || !strings.HasPrefix(p, "/") {
		return ""
	}
	segs := strings.Split(p, "/")
	n := 0
	for i, s := range segs {
		if s == "*" {
			n++
			segs[i] = ":var" + strconv.Itoa(n)
		} else if strings.ContainsAny(s, "*?[") {
			return ""
		}
	}
	return strings.Join(segs, "/")
}
