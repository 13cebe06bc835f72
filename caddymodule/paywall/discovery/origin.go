package discovery

import (
	"context"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/caddy-x402/caddy-x402/caddymodule/facilitatorapi"
)

// The origins of this Caddy's servers as discovery names them, from the
// configuration only (never from a request's Host): a site's host names,
// else its bind address, else localhost; which servers listen on loopback
// only (not published by default); and whether a URL's origin is one of
// ours (the catalog takes no entry for it from a payment).

// hostlessHost is the host a site without a host name is listed under:
// its server's bind address when it binds one, else localhost.
func hostlessHost(srv *caddyhttp.Server) string {
	for _, l := range srv.Listen {
		na, err := caddy.ParseNetworkAddress(l)
		if err != nil || na.IsUnixNetwork() {
			continue
		}
		if na.Host != "" {
			return strings.ToLower(na.Host)
		}
		break
	}
	return "localhost"
}

// loopbackOnly reports whether every listener of srv is on a loopback
// address or a Unix socket: its sites are not reachable from elsewhere,
// and discovery does not publish them unless a route says discovery
// always.
func loopbackOnly(srv *caddyhttp.Server) bool {
	if len(srv.Listen) == 0 {
		return false
	}
	for _, l := range srv.Listen {
		na, err := caddy.ParseNetworkAddress(l)
		if err != nil {
			return false
		}
		if !na.IsUnixNetwork() && !loopbackHost(na.Host) {
			return false
		}
	}
	return true
}

// loopbackHost reports whether host names this machine's loopback
// interface (localhost, 127.0.0.0/8, ::1).
func loopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}

// localHost reports whether host names this machine: a loopback name or
// one of its interfaces' addresses.
func localHost(host string) bool {
	if loopbackHost(host) {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	if ip == nil {
		return false
	}
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return false
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && n.IP.Equal(ip) {
			return true
		}
	}
	return false
}

func init() { facilitatorapi.OwnsOrigins(ownsOrigin) }

// ownsOrigin reports whether the origin of resourceURL is one this Caddy
// serves: a server listens on its port and has a site for its host (a
// host matcher that matches it, or a site without a host name when the
// host names this machine or the server's bind address).
func ownsOrigin(resourceURL string) bool {
	u, err := url.Parse(resourceURL)
	if err != nil || u.Hostname() == "" {
		return false
	}
	host := strings.ToLower(u.Hostname())
	port, _ := strconv.ParseUint(u.Port(), 10, 32)
	if port == 0 {
		port = 80
		if u.Scheme == "https" {
			port = 443
		}
	}
	appIface, err := caddy.ActiveContext().AppIfConfigured("http")
	if err != nil {
		return false
	}
	app, _ := appIface.(*caddyhttp.App)
	if app == nil {
		return false
	}
	// A request for the host alone, with the replacer host matchers use.
	probe := (&http.Request{Host: host, Header: http.Header{}, URL: &url.URL{}}).
		WithContext(context.WithValue(context.Background(), caddy.ReplacerCtxKey, caddy.NewReplacer()))
	for _, srv := range app.Servers {
		if !listensOn(srv, uint(port)) {
			continue
		}
		local := localHost(host) || host == hostlessHost(srv)
		for _, rt := range srv.Routes {
			if siteServes(rt.MatcherSets, probe, local) {
				return true
			}
		}
	}
	return false
}

// listensOn reports whether a listener of srv takes TCP port port.
func listensOn(srv *caddyhttp.Server, port uint) bool {
	for _, l := range srv.Listen {
		na, err := caddy.ParseNetworkAddress(l)
		if err == nil && !na.IsUnixNetwork() && port >= na.StartPort && port <= na.EndPort {
			return true
		}
	}
	return false
}

// siteServes reports whether a top-level route with matcher sets sets
// serves the probe's host: a host matcher matches it, or (local) the route
// has no host matcher.
func siteServes(sets caddyhttp.MatcherSets, probe *http.Request, local bool) bool {
	if len(sets) == 0 {
		return local
	}
	for _, set := range sets {
		hosted := false
		for _, m := range set {
			if mh, is := m.(*caddyhttp.MatchHost); is {
				hosted = true
				if ok, err := mh.MatchWithError(probe); err == nil && ok {
					return true
				}
			}
		}
		if !hosted && local {
			return true
		}
	}
	return false
}
