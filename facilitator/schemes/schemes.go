// Package schemes wires the payment schemes this module ships into the
// facilitator: imported for its side effects, it registers exact, upto and
// batch-settlement in package scheme (each from its own init). A program
// that runs a facilitator imports it once (the x402 app does:
// caddymodule/app); facilitator.New refuses to start with no scheme
// registered. A new scheme is its own package plus one blank import here.
package schemes

import (
	_ "github.com/caddy-x402/caddy-x402/facilitator/batchsettlement"
	_ "github.com/caddy-x402/caddy-x402/facilitator/exact"
	_ "github.com/caddy-x402/caddy-x402/facilitator/upto"
)
