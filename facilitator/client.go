package facilitator

import (
	"context"
)

// Client is what a seller needs from a facilitator. *Facilitator (in
// process) and *remote.Client (over HTTP, package facilitator/remote) both
// implement it, so a paywall does not care which it talks to.
type Client interface {
	// Verify checks a payment; see Facilitator.Verify.
	Verify(ctx context.Context, req *Request) (*VerifyResponse, error)
	// Settle settles a payment; see Facilitator.Settle.
	Settle(ctx context.Context, req *Request) (*SettleResponse, error)
}

var _ Client = (*Facilitator)(nil)
