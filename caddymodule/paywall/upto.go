package paywall

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"github.com/ethereum/go-ethereum/common"
	"go.uber.org/zap"

	"github.com/caddy-x402/caddy-x402/caddymodule/app"
	"github.com/caddy-x402/caddy-x402/caddymodule/internal/httpx"
	"github.com/caddy-x402/caddy-x402/facilitator"
	"github.com/caddy-x402/caddy-x402/facilitator/permit2"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// Payment schemes a route can take.
const (
	// SchemeExact charges the price, whatever the upstream answers.
	SchemeExact = "exact"
	// SchemeUpto lets the buyer sign for a maximum (a Permit2 permit to
	// the x402 upto proxy) and charges what the upstream's answer says
	// was used (meter.go).
	SchemeUpto = x402.SchemeUpto
)

// uptoSeller is an upto route's seller side (its Seller, made by the
// uptoScheme module at Provision: upto_seller.go): it finishes the
// route's options as upto ones, learns a remote facilitator's address
// (upto_remote.go), reads a buyer's Permit2 payload, and serves a payment
// through the core's checkout: verify at the maximum, run the upstream
// through the meter, settle the charge before the answer goes out or
// after it ended (settle after, in the payer's turn: upto_after.go).
//
// It reads of the route: its options and sales (pricing), the meter
// (meterer), the metrics, the deliveries (redeem: the records, the
// settle-after turns and cooling-offs), the facilitator client and the
// remote facilitator's URL (a remote one is asked for its address:
// upto_remote.go), settle after, and the logger. It calls the route's
// core (core.go): its checkout, reservePayment, goneBeforeUpstream,
// routeKey, settle, settleBy and recordSettled; and the route's replies
// (reply.go): paymentHeader, settled, pending, settleRefused,
// facilitatorFailed and setFailedResponse.
type uptoSeller struct {
	core *core
	// reply is the route's replies: the Handler's, which Provision fills
	// in after the seller is made; read at requests only.
	reply       *replies
	pricing     *pricing
	meter       *meterer
	metrics     *routeMetrics
	redeem      *app.Deliveries
	client      facilitator.Client
	facilitator string // the remote facilitator's URL; "" for the embedded one
	settleAfter bool
	logger      *zap.Logger
	// remote is the address learnt from a remote facilitator; nil with
	// the embedded one.
	remote *uptoRemote
}

// newUptoSeller makes the route's options upto ones: scheme upto, and
// the extra the published clients need (assetTransferMethod permit2 and
// the facilitator's address, which the buyer's permit names as the one
// that may settle it), read from the facilitator's supported kinds.
func newUptoSeller(h *Handler, meter *meterer) (*uptoSeller, error) {
	u := &uptoSeller{core: h.core, reply: &h.reply, pricing: &h.pricing, meter: meter, metrics: &h.metrics, redeem: h.core.redeem,
		client: h.core.client, facilitator: h.Facilitator, settleAfter: h.core.settleAfter, logger: h.logger}
	u.warnUnmetered()
	var fac *facilitator.Facilitator
	if h.Facilitator == "" && h.app != nil {
		fac = h.app.Facilitator()
	}
	if err := checkSponsoring(h.GasSponsoring, fac); err != nil {
		return nil, err
	}
	if u.facilitator != "" {
		// A remote facilitator is asked for its address at the first
		// request (upto_remote.go).
		for i := range u.pricing.options {
			opt := &u.pricing.options[i]
			if opt.caip2 == "" {
				return nil, fmt.Errorf("x402: scheme upto on network %q needs its chain id (x402 version 2 only): name the network eip155:<chainId>", opt.reqs.Network)
			}
		}
		u.remote = &uptoRemote{}
		return u, nil
	}
	if fac == nil {
		return nil, errors.New("x402: scheme upto needs the x402 app's facilitator, or a remote facilitator")
	}
	for i := range u.pricing.options {
		opt := &u.pricing.options[i]
		addr := ""
		if extra, ok := fac.SchemeExtra(opt.reqs.Network, SchemeUpto); ok {
			var e struct {
				FacilitatorAddress string `json:"facilitatorAddress"`
			}
			if b, err := json.Marshal(extra); err == nil && json.Unmarshal(b, &e) == nil && common.IsHexAddress(e.FacilitatorAddress) {
				addr = common.HexToAddress(e.FacilitatorAddress).Hex()
			}
		}
		if addr == "" {
			return nil, fmt.Errorf("x402: scheme upto on network %q: the facilitator does not offer upto there (the chain needs Permit2 %s and the x402 upto proxy %s, and the network a signer key)",
				opt.reqs.Network, permit2.Address.Hex(), permit2.UptoProxyAddress.Hex())
		}
		if opt.caip2 == "" {
			return nil, fmt.Errorf("x402: scheme upto on network %q needs its chain id (x402 version 2 only): name the network eip155:<chainId>", opt.reqs.Network)
		}
		opt.extraV2 = map[string]any{"assetTransferMethod": "permit2", "facilitatorAddress": addr}
	}
	return u, nil
}

