// Package caddymodule plugs x402 payments into Caddy, as Caddy's
// modules/standard does: one blank import per module family.
//
//	app             the x402 app: networks, signer keys, the embedded
//	                facilitator, storage, delivery records
//	paywall         the x402 directive (http.handlers.x402) and
//	                x402_path_guard: pricing, checkout, replies, the page
//	access          access windows: grants, cookie, Sign-In-With-X
//	facilitatorapi  the x402_facilitator directive: the facilitator API
//	x402cmd         the caddy x402 commands
//
// This package keeps the rotate-key command's config reading and the
// Caddyfile adapt tests (testdata/).
package caddymodule

import (
	_ "github.com/caddy-x402/caddy-x402/caddymodule/access"
	_ "github.com/caddy-x402/caddy-x402/caddymodule/app"
	_ "github.com/caddy-x402/caddy-x402/caddymodule/facilitatorapi"
	_ "github.com/caddy-x402/caddy-x402/caddymodule/paywall"
	_ "github.com/caddy-x402/caddy-x402/caddymodule/x402cmd"
)
