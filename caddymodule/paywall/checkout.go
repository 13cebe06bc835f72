package paywall

import (
	"fmt"
	"net/http"
	"time"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"go.uber.org/zap"

	"github.com/caddy-x402/caddy-x402/caddymodule/internal/httpx"
	"github.com/caddy-x402/caddy-x402/facilitator/store"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// Paid means delivered, exactly once.
//
// Every authorization the paywall settles is recorded in the redemption
// store, keyed by network, payer and nonce, with the route (requirements
// and resource URL) it was presented at:
//
//	settling  written before settle is called
//	pending   settle answered "Settlement pending" with a txHash
//	paid      the money moved; written before the upstream is called
//	delivered the upstream's answer began (a status below 500)
//
// A later request with the same X-PAYMENT at the same route picks up where
// the record stands: paid goes to the upstream without paying again;
// settling and pending look the outcome up at the facilitator (by txHash,
// or by authorization) and deliver once it is settled. Any other reuse (another
// route, or after delivery, or another authorization with the same payer and
// nonce) is answered 402 "Authorization already used". A copy that comes
// while a request with the authorization is being served, here or at
// another instance, is answered 409 with Retry-After: that request may be
// moving the buyer's money.
// A crash anywhere leaves a record that the next retry resolves, so a buyer
// whose money moved gets the resource once.

// retryAfterPending is the Retry-After of a pending answer, in seconds.
const retryAfterPending = "2"

// textRetrySameHeader is what a pending or unclear answer tells the buyer.
const textRetrySameHeader = "the payment was sent and is not confirmed yet; retry this request with the same X-PAYMENT header to get the resource once it is (do not sign a new payment)"

// checkout is the core's pipeline for a payment of a scheme the
// checkoutScheme cs reads and pays: decode, the option of its network,
// its payment id, the refusal cache and the attempt limit, then the
// claims and the pay (servePaid).
func (h *core) checkout(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler, header string, cs checkoutScheme) error {
	sl := h.pricing.saleOf(r)
	_, v2 := h.reply.paymentHeader(r)
	// Decode here, so that a remote facilitator is not asked about
	// garbage and the upstream can be told who pays in settle-after mode.
	payment, err := x402.DecodePaymentHeader(header)
	if err == nil {
		sl.authScheme, err = cs.parse(payment)
	}
	if err != nil {
		h.metrics.payment(h.pricing.saleOf(r), OutcomeRefused, invalidReason(err))
		return h.reply.paymentRequired(w, r, "", invalidReason(err))
	}
	// The option of the network the payment names: it is verified and
	// settled against that option's requirements, at this request's price.
	opt, reason := h.pricing.choose(payment)
	sl.opt = opt
	tracePayment(r, payment, sl)
	if reason != "" {
		h.metrics.payment(h.pricing.saleOf(r), OutcomeRefused, reason)
		return h.reply.paymentRequired(w, r, "", reason)
	}
	pid, bad := h.paymentIDOf(payment)
	if bad != "" {
		return h.reply.paymentIDAnswer(w, r, http.StatusBadRequest, paymentIDAnswer{Error: bad})
	}

	// An authorization refused a moment ago (at this price) is refused
	// again from memory; otherwise the attempt counts against the
	// client's limit.
	key := refusalKey(payment, sl.part().reqs.MaxAmountRequired)
	if reason, ok := h.attempts.refusal(key); ok {
		h.metrics.payment(h.pricing.saleOf(r), OutcomeRefused, reason)
		return h.reply.paymentRequired(w, r, "", reason)
	}
	if ok, wait := h.attempts.allow(httpx.ClientIP(r)); !ok {
		h.metrics.payment(h.pricing.saleOf(r), OutcomeRateLimited, "")
		return tooManyAttempts(w, wait)
	}

	req := &x402.Request{
		X402Version:         x402.X402Version,
		PaymentHeader:       header,
		PaymentRequirements: sl.part().reqs,
	}
	if v2 {
		req = h.reply.v2Request(r, header, resourceURL(r))
	}
	req.PaymentRequirements.Resource = resourceURL(r)

	return h.servePaid(w, r, &claimed{next: next, req: req, payment: payment, refusal: key, pid: pid}, cs)
}

// checkoutScheme is a scheme's part of the core's checkout (checkout.go):
// it reads its payload into the payment's authorization, and serves a
// payment the core has claimed and found no earlier attempt of.
type checkoutScheme interface {
	// parse reads the payment's payload: the facilitator scheme of its
	// authorization (authScheme), or why it cannot be read.
	parse(p *x402.Payment) (string, error)
	// pay verifies, charges and settles a claimed payment around the
	// next handler, and answers.
	pay(w http.ResponseWriter, r *http.Request, c *claimed) error
}

// claimed is a payment the core's checkout has claimed (its payment id
// and authorization held by this request) and found no earlier attempt
// of.
type claimed struct {
	next    caddyhttp.Handler
	req     *x402.Request
	payment *x402.Payment
	refusal [32]byte     // its key in the refusal cache
	id      string       // its authorization's key in the redemption store
	pid     *paymentID   // its payment id, if any
	lost    *lostPayment // how to deliver it if its records were lost
}

// servePaid serves a request that carries a payment, in either settlement
// order. It claims the payment id, if any, and the authorization first (a
// concurrent copy is answered 409 at once, to come back), answers a payment id bound to
// another payment, resumes an earlier attempt with the authorization at
// this route if there was one, and otherwise verifies the payment before
// settling it: before the upstream runs (settleThenDeliver) or when its
// answer starts (deliverThenSettle).
func (h *core) servePaid(w http.ResponseWriter, r *http.Request, c *claimed, cs checkoutScheme) error {
	next, payment, pid := c.next, c.payment, c.pid
	_, csp := traceStep(r, spanClaim)
	defer csp.End() // ended once claimed, below
	if pid != nil {
		switch held, err := h.redeem.Acquire(r.Context(), pid.busyKey()); {
		case err != nil:
			return h.reply.storeUnavailable(w, r, err)
		case held != store.Claimed:
			return h.reply.paymentIDAnswer(w, r, http.StatusConflict, paymentIDAnswer{Error: textPaymentIDBusy, PaymentID: pid.id, Retry: retryPaymentIDBusy})
		}
		defer h.redeem.Release(pid.busyKey())
	}
	id := h.authIDOf(r, payment)
	fp := authFingerprint(payment)
	ac, err := h.redeem.AcquireAuth(r.Context(), id, fp)
	switch {
	case err != nil:
		return h.reply.storeUnavailable(w, r, err)
	case ac.Result == store.HeldHere:
		return h.reply.inFlight(w, r, reasonInFlight, ac.Holder, fp)
	case ac.Result == store.HeldElsewhere:
		return h.reply.inFlight(w, r, reasonBusyElsewhere, h.recordedAuth(id), fp)
	}
	defer ac.Release()
	csp.End()

	if pid != nil {
		if handled, err := h.earlierWithPaymentID(w, r, pid); handled {
			return err
		}
	}
	if handled, err := h.resumeEarlier(w, r, next, id, payment, ac.Record); handled {
		return err
	}

	c.id, c.lost = id, &lostPayment{next: next, id: id, payment: payment, pid: pid}
	return cs.pay(w, r, c)
}

// settleThenDeliver is the settle-before path for a verified payment that
// this route has not seen: settle, then deliver. The record written before
// settle binds the payment id, if any.
func (h *core) settleThenDeliver(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler,
	req *x402.Request, payment *x402.Payment, id string, pid *paymentID) error {

	rec := pid.bindTo(&redemption{Route: h.routeKey(r), State: redeemSettling, Authorization: authFingerprint(payment),
		ValidBefore: payment.Authorization.ValidBefore.String(), Updated: time.Now()})
	rsp := traceRecord(r, redeemSettling)
	err := h.redeem.Store().Put(id, rec)
	if rsp.End(); err != nil {
		return h.reply.storeUnavailable(w, r, fmt.Errorf("writing the redemption store: %w", err))
	}
	sr, err := h.settle(r, req, nil)
	if err != nil {
		h.settleFailed(id, err)
		return h.reply.facilitatorFailed(w, "settled", err)
	}
	switch {
	case sr.Settled():
		h.metrics.revenue(h.pricing.saleOf(r), sr)
		rec.Receipt = h.signReceipt(r, sr, nil)
		setSettled(rec, redeemPaid, sr)
		rsp := traceRecord(r, redeemPaid)
		err := h.redeem.Store().Put(id, rec)
		if rsp.End(); err != nil {
			// The money moved; the record still says settling, which the
			// next retry resolves.
			return h.reply.paidUnrecorded(w, r, sr.TxHash, err)
		}
		return h.deliver(w, r, next, id, rec)
	case sr.Error == x402.ErrTextPending:
		rec.State, rec.TxHash, rec.Updated = redeemPending, sr.TxHash, time.Now()
		_ = h.redeem.Store().Put(id, rec)
		return h.reply.pending(w, r, sr.TxHash)
	default:
		if err := h.redeem.Store().Delete(id); err != nil {
			h.logger.Error("removing a refused payment from the redemption store failed", zap.String("id", id), zap.Error(err))
		}
		return h.reply.settleRefused(w, r, sr)
	}
}

// recordedAuth is the authFingerprint in an authorization's redemption
// record, "" when there is none (the request holding it has not written
// it yet) or it cannot be read.
func (h *core) recordedAuth(id string) string {
	rec, err := h.redeem.Store().Get(id)
	if err != nil || rec == nil {
		return ""
	}
	return rec.Authorization
}
