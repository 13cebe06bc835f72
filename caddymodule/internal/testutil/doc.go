// Package testutil is what the Caddy-level tests of the x402 modules
// share: the run's ports, the devnet's global options, a caddytest
// Tester, balances on the devnet, and helpers that fetch, pay and scrape.
// Tests only.
//
// The integration tests of a package share one in-process Caddy
// (caddytest) and so run one after another. They all configure the same
// devnet, which the usage pool keeps across their config loads: balances
// carry over from test to test, so every check is on a difference.
package testutil
