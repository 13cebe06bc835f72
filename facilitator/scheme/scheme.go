// Package scheme is the contract between the facilitator core and a
// payment scheme: a Mechanism is a scheme on one network family,
// registered once in its package's init; bound to a network it is a Bound,
// which decodes, checks, verifies, settles and claims that scheme's
// payments. The core knows payments only through these interfaces.
package scheme

import (
	"context"
	"math/big"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"go.uber.org/zap"

	"github.com/caddy-x402/caddy-x402/facilitator/engine"
	"github.com/caddy-x402/caddy-x402/facilitator/network"
	"github.com/caddy-x402/caddy-x402/facilitator/store"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// Mechanism is a payment scheme on one network family. Register it once,
// in its package's init.
type Mechanism interface {
	// Name is the requirements' scheme, for example "exact".
	Name() string
	// Family is the CAIP-2 namespace of the networks it serves: "eip155".
	Family() string
	// Bind readies the scheme on one network when the facilitator starts
	// (probes, caches), before the network's engine starts. An error
	// stops the facilitator's start, but a Declined one (or a nil Bound)
	// leaves the scheme off that network.
	Bind(ctx context.Context, n *network.Network, env Env) (Bound, error)
}

// Env is what the core lends a scheme.
type Env struct {
	// Now is the clock.
	Now func() time.Time
	// ExpiryMargin is how long before its end an authorization counts as
	// expired; SettleTimeout bounds one settle.
	ExpiryMargin, SettleTimeout time.Duration
	Logger                      *zap.Logger
	// Ctx is cancelled when the facilitator closes; background work
	// joins WG.
	Ctx context.Context
	WG  *sync.WaitGroup
	// CoolOffs are the cooling-offs of payers, beside the journal (in
	// memory for a journal that keeps none), shared by every network.
	CoolOffs store.CoolOffs
	// RevertCoolOff is a payer's first cooling-off after a mined
	// settlement of it reverted though simulated; RevertCoolOffMax the
	// longest.
	RevertCoolOff, RevertCoolOffMax time.Duration
}

// Bound is one scheme on one network. The core asks it nothing else.
type Bound interface {
	// Extra is the requirements' extra the scheme announces (exact: the
	// token's EIP-712 domain).
	Extra() any
	// Check decodes the payload and runs every off-chain check, in the
	// reference order (asset, payload, recipient, amount, window,
	// signature). A reason is the verify invalidReason.
	Check(req *x402.Request, p *x402.Payment) (Payment, string)
	// Verify runs the on-chain checks of a checked payment: a reason, or
	// an error when there is no verdict.
	Verify(ctx context.Context, p Payment) (reason string, err error)
	// Settle settles a checked payment, answering the network as
	// requested, until deadline.
	Settle(ctx context.Context, p Payment, requested string, deadline time.Time) (*x402.SettleResponse, error)
	// Claim verifies a checked payment and holds it for a settle that
	// comes later: a Claim, or a reason.
	Claim(ctx context.Context, p Payment, requested string) (Claim, string, error)
	// Spent is what the network's engine asks about the scheme's
	// authorizations on chain.
	Spent() engine.Spent
	// Recognize reads a mined transaction of the scheme back (look-ups
	// after the journal's retention): payer, payee and value.
	Recognize(to common.Address, input []byte) (from, payee common.Address, value *big.Int, ok bool)
}

// Payment is a payment that passed a Bound's off-chain checks: what it
// reserves.
type Payment interface {
	Payer() common.Address
	Nonce() [32]byte
	Value() *big.Int
}

// Claim is a verified payment held for a settle that comes later. Settle
// it or Release it; the first of the two counts.
type Claim interface {
	// Settle settles it within the settle timeout from now.
	Settle(ctx context.Context) (*x402.SettleResponse, error)
	// Release gives it back unsettled; after Settle it does nothing.
	Release()
}

// MeteredClaim is a Claim whose settle may move less than it holds (upto:
// the charge metered after the upstream answered, at most the maximum the
// buyer signed; 0 moves nothing).
type MeteredClaim interface {
	Claim
	// SettleAmount settles amount within the settle timeout from now.
	SettleAmount(ctx context.Context, amount *big.Int) (*x402.SettleResponse, error)
}

// Flavour is a Mechanism that serves another scheme's payments of a
// payload of its own (exact through Permit2, extra.assetTransferMethod
// "permit2"): the core asks it, for payments of the scheme named Of,
// whether a payment is its (Takes), and routes it to its Bound. It is no
// kind of its own in /supported; its Name keys its records
// (store.Record.Scheme) and its engine Spent.
type Flavour interface {
	Mechanism
	// Of is the scheme whose payments it serves ("exact").
	Of() string
	// Takes reports whether a decoded payment is of its payload.
	Takes(p *x402.Payment) bool
}
