package facilitator

import (
	"github.com/caddy-x402/caddy-x402/facilitator/store"
	"github.com/caddy-x402/caddy-x402/facilitator/store/bolt"
	"github.com/caddy-x402/caddy-x402/facilitator/store/memory"
)

// The journal lives in package store; these names keep the facilitator's
// callers compiling.

// Journal types, from package store.
type (
	// Record is one settlement in the journal (store.Record).
	Record = store.Record
	// JournalTx is one signed transaction of a settlement (store.JournalTx).
	JournalTx = store.JournalTx
	// Journal stores settlement records durably (store.Journal).
	Journal = store.Journal
)

// Settlement statuses in the journal.
const (
	StatusPending = store.StatusPending
	StatusSettled = store.StatusSettled
	StatusFailed  = store.StatusFailed
)

// ErrSettlementNotFound is returned (wrapped or not: match it with
// errors.Is) for a settlement the journal does not know.
var ErrSettlementNotFound = store.ErrNotFound

// ErrNotFound is ErrSettlementNotFound, by its older name.
var ErrNotFound = store.ErrNotFound

// OpenJournal opens (creating if needed) the bbolt journal at path. Only
// one process may hold it; a second one waits up to 5 s, then fails.
func OpenJournal(path string) (Journal, error) { return bolt.OpenJournal(path) }

// NewMemoryJournal returns a journal that lives in memory only.
func NewMemoryJournal() Journal { return memory.NewJournal() }
