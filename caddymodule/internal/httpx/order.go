package httpx

import "github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"

// The Caddyfile order of the three x402 directives, registered here, in
// one place, because Go initialises the packages that define them in
// import-path order: each package registers only its directive, and this
// package, which they all import, is initialised before them.
//
// Where the directives run when not inside a route block: after the
// directives that rewrite the request (rewrite, uri, try_files), that
// authenticate (basic_auth, forward_auth: nobody pays for a request
// that would be refused anyway), that edit request headers
// (request_header) and that wrap the response (encode, intercept,
// templates); before the dispatching ones (invoke, handle, handle_path,
// route), so that `x402 /api/*` charges before a `handle /api/*` block
// runs, and so before every content handler (respond, reverse_proxy,
// file_server, ...). Each insertion goes right after templates, so
// registering x402, then x402_facilitator, then x402_path_guard gives
// templates, x402_path_guard, x402_facilitator, x402: the facilitator's
// own endpoints are never behind a paywall on a site that has both, and
// the path guard refuses ambiguous paths before either runs.
func init() {
	httpcaddyfile.RegisterDirectiveOrder("x402", httpcaddyfile.After, "templates")
	httpcaddyfile.RegisterDirectiveOrder("x402_facilitator", httpcaddyfile.After, "templates")
	httpcaddyfile.RegisterDirectiveOrder("x402_path_guard", httpcaddyfile.After, "templates")
}
