package facilitator

// The journal lives in package store; these names keep the facilitator's
// callers compiling.

import (
	"strings"

	"github.com/caddy-x402/caddy-x402/facilitator/store"
)

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
func OpenJournal(path string) (Journal, error) { return store.OpenBoltJournal(path) }

// NewMemoryJournal returns a journal that lives in memory only.
func NewMemoryJournal() Journal { return store.NewMemoryJournal() }

// responseOf is the settle answer for a record. Its timestamp is the
// record's own: when its outcome was recorded (within a poll of its block),
// or, while pending, when it last changed.
func responseOf(r *Record) *SettleResponse {
	network := r.RequestedNetwork
	if network == "" {
		network = r.Network
	}
	res := &SettleResponse{X402Version: X402Version, Network: network, Timestamp: Timestamp(r.UpdatedAt), TxHash: r.TxHash}
	switch r.Status {
	case StatusSettled:
		block := r.BlockNumber
		res.Event, res.From, res.To, res.Value, res.BlockNumber = EventSettled, r.From, r.To, r.Value, &block
	case StatusFailed:
		res.Event, res.Error = EventFailed, r.Error
		if strings.HasPrefix(r.Error, "not broadcast: ") {
			// Refused before it was sent: nothing reached the chain.
			res.Error = ErrTextNotBroadcast
		}
	default:
		res.Event, res.Error = EventFailed, ErrTextPending
		res.TxHash = r.LatestHash()
	}
	return res
}
