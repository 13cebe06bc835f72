package facilitator

import (
	"context"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// Client is what a seller needs from a facilitator. *Facilitator (in
// process) and *remote.Client (over HTTP, package facilitator/remote) both
// implement it, so a paywall does not care which it talks to.
type Client interface {
	// Verify checks a payment; see Facilitator.Verify.
	Verify(ctx context.Context, req *x402.Request) (*x402.VerifyResponse, error)
	// Settle settles a payment; see Facilitator.Settle.
	Settle(ctx context.Context, req *x402.Request) (*x402.SettleResponse, error)
}

var _ Client = (*Facilitator)(nil)
