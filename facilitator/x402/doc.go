// Package x402 is the x402 wire protocol: the payment requirements,
// payloads and answers of version 1 (the Cronos flavour of the facilitator
// interface and the reference flavour) and version 2, their header codecs
// (Base64 JSON, flat Cronos and nested reference payloads), CAIP-2 network
// names, reason texts and codes, and amounts.
//
// It has no chain access and no Caddy code: the facilitator, the paywall,
// the remote client and the buyer all speak through it.
package x402
