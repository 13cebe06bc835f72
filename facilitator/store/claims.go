package store

import "context"

// ClaimResult says how a claim went.
type ClaimResult int

const (
	// Claimed: the caller holds the key until it releases it.
	Claimed ClaimResult = iota
	// HeldHere: a request of this process holds the key.
	HeldHere
	// HeldElsewhere: another instance (sharing a PostgreSQL store) holds
	// the key; the caller may try again shortly. An instance that died
	// holding a key loses it when its lease runs out.
	HeldElsewhere
)

// Claims hold keys (an authorization, a payment id) for one request at a
// time: of this process, and with a shared store, of every instance.
type Claims interface {
	// Claim takes key for the caller. An error means the claim could not
	// be decided (a shared store out of reach): nothing is held.
	Claim(ctx context.Context, key string) (ClaimResult, error)
	// Release gives back a key taken with Claim.
	Release(key string)
}

// RecordClaimer is a Claims that reads, with a claim and in the same round
// trip, the redemption record whose id is the claimed key (in the
// Redemptions kept beside the claims: the PostgreSQL store's). The record
// is read once the claim is taken, so it shows every write made under an
// earlier holder of the key, as a Get after Claim does.
type RecordClaimer interface {
	// ClaimRecord is Claim and, when the key is Claimed, the key's
	// redemption record (nil when there is none). An error means nothing
	// is held, as with Claim.
	ClaimRecord(ctx context.Context, key string) (ClaimResult, *Redemption, error)
}

// Leader holds roles, rather than requests: a key that one instance holds
// for as long as it runs and asks for it again (the one instance that
// claims a receiver's payment channels). An instance that dies loses its
// roles when its lease runs out; one that stops gives them up with Resign.
type Leader interface {
	// Lead takes key for this instance, or keeps it: true when this
	// instance holds it now (it held it, no instance did, or the one that
	// did is dead). It is fenced: an instance whose lease ran out leads
	// nothing (false, with ErrFenced or an error of the store) until it
	// holds a lease again. An error means no decision: the caller does not
	// lead this time.
	Lead(ctx context.Context, key string) (bool, error)
	// Resign gives key up if this instance holds it, so that another
	// instance takes it at once rather than after this one's lease.
	Resign(ctx context.Context, key string) error
}
