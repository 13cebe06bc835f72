// Package store is the durable state of the facilitator and the paywall,
// behind small interfaces shaped by what they need: the settlement journal
// (Journal, with Compacter), the paywall's redemption records with the
// payment ids bound to them (Redemptions), the claims that hold a
// payment for one request at a time (Claims) and the roles one instance
// holds (Leader), and the capabilities a store may keep beside them:
// the access grants that payments buy with the Sign-In-With-X nonces
// already used (Grants, beside the redemptions), the cooling-offs of
// payers whose mined settlements reverted though their simulations
// passed, and of the paywall's payers whose upto settle after failed
// (CoolOffs, beside the journal and beside the redemptions), the discovery
// catalog (Catalog, beside the journal), the paywall's payment channels
// (x402 batch-settlement) whose charges are one conditional write each
// (Channels, beside the redemptions, with WatchMarks in PostgreSQL), and
// named secrets every instance shares (Secrets, RotatingSecrets). A store
// value that keeps a capability implements its interface: callers assert
// to it (r.(store.Channels)).
//
// This package holds the interfaces, the records and the rules every
// backend shares (validation, the charge and sync rules of a channel, the
// cooling-off arithmetic). The backends are packages of their own: memory
// (a devnet, tests), bolt (the embedded default: one bbolt file, one
// process) and postgres (which several instances share; its journal is
// also Shared: it hands out each signer key's transaction nonces, holds
// each authorization's settlement for one instance, leases each instance
// its work and fences the writes of an instance whose lease ran out, and
// hands a dead instance's pending settlements to a live one).
//
// Every backend runs the same conformance suite, package storetest, in its
// own tests. The package imports neither Caddy nor the facilitator.
package store
