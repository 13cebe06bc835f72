package paywall

// What a channel route (chanRoute, channel.go) calls of the paywall core,
// in a leaf file of its own, so that every channel file may call it
// (docs/layout.md, Calls between files).

import (
	"context"
	"encoding/json"
	"math/big"
	"net/http"
	"time"

	"github.com/caddy-x402/caddy-x402/facilitator/store"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// The paywall core is a channel route's core.
var _ chanCore = (*core)(nil)

// chanCore is what a channel route calls of the paywall core's pipeline
// (core.go): the steps every scheme shares. *core satisfies it.
type chanCore interface {
	// settleBy runs a settle call (here, a deposit's), timed, counted and
	// logged as every settle of the route, within the app's settle_timeout
	// (settle.go).
	settleBy(r *http.Request, req *x402.Request, call func(context.Context) (*x402.SettleResponse, error)) (*x402.SettleResponse, error)
	// goneBeforeUpstream reports, and logs, a buyer who hung up before its
	// request went to the upstream (hangup.go).
	goneBeforeUpstream(r *http.Request) bool
	// signChannelReceipt signs the receipt of a served channel request, nil
	// on a route without offer_receipt (receipt.go).
	signChannelReceipt(r *http.Request, c *store.Channel, charged *big.Int, deposit *x402.SettleResponse, cr *chanReceipt) json.RawMessage
}

// detachedWriteBudget bounds a store write that outlives its request.
const detachedWriteBudget = 10 * time.Second

// detachedWrite is the context of a store write that must land even when
// the buyer hangs up (a metered charge given back, a refund slot returned):
// ctx's values without its end, for at most detachedWriteBudget.
func detachedWrite(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), detachedWriteBudget)
}
