package store

import (
	"context"
	"errors"
	"math/big"
)

// Shared is a journal that several instances (processes, machines) use at
// once, on the same signer keys. Besides the records it coordinates the
// keys: it hands out each key's transaction nonces, so that no nonce goes
// to two transactions whichever instance signs; it holds each
// authorization's settlement for one instance; and it hands the pending
// settlements of an instance that died (its lease ran out) to a live one.
//
// Each instance holds a lease that it renews while it runs. Every write
// that lets an instance send with a key (a journal record, a nonce) checks
// the lease in the same database transaction (fencing): an instance that
// was paused or cut off past its lease writes nothing, so it broadcasts
// nothing new, until it holds a lease again, under a new identity.
//
// The journal of package postgres is Shared.
type Shared interface {
	Journal
	// Nonces hands this instance n consecutive transaction nonces of
	// signer on chain, the first at or above floor (the node's pending
	// nonce when the caller read it, else 0), and returns the first.
	Nonces(ctx context.Context, chain, signer string, floor uint64, n int) (uint64, error)
	// GiveBack returns the nonces [first, end) of signer when none after
	// them was handed out since; false when some was (the caller then
	// fills them, so that no gap stays).
	GiveBack(ctx context.Context, chain, signer string, first, end uint64) (bool, error)
	// HoldSettlement holds the settlement of the authorization whose
	// record ID is id for this instance; false when another instance holds
	// it or follows a pending settlement of it.
	HoldSettlement(ctx context.Context, id string) (bool, error)
	// ReserveSettlement reserves value, for the held settlement id,
	// against its payer's balance (payer names the payer on one chain and
	// token): true when it fits in balance beside the payer's other
	// reservations of every instance (those in flight, and transfers mined
	// in the last minute), except those whose record IDs are in inBalance
	// (known to be in that balance). A nil inBalance counts them all. A
	// settlement reserved already stays reserved (true). A nil balance
	// reserves without a check (a settlement followed from the journal).
	ReserveSettlement(ctx context.Context, id, payer string, value, balance *big.Int, inBalance []string) (bool, error)
	// Reservations lists the record IDs of the payer's reservations (in
	// flight, and mined in the last minute), for an exact check.
	Reservations(ctx context.Context, payer string) ([]string, error)
	// ReleaseSettlements gives back holds taken with HoldSettlement, with
	// their reservations, in one round trip.
	ReleaseSettlements(rels ...Release)
	// TakeOver makes this instance the owner of the pending settlements,
	// on the given networks, of instances whose lease ran out, and returns
	// them, for the caller to follow to their blocks.
	TakeOver(ctx context.Context, networks []string) ([]*Record, error)
	// PendingAt returns the pending settlements whose transactions hold
	// signer's nonce (on any chain: the caller checks the chain), so that
	// a nonce a node lost is sent again from its journaled transaction,
	// whichever instance signed it, rather than filled.
	PendingAt(ctx context.Context, signer string, nonce uint64) ([]*Record, error)
	// Live reports whether this instance's lease holds now, by a
	// conservative reading of the local clock. An instance sends nothing
	// that is not journaled (a fill of a nonce gap) unless it is live.
	Live() bool
	// Instance names this instance (its current lease), for logs.
	Instance() string
	// Where is the store's address with its credentials cut, for logs
	// and health.
	Where() string
}

// PutReleaser is a Shared journal that writes a finished settlement's
// record and gives back its hold in one round trip and one transaction
// (the journal of package postgres).
type PutReleaser interface {
	// PutRelease is Put(recs...) and ReleaseSettlements(rels...) in one
	// transaction: both or neither. When it fails (its error is Put's) the
	// holds are still given back, as ReleaseSettlements after a Put that
	// failed gives them.
	PutRelease(recs []*Record, rels []Release) error
}

// Release is a hold given back: its settlement's record ID and, when its
// transfer moved the payer's money, the block that mined it (its
// reservation then still counts, for a minute, in the first check of the
// payer's next reservations); zero when nothing moved.
type Release struct {
	ID      string
	MinedAt uint64
}

// ErrFenced is the error of a write by an instance whose lease ran out:
// it must not send with its keys until it holds a lease again.
var ErrFenced = errors.New("this instance's lease in the shared store ran out (paused, or cut off from the database); it sends nothing until it holds a lease again")

// ErrUnavailable is in the chain (errors.Is) of an error of the shared
// store that is not the database's answer: it could not be reached, or
// did not answer within its budget (a write may then have been committed
// or not). The same call may succeed shortly. (ErrFenced, the lease not
// holding, is the other error that says to try again.)
var ErrUnavailable = errors.New("the shared store (PostgreSQL) could not be reached")

// ErrFollowedElsewhere is the error of a journal write for a settlement
// that another instance follows, or that is settled: such a record is never
// overwritten, so an authorization that moved money is never sent again.
var ErrFollowedElsewhere = errors.New("the settlement is followed by another instance, or settled")
