// Package httpx holds what the x402 Caddy modules share at the HTTP level:
// the buyer's origin and client IP as Caddy sees them, the RateLimit
// config, the JSON retry answer, metric registration, the X-Payment-*
// header names, the signer/API key placeholder rule, Caddyfile argument
// helpers, and the Caddyfile order of the x402, x402_facilitator and
// x402_path_guard directives.
package httpx
