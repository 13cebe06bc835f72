package store

import (
	"errors"
	"sort"
	"time"
)

// Settlement statuses in the journal.
const (
	StatusPending = "pending"
	StatusSettled = "settled"
	StatusFailed  = "failed"
)

// Record is one settlement in the journal: written before its transaction
// is broadcast, updated when it is mined or fails.
type Record struct {
	// ID identifies the authorization: network/from/nonce.
	ID string `json:"id"`
	// Network is the network's primary name.
	Network string `json:"network"`
	// RequestedNetwork is the network string the seller sent.
	RequestedNetwork string `json:"requestedNetwork,omitempty"`
	// Via is ViaAPI for a settlement asked for through the facilitator's
	// HTTP routes (for a seller elsewhere), "" for one asked in process
	// (the paywall's embedded facilitator).
	Via string `json:"via,omitempty"`
	// Scheme is the payment scheme of a settlement other than exact
	// ("upto"); "" for exact, as every record written before it had.
	Scheme string `json:"scheme,omitempty"`
	// The signed authorization, as hex and decimal strings.
	From        string `json:"from"`
	To          string `json:"to"`
	Value       string `json:"value"`
	ValidAfter  string `json:"validAfter"`
	ValidBefore string `json:"validBefore"`
	Nonce       string `json:"nonce"`
	Signature   string `json:"signature"`
	// Signer is the address that pays the gas.
	Signer string `json:"signer"`
	// TxNonce is the signer's transaction nonce.
	TxNonce uint64 `json:"txNonce"`
	// Txs are the signed transactions broadcast for this settlement, all
	// with TxNonce: the first, then fee-bumped replacements.
	Txs []JournalTx `json:"txs"`
	// Status is pending, settled or failed.
	Status string `json:"status"`
	// TxHash is the mined transaction (settled or reverted), if any.
	TxHash string `json:"txHash,omitempty"`
	// BlockNumber is the block that holds TxHash.
	BlockNumber uint64 `json:"blockNumber,omitempty"`
	// Error is the settle error text of a failed settlement.
	Error     string    `json:"error,omitempty"`
	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt"`
}

// ViaAPI is Record.Via of a settlement asked for through the facilitator's
// HTTP routes.
const ViaAPI = "api"

// JournalTx is one signed transaction of a settlement.
type JournalTx struct {
	Hash string `json:"hash"`
	// Raw is the signed transaction (0x hex), for rebroadcast.
	Raw    string    `json:"raw"`
	SentAt time.Time `json:"sentAt"`
	// Cancel marks the zero-value transfer to the signer that freed the
	// nonce of an expired authorization.
	Cancel bool `json:"cancel,omitempty"`
}

// LatestHash is the hash of the newest transaction.
func (r *Record) LatestHash() string {
	if len(r.Txs) == 0 {
		return ""
	}
	return r.Txs[len(r.Txs)-1].Hash
}

// Journal stores settlement records durably.
type Journal interface {
	// Put writes records atomically: all or none, on stable storage when it returns.
	Put(recs ...*Record) error
	// ByTx finds the record that holds a transaction hash (any attempt).
	ByTx(hash string) (*Record, error)
	// ByID finds a record by its ID (network/from/nonce, lower case).
	ByID(id string) (*Record, error)
	// Pending lists the records still pending.
	Pending() ([]*Record, error)
	// Close releases the journal.
	Close() error
}

// ErrNotFound is returned by ByTx and ByID for a record the journal does
// not hold.
var ErrNotFound = errors.New("settlement not found")

// SortByNonce orders records by signer, then by transaction nonce.
func SortByNonce(recs []*Record) {
	sort.Slice(recs, func(a, b int) bool {
		if recs[a].Signer != recs[b].Signer {
			return recs[a].Signer < recs[b].Signer
		}
		return recs[a].TxNonce < recs[b].TxNonce
	})
}

// Compacter is a journal that can drop old finished records. Both
// journals of this package are.
type Compacter interface {
	// Compact removes the settled and failed records last updated before
	// cutoff, with their transaction index entries, and returns how many
	// went. Pending records are never removed, however old: recovery needs
	// them. Dropping a finished record loses nothing that keeps money
	// safe: a used authorization is refused on chain, whatever the journal.
	Compact(cutoff time.Time) (int, error)
}

// Compactable tells whether a record may be compacted away.
func Compactable(r *Record, cutoff time.Time) bool {
	return r.Status != StatusPending && r.UpdatedAt.Before(cutoff)
}
