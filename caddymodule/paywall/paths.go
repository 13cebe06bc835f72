package paywall

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/caddy-x402/caddy-x402/caddymodule/paywall/discovery"
)

// Request paths on a paid route.
//
// A price per path (map {path} ...), a redemption record's resource and a
// payment id's route check all read the request path, and the next handler
// serves a resource named by it. The same resource can be spelled many
// ways, and each layer reads spellings its own way:
//
//   - Caddy's path matchers and file_server clean the path (dot segments,
//     doubled slashes), but {path} and a map of it do not: /pp//dear,
//     /pp/./dear and /pp/x/../dear are the file /pp/dear, yet they are
//     other keys of a map.
//   - Path parameters: Tomcat, Jetty and Spring cut ";..." off every
//     segment, Caddy's matchers do not: /api;jsessionid=1/premium is not
//     matched by /api/*, and such an upstream serves it as /api/premium;
//     /free/..;/api/premium is matched by /free/* and served as
//     /api/premium.
//   - A backslash (or %5C) is a separator to some servers, a letter to
//     Caddy on Unix; an encoded slash (%2F) is a separator to some, part of
//     a name to others; an encoded percent sign (%25) is decoded twice by
//     some.
//
// So the paywall prices, records and passes on one spelling per resource:
// a path that is not clean (CleanPath, as the matchers see it) is
// redirected to its clean form (308, GET and HEAD) or refused (400, other
// methods, whose body a redirect would have to carry again); a path with
// a spelling servers disagree on is refused (400). The next handlers and
// every {path} read after the paywall then see the clean path. A path a
// rewrite before the paywall made unclean (the buyer's was clean) is
// cleaned in place: the buyer cannot be sent elsewhere to fix it.
//
// Requests the paywall's matcher does not match never reach it, so
// /api;x/premium would go past x402 /api/* to the next handler unpaid:
// x402_path_guard refuses the spellings servers disagree on for every
// request of a site, and the x402 directive adds one beside itself.

func init() {
	caddy.RegisterModule(PathGuard{})
	httpcaddyfile.RegisterHandlerDirective("x402_path_guard", parsePathGuard)
}

// Interface guard.
var _ caddyhttp.MiddlewareHandler = (*PathGuard)(nil)

// Refusal texts of request paths (the "error" of a 400).
const (
	textPathParameter = "The request path has a path parameter (;), which servers read as another path than Caddy's routes do: ask for the path without it"
	textPathBackslash = `The request path has a backslash (\ or %5C), which some servers read as /: ask for the path with / instead`
	textPathControl   = "The request path has a control character: ask for the path without it"
	textPathSlash     = "The request path has an encoded slash (%2F), which servers read either as / or as part of a name: ask for the path with / instead"
	textPathPercent   = "The request path has an encoded percent sign (%25), which a server that decodes twice reads as another path: ask for the path without it"
	textPathUnclean   = "The request path is not canonical (empty, . or .. segments): ask for the canonical path"
)

// ambiguousPath is why a decoded request path reads differently to Caddy's
// routes than to servers behind it ("" when it does not): a path parameter,
// a backslash, a control character.
func ambiguousPath(p string) string {
	for i := 0; i < len(p); i++ {
		switch c := p[i]; {
		case c == ';':
			return textPathParameter
		case c == '\\':
			return textPathBackslash
		case c < 0x20 || c == 0x7f:
			return textPathControl
		}
	}
	return ""
}

// unpricedPath is why a request URL's path cannot be priced as one
// resource ("" when it can): ambiguousPath's reasons, an encoded slash, an
// encoded percent sign (unless allowPercent: the route's
// allow_encoded_percent, for an upstream that decodes once).
func unpricedPath(u *url.URL, allowPercent bool) string {
	if why := ambiguousPath(u.Path); why != "" {
		return why
	}
	if !allowPercent && strings.IndexByte(u.Path, '%') >= 0 {
		return textPathPercent
	}
	if raw := u.RawPath; raw != "" && strings.Contains(strings.ToLower(raw), "%2f") {
		return textPathSlash
	}
	return ""
}

// cleanPath is a path as Caddy's path matchers see it: dot segments
// resolved, doubled slashes merged, a trailing slash kept. A path that does
// not start with / (the "*" of OPTIONS *) is its own clean form.
func cleanPath(p string) string {
	if !strings.HasPrefix(p, "/") {
		return p
	}
	return caddyhttp.CleanPath(p, true)
}

