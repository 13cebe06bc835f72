// Command caddy is Caddy with its standard modules plus the x402 modules:
// the x402 app (global option), the x402 paywall handler, the
// x402_facilitator handler and the "caddy x402" subcommands (devnet, pay).
//
// It is what xcaddy would build with
//
//	xcaddy build --with github.com/caddy-x402/caddy-x402
//
// and is handy during development:
//
//	go run ./caddy list-modules | grep x402
//	go run ./caddy run --config Caddyfile.example
//	go run ./caddy x402 pay http://localhost:8080/api/weather --key 0x...
package main

import (
	caddycmd "github.com/caddyserver/caddy/v2/cmd"

	// Caddy's standard modules, as in the official binary.
	_ "github.com/caddyserver/caddy/v2/modules/standard"

	// The x402 modules and commands.
	_ "github.com/caddy-x402/caddy-x402/caddymodule"
)

func main() {
	caddycmd.Main()
}
