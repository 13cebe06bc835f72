// Package facilitatorapi is the x402_facilitator handler
// (http.handlers.x402_facilitator): it serves the HTTP API of the x402
// app's embedded facilitator (verify, settle, supported, settlement
// look-ups, discovery), with its rate limits, API keys and metrics.
package facilitatorapi
