// Package app is the x402 Caddy app (module x402, the x402 global option):
// the networks served, the signer keys, the development chain, the
// settlement journal and shared storage, the embedded facilitator shared
// by every handler of a config (and kept across reloads that leave it
// unchanged), the paywall's delivery records, and the facilitator's
// metrics.
package app
