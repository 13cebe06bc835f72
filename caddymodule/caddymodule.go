// Package caddymodule plugs x402 payments into Caddy: the x402 app (the
// networks, signer keys and the embedded facilitator shared by a config),
// the x402 paywall handler and the x402_facilitator handler that serves the
// facilitator API.
package caddymodule
