package engine

import "github.com/caddy-x402/caddy-x402/facilitator/store"

// The journal lives in package store; these names keep the engine's code
// and callers short.
type (
	// Record is one settlement in the journal (store.Record).
	Record = store.Record
	// JournalTx is one signed transaction of a settlement (store.JournalTx).
	JournalTx = store.JournalTx
	// Journal stores settlement records durably (store.Journal).
	Journal = store.Journal
	// Compacter is a journal that can drop old finished records (store.Compacter).
	Compacter = store.Compacter
)

// Settlement statuses in the journal.
const (
	StatusPending = store.StatusPending
	StatusSettled = store.StatusSettled
	StatusFailed  = store.StatusFailed
)

// ErrNotFound is returned by ByTx and ByID for a record the journal does
// not hold.
var ErrNotFound = store.ErrNotFound
