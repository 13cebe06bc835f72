package paywall

import (
	"time"

	"go.uber.org/zap"

	"github.com/caddy-x402/caddy-x402/caddymodule/access"
	"github.com/caddy-x402/caddy-x402/caddymodule/app"
	"github.com/caddy-x402/caddy-x402/facilitator"
)

// core is the paywall core of one route at run time: what every request
// carrying a payment goes through, whatever its scheme. It owns the
// route's offers (pricing), the payment identifier, the refusal cache and
// attempt limit (attempts), the claims and redemption records (redeem),
// exactly-once delivery and the resumption of earlier attempts, the
// facilitator calls of a checkout (verify, reserve, settle), and the
// metrics; it answers through reply and hands each payment to the route's
// scheme (seller, seller.go). The Handler (the Caddy module) makes it at
// Provision from its config; its methods take the receiver name h, as
// the Handler's did, for they are the handler's core.
type core struct {
	pricing     *pricing      // the route's options and offers (the Handler's)
	metrics     *routeMetrics // the route's metrics (the Handler's)
	client      facilitator.Client
	outcomes    outcomeLookup
	redeem      *app.Deliveries
	attempts    *attempts
	gate        *access.Gate // nil without access
	app         *app.App     // the x402 app, when configured
	settleWait  time.Duration
	settleAfter bool
	seller      Seller    // the route's scheme's seller side (seller.go)
	reply       *replies  // the route's answers (the Handler's, reply.go)
	receipts    *receipts // the signer of receipts (receipt.go); nil without offer_receipt
	logger      *zap.Logger

	// What the core reads of the route's config.
	forwardPaymentHeader bool   // Handler.ForwardPaymentHeader
	paymentIdentifier    string // Handler.PaymentIdentifier
}

// fillCore gives the route's core what it shares with the Handler's
// provisioning (pricing and metrics by pointer, copies of the rest), at
// the end of Provision. What only the core holds (client, outcomes,
// redeem, attempts, gate, settleWait, settleAfter, seller) Provision
// sets on it directly.
func (h *Handler) fillCore() {
	c := h.core
	c.pricing, c.metrics, c.app = &h.pricing, &h.metrics, h.app
	c.reply, c.logger, c.receipts = &h.reply, h.logger, h.reply.receipts
	c.forwardPaymentHeader, c.paymentIdentifier = h.ForwardPaymentHeader, h.PaymentIdentifier
}
