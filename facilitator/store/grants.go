package store

import (
	"errors"
	"strings"
	"time"
)

// Grant is access to a paywall route that a payment bought: its payer may
// use the route without paying again from Start (the settlement) until End.
type Grant struct {
	// Route identifies the paywall route (the directive's scope, not one
	// resource): a grant opens no other route.
	Route string `json:"route"`
	// Payer is the wallet that paid, 0x hex in lower case.
	Payer string `json:"payer"`
	// Start is when the payment settled.
	Start time.Time `json:"start"`
	// End is when the access ends.
	End time.Time `json:"end"`
	// TxHash is the transaction of the payment that bought it.
	TxHash string `json:"txHash,omitempty"`
	// Network is the network it was paid on.
	Network string `json:"network,omitempty"`
}

// Grants keeps the access grants of the paywall's routes and the
// Sign-In-With-X nonces already used. It lives beside the redemption
// records, in the same storage (a redemption store that keeps them
// implements Grants), so that grants survive restarts
// and, in PostgreSQL, hold on every instance.
//
// It is an interface of its own rather than more methods of Redemptions:
// a grant is keyed by route and payer, not by authorization, lives until
// its end, not until its authorization expires, and only routes with
// access use it.
type Grants interface {
	// PutGrant records g under its route and payer (the payer compares
	// case-insensitively). A grant already there that ends as late or
	// later is kept, so a grant is never shortened and a payment
	// delivered again (a retry) changes nothing; changed reports whether
	// g was written.
	PutGrant(g *Grant) (changed bool, err error)
	// Grant returns payer's grant for route, ended or not (until it is
	// pruned), or nil when there is none.
	Grant(route, payer string) (*Grant, error)
	// UseNonce records a sign-in nonce as used, to be kept until expires:
	// false when it was used already. Of several concurrent uses of one
	// nonce, on every instance sharing the store, exactly one gets true.
	UseNonce(nonce string, expires time.Time) (bool, error)
	// PruneGrants removes the grants that ended before t and the nonces
	// whose keeping ended before t, and says how many.
	PruneGrants(t time.Time) (int, error)
}

// ErrBadGrant refuses a grant without a route, a payer or an end after
// its start.
var ErrBadGrant = errors.New("a grant needs a route, a payer and an end after its start")

// Check validates g and returns its payer in lower case.
func (g *Grant) Check() (string, error) {
	if g.Route == "" || g.Payer == "" || !g.End.After(g.Start) {
		return "", ErrBadGrant
	}
	return strings.ToLower(g.Payer), nil
}

// GrantKey is a grant's key in the embedded stores.
func GrantKey(route, payer string) string { return route + "/" + strings.ToLower(payer) }