// ServePayment serves an upto payment through the core's checkout (its
// claims and records), which calls back parse and pay.
func (u *uptoSeller) ServePayment(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler, header string) error {
	if u.meter.refusesHead(r) {
		return u.reply.paymentRequired(w, r, textHeadMetered, "")
	}
	return u.core.checkout(w, r, next, header, u)
}

// parse reads the payload of a payment for an upto route: a Permit2
// witness transfer to the x402 upto proxy, whose fields the paywall keeps
// as an authorization (parsePermit2Payment) so that its records, claims
// and refusals key it by payer and nonce as any other (in Permit2's nonce
// space: noncespace.go). It answers the facilitator scheme of the
// authorization (authScheme).
func (u *uptoSeller) parse(payment *x402.Payment) (string, error) {
	if payment.Scheme != SchemeUpto {
		return "", &x402.InvalidPaymentError{Reason: x402.ReasonUnsupportedScheme(payment.Scheme)}
	}
	return authScheme(true, false), parsePermit2Payment(payment, true)
}

// pay serves a claimed upto payment (the checkout's last step,
// servePaid): verify at the maximum, run the upstream with the answer
// metered (meter_writer.go), settle the charge: before the answer goes
// out (settle before), or when it has ended (settle after, the receipt in
// a trailer).
func (u *uptoSeller) pay(w http.ResponseWriter, r *http.Request, c *claimed) (err error) {
	core, next, req, payment, id := u.core, c.next, c.req, c.payment, c.id
	res, ok, err := core.reservePayment(w, r, req, payment, c.refusal, c.lost)
	if !ok {
		return err
	}
	if res != nil {
		defer res.Release() // nothing settled (an upstream error): nothing moved
	}
	if core.goneBeforeUpstream(r) {
		return nil // nothing went upstream, nothing is charged (hangup.go)
	}
	sl := u.pricing.saleOf(r)
	r.Header.Set(httpx.HeaderFrom, payment.Authorization.From.Hex())
	r.Header.Set(httpx.HeaderValue, sl.part().reqs.MaxAmountRequired)
	r.Header.Set(httpx.HeaderNetwork, sl.network())
	u.meter.forMeter(r) // the whole answer, whatever the buyer asked for (meter_request.go)
	mw := u.meter.newWriter(w, r)
	_, v2 := u.reply.paymentHeader(r)
	mw.up = &uptoCharge{u: u, r: r, req: req, res: res, id: id, v2: v2,
		rec: c.pid.bindTo(&redemption{Route: core.routeKey(r), Authorization: authFingerprint(payment),
			ValidBefore: payment.Authorization.ValidBefore.String()})}
	// Settle after only in the payer's turn (upto_after.go); given back
	// once the settle is done, after the deferred finish below.
	turn := u.afterTurn(r, payment, id)
	mw.after = turn != nil
	defer func() { turn.end(mw.settledAfter()) }()
	defer func() {
		// reverse_proxy aborts an answer it cannot complete (the upstream
		// broke off, or the buyer hung up) by panicking with
		// http.ErrAbortHandler: what was streamed is charged by the rules
		// of an answer that broke off, then the panic goes on.
		// Held (settle before), nothing went out yet: the buyer gets a
		// 502 instead, and nothing is charged; a buyer who hung up is
		// charged (hangup.go) and gets nothing.
		if p := recover(); p != nil {
			held := mw.holding()
			_ = mw.finish(errAnswerAborted)
			if held && p == http.ErrAbortHandler && hungUp(r, 0) {
				err = nil
				return
			}
			if held && p == http.ErrAbortHandler {
				err = caddyhttp.Error(http.StatusBadGateway, errors.New("x402: the upstream's answer broke off before it was complete; nothing was charged"))
				return
			}
			panic(p)
		}
	}()
	return traceMetered(r, func(ur *http.Request) error { return next.ServeHTTP(mw, ur) }, mw.finish) // trace.go
}

// errAnswerAborted is an answer aborted by a panic of the next handler.
var errAnswerAborted = errors.New("x402: the answer was aborted")

// warnUnmetered says at start that an upto route without a meter charges
// every payment the maximum unless its upstream states the charge.
func (u *uptoSeller) warnUnmetered() {
	if u.meter.meter != nil {
		return
	}
	u.logger.Warn("scheme upto without meter: every payment is charged the maximum (the route's price) unless the upstream answers with a Settlement-Overrides header; add meter json <dotted path> <unit price> to charge what the answer used, or use scheme exact for a fixed price")
}
