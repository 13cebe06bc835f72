// Package store is the durable state of the facilitator and the paywall,
// behind small interfaces shaped by what they need: the settlement journal
// (Journal, with Compacter), the paywall's redemption records with the
// payment ids bound to them (Redemptions), the claims that hold a
// payment for one request at a time (Claims), and the access grants that
// payments buy with the Sign-In-With-X nonces already used (Grants, kept
// beside the redemptions: GrantsOf), the cooling-offs of payers whose
// mined settlements reverted though their simulations passed, and of the
// paywall's payers whose upto settle after failed (CoolOffs, kept beside
// the journal and beside the redemptions: CoolOffsOf), the paywall's payment channels
// (x402 batch-settlement) whose charges are one conditional write each
// (Channels, kept beside the redemptions: ChannelsOf), plus, in
// PostgreSQL, named secrets every instance shares (Secrets).
//
// Three backends implement them: memory (a devnet, tests), bbolt (the
// embedded default: one file, one process) and PostgreSQL (Postgres),
// which several instances share. The PostgreSQL journal is also Shared:
// it hands out each signer key's transaction nonces, holds each
// authorization's settlement for one instance, leases each instance its
// work and fences the writes of an instance whose lease ran out, and hands
// a dead instance's pending settlements to a live one.
//
// Every backend runs the same conformance suite, package storetest. The
// package imports neither Caddy nor the facilitator.
package store
