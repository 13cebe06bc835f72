package store

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"time"
)

// Redemption states. A record is written before anything it stands for
// happens, so that after a crash the next retry finds out what did.
const (
	// RedeemSettling: settle was (or is about to be) called; whether money
	// moved is not known yet.
	RedeemSettling = "settling"
	// RedeemPending: the transaction was broadcast (TxHash) and was not in
	// a block when the buyer was answered.
	RedeemPending = "pending"
	// RedeemPaid: the money moved; the upstream has not answered yet.
	RedeemPaid = "paid"
	// RedeemDelivered: the upstream's answer began; the authorization is
	// spent for good.
	RedeemDelivered = "delivered"
)

// Redemption is what the paywall knows about one authorization: which
// route it pays for and how far it got.
type Redemption struct {
	// Route identifies the paywall route and resource the authorization
	// was first presented at; only that route may redeem it.
	Route string `json:"route"`
	// State is one of the redeem* states.
	State string `json:"state"`
	// TxHash is the settlement's transaction, once known.
	TxHash string `json:"txHash,omitempty"`
	// Settlement is the settle answer (JSON), once paid.
	Settlement json.RawMessage `json:"settlement,omitempty"`
	// Receipt is the signed receipt of the payment (the offer-receipt
	// extension's info, JSON), once paid on a route that signs receipts;
	// answered again with the record. A record without one is valid.
	Receipt json.RawMessage `json:"receipt,omitempty"`
	// ValidBefore is the authorization's expiry (Unix seconds).
	ValidBefore string `json:"validBefore,omitempty"`
	// PaymentID is the store key (payer/id) of the payment-identifier
	// id the payment was sent with, "" for none. While the record exists,
	// the id is bound to this authorization: the store maps the key to
	// the record, and another payload with the same id is refused (409).
	PaymentID string `json:"paymentId,omitempty"`
	// Fingerprint is the payload's fingerprint (the payload's SHA-256) when
	// PaymentID is set: a request with the same id and this fingerprint
	// is the same payment sent again.
	Fingerprint string `json:"fingerprint,omitempty"`
	// Authorization tells the signed authorization the record is for from
	// another with the same payer and nonce (a hash of its fields and
	// signature); "" in records written before it was kept.
	Authorization string `json:"authorization,omitempty"`
	// Usage is the meter's reading a metered charge (upto) was computed
	// from, kept before its settle, so that a receipt signed once a
	// pending settlement is found settled states it too; "" when not
	// metered.
	Usage string `json:"usage,omitempty"`
	// AnswerLost marks a payment spent without an answer: its request went
	// to the upstream and the buyer hung up before the answer began, so
	// it was charged (settle after, upto, MCP) and the answer, which is not
	// kept, is lost. A retry is told so, and the upstream does not run
	// again for it.
	AnswerLost bool `json:"answerLost,omitempty"`
	// Updated is when the record was last written.
	Updated time.Time `json:"updated"`
}

// Redemptions keeps the paywall's redemptions by authorization (network,
// payer and nonce, lower case), and the payment ids bound to them. A
// record and the binding of its payment id are written and removed
// together.
type Redemptions interface {
	// Get returns the record of an authorization, or nil when there is none.
	Get(id string) (*Redemption, error)
	// Put writes a record and, when it has a PaymentID, binds that id to
	// it in the same transaction (ErrPaymentIDTaken if the id is bound to
	// another authorization; nothing is written then).
	Put(id string, r *Redemption) error
	// Create is Put for an authorization that has no record: it writes
	// nothing and reports false when one exists (whatever its state).
	Create(id string, r *Redemption) (bool, error)
	// Delete removes a record and the binding of its payment id.
	Delete(id string) error
	// ByPaymentID returns the authorization a payment id is bound to and
	// its record, or "" and nil.
	ByPaymentID(key string) (string, *Redemption, error)
	// ByTransaction returns the authorization whose record names the
	// settlement transaction tx (TxHash, hex compared case-insensitively)
	// and its record, or "" and nil. The index goes with the record
	// (Delete, Prune).
	ByTransaction(tx string) (string, *Redemption, error)
	// Prune removes the delivered records whose authorization expired
	// (validBefore) before the given Unix time, with their payment ids,
	// and says how many.
	Prune(expiredBefore int64) (int, error)
	// Close releases the store.
	Close() error
}

// ReleasingPutter is a Redemptions that writes a record and gives back the
// claim on its id that a request of this process holds (Claims.Claim of
// the claims kept beside it) in one round trip and one transaction: the
// PostgreSQL store.
type ReleasingPutter interface {
	// PutReleasing is Put (fenced as Put is) and the release of the claim
	// on id, both or neither. released says whether the claim was let go,
	// so that the caller does not release it again: after the write, and
	// with ErrClaimLost (the claim is another instance's already). With
	// another error nothing was written or released. With no claim on id
	// held here it is Put, and releases nothing.
	PutReleasing(id string, r *Redemption) (released bool, err error)
}

// TxKey is a transaction hash as the stores index it: lower case.
func TxKey(tx string) string { return strings.ToLower(tx) }

// ErrPaymentIDTaken refuses to bind a payment id that is bound to another
// authorization. The paywall checks the id before it writes, holding it,
// so this is a safeguard.
var ErrPaymentIDTaken = errors.New("the payment identifier is bound to another payment")

// ErrClaimLost refuses a write of a record whose key a request of this
// process had claimed, when the claim is no longer this instance's: its
// lease ran out (a pause, a cut to the database) and another instance
// took the key over. Nothing is written: the record is the new holder's.
// The request that held the claim stops: it does not deliver, and tells
// its buyer to retry (the new holder answers). Only a shared store
// (PostgreSQL) answers it; one process's claims cannot be taken over.
var ErrClaimLost = errors.New("the claim on this payment was taken over by another instance after this instance's lease ran out; nothing was written")

// Prunable reports whether a record may go: it was delivered, and its
// authorization expired before the given Unix time. Such an authorization
// can never be settled again nor pass verify (the token refuses it after
// validBefore), so without its record a replay is still refused. Records
// of payments not yet delivered stay: their buyer may retry at any time.
func (r *Redemption) Prunable(expiredBefore int64) bool {
	if r.State != RedeemDelivered {
		return false
	}
	vb, err := strconv.ParseInt(r.ValidBefore, 10, 64)
	return err == nil && vb < expiredBefore
}
