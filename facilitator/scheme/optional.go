package scheme

import (
	"github.com/caddy-x402/caddy-x402/facilitator/doctor"
	"github.com/caddy-x402/caddy-x402/facilitator/engine"
)

// The optional abilities of a scheme: the core asserts a Mechanism, a
// Bound or a Payment to these and uses what it finds.

// RevertHandler is a Bound told of each of its settlements that was mined
// and reverted (exact: counts them and cools the payer off). It owns rv:
// it calls rv.Release when done. Without it the core only releases rv.
type RevertHandler interface {
	Reverted(rv *engine.Revert)
}

// V2Only is a Bound whose scheme x402 version 1 has not (upto,
// batch-settlement): /supported lists it only among the version 2 kinds.
type V2Only interface {
	V2Only() bool
}

// SupportedExtra is a Bound whose /supported kind carries an extra (upto:
// the Permit2 proxy; batch-settlement: the channel contracts).
type SupportedExtra interface {
	SupportedExtra() any
}

// EIP2612Sponsor is a Bound that takes a buyer's EIP-2612 permit with its
// payment (the eip2612GasSponsoring extension of a Permit2 scheme whose
// token has permit): /supported lists the extension when one does.
type EIP2612Sponsor interface {
	SponsorsEIP2612() bool
}

// VerifyExtra is a checked Payment whose verify answer names its payer and
// carries the scheme's extra (batch-settlement: the channel's state).
type VerifyExtra interface {
	VerifyPayer() string
	VerifyExtra() map[string]any
}

// Counted is a Bound that counts what it did on its network since the
// facilitator started, for metrics (exact: smart-wallet settlements,
// reverted settlements, cooling-offs): the x402 app exports each Count as
// a counter with a network label, under the Count's own name, so that a
// scheme's metrics are defined in its own package.
type Counted interface {
	Counts() []Count
}

// Count is one monotonic count of a scheme on a network.
type Count struct {
	// Name is the metric's name (x402_…_total); Help says what it counts.
	Name, Help string
	// Value is the count (a wei amount may pass 2^53 and lose precision,
	// as a Prometheus counter does).
	Value float64
}

// Needer is a Mechanism that says what must exist on a chain (and in the
// network's configuration) for it to be served there, beside what every
// scheme needs (the token and its EIP-712 domain, funded signers): the
// contracts at their addresses, EIP-1153, a signer key. Its Bind checks
// them with package doctor, and `caddy x402 doctor` runs the same checks
// before a network is served.
type Needer interface {
	Needs() doctor.Needs
}
