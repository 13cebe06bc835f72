// Package x402cmd is the "caddy x402" command: devnet (the development
// chain in the foreground) and pay (a paying client, RunPay), plus the
// subcommands other packages add (rotate-key).
package x402cmd