// pathAnswer is the body of a request path refused.
type pathAnswer struct {
	Error string `json:"error"`
	// Path is the canonical path to ask for, when there is one.
	Path string `json:"path,omitempty"`
}

// refusePath answers 400 with why a request path is refused.
func refusePath(w http.ResponseWriter, a pathAnswer) error {
	body, _ := json.Marshal(a)
	body = append(body, '\n')
	hdr := w.Header()
	hdr["Content-Type"] = jsonContentType
	hdr["Cache-Control"] = noStore
	hdr["Content-Length"] = []string{strconv.Itoa(len(body))}
	w.WriteHeader(http.StatusBadRequest)
	_, err := w.Write(body)
	return err
}

// canonicalRequest makes a paid route's request path canonical before it
// is priced: it reports handled when it answered the request itself (400
// for a spelling servers disagree on; 308 to the clean path, or 400 with
// it for methods other than GET and HEAD). A path a rewrite made unclean is
// cleaned in place. allowPercent lets an encoded percent sign (%25) through.
func canonicalRequest(w http.ResponseWriter, r *http.Request, allowPercent bool) (bool, error) {
	if why := unpricedPath(r.URL, allowPercent); why != "" {
		return true, refusePath(w, pathAnswer{Error: why})
	}
	clean := cleanPath(r.URL.Path)
	if clean == r.URL.Path {
		return false, nil
	}
	asked := r.URL.Path
	if or, ok := r.Context().Value(caddyhttp.OriginalRequestCtxKey).(http.Request); ok && or.URL != nil {
		asked = or.URL.Path
	}
	if asked != r.URL.Path {
		// The buyer's path was rewritten into an unclean one: serve and
		// price the clean one.
		r.URL.Path, r.URL.RawPath = clean, ""
		return false, nil
	}
	to := (&url.URL{Path: clean}).EscapedPath()
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return true, refusePath(w, pathAnswer{Error: textPathUnclean, Path: to})
	}
	if r.URL.RawQuery != "" {
		to += "?" + r.URL.RawQuery
	}
	w.Header().Set("Location", to)
	w.Header()["Cache-Control"] = noStore
	w.WriteHeader(http.StatusPermanentRedirect)
	return true, nil
}

// PathGuard (http.handlers.x402_path_guard) refuses, with 400, a request
// whose path servers read differently than Caddy's routes do: a path
// parameter (;), a backslash (\ or %5C), a control character. Others go on
// to the next handler unchanged. It keeps such a path from reaching a paid
// upstream past a paywall whose matcher it does not match (x402 /api/*
// does not match /api;jsessionid=1/premium, which Tomcat, Jetty and Spring
// serve as /api/premium). The x402 directive adds one beside itself; put
// one at the top of a site whose paywall sits inside a handle or route
// block, and in a JSON config before the routes of a paid upstream.
type PathGuard struct{}

// CaddyModule returns the Caddy module information.
func (PathGuard) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "http.handlers.x402_path_guard",
		New: func() caddy.Module { return new(PathGuard) },
	}
}

// ServeHTTP implements caddyhttp.MiddlewareHandler.
func (PathGuard) ServeHTTP(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler) error {
	if why := ambiguousPath(r.URL.Path); why != "" {
		return refusePath(w, pathAnswer{Error: why})
	}
	if handled, err := discovery.ServeWellKnown(w, r); handled {
		return err // the site's discovery manifest (package discovery)
	}
	if handled, err := discovery.ServeDID(w, r); handled {
		return err // the site's receipt keys (package discovery)
	}
	if handled, err := discovery.ServeReceipt(w, r); handled {
		return err // a payment's receipt fetched again (package discovery)
	}
	return next.ServeHTTP(w, r)
}

// parsePathGuard is the x402_path_guard directive.
//
// Syntax:
//
//	x402_path_guard
func parsePathGuard(h httpcaddyfile.Helper) (caddyhttp.MiddlewareHandler, error) {
	h.Next()
	if h.NextArg() || h.NextBlock(0) {
		return nil, h.Err("x402_path_guard takes no arguments and no block")
	}
	return new(PathGuard), nil
}
