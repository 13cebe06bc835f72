// Package caddymodule plugs x402 payments into Caddy: the x402 app (the
// networks, signer keys and the embedded facilitator shared by a config),
// the x402 paywall handler and the x402_facilitator handler that serves the
// facilitator API. Importing it registers them all, as Caddy's
// modules/standard does for its own.
package caddymodule

import (
	_ "github.com/caddy-x402/caddy-x402/caddymodule/app"            // the x402 app and global option
	_ "github.com/caddy-x402/caddy-x402/caddymodule/facilitatorapi" // x402_facilitator
	_ "github.com/caddy-x402/caddy-x402/caddymodule/x402cmd"        // caddy x402 devnet|pay|rotate-key
)
