package paywall

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"go.uber.org/zap"

	"github.com/caddy-x402/caddy-x402/facilitator"
	"github.com/caddy-x402/caddy-x402/facilitator/store"
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

// redeemCase is what a request's authorization is, given its record.
type redeemCase int

const (
	redeemNew          redeemCase = iota // no record: verify and settle
	redeemRefuse                         // someone else's, or spent: 402
	redeemOtherAuth                      // the nonce is another authorization's: 402
	redeemDeliver                        // paid: deliver without paying again
	redeemPendingAgain                   // still pending: answer pending again
	redeemUnknown                        // outcome unknown (lookup failed): 500, keep the record
)

// resolve looks at the authorization's record and, for one that is
// settling or pending, asks the facilitator what became of it. The caller
// holds the authorization (acquire).
func (h *Handler) resolve(r *http.Request, id string, payment *facilitator.Payment) (redeemCase, *redemption, error) {
	rec, err := h.redeem.Store().Get(id)
	if err != nil {
		return redeemUnknown, nil, fmt.Errorf("reading the redemption store: %w", err)
	}
	if rec == nil {
		return redeemNew, nil, nil
	}
	if rec.Authorization != "" && rec.Authorization != authFingerprint(payment) {
		return redeemOtherAuth, rec, nil
	}
	if rec.Route != h.routeKey(r) || rec.State == redeemDelivered {
		return redeemRefuse, rec, nil
	}
	switch rec.State {
	case redeemPaid:
		return redeemDeliver, rec, nil
	case redeemSettling, redeemPending:
	default:
		return redeemUnknown, rec, fmt.Errorf("redemption %s has unknown state %q", id, rec.State)
	}
	sr, err := h.lookup(r, rec, payment)
	switch {
	case rec.TxHash == "" && (errors.Is(err, errOutcomeNotFound) || errors.Is(err, errLookupUnsupported)):
		// The facilitator journals a settlement before it broadcasts, so
		// an authorization it does not know moved no money: start over.
		// (Without a lookup by authorization, start over too: verify and
		// the facilitator refuse an authorization already used.)
		if err := h.redeem.Store().Delete(id); err != nil {
			return redeemUnknown, rec, err
		}
		return redeemNew, nil, nil
	case err != nil:
		return redeemUnknown, rec, err
	case sr.Settled():
		h.metrics.revenue(h.pricing.saleOf(r), sr)
		setSettled(rec, redeemPaid, sr)
		if err := h.redeem.Store().Put(id, rec); err != nil {
			return redeemUnknown, rec, fmt.Errorf("writing the redemption store: %w", err)
		}
		return redeemDeliver, rec, nil
	case sr.Error == facilitator.ErrTextPending:
		if sr.TxHash != "" && sr.TxHash != rec.TxHash {
			rec.TxHash, rec.State, rec.Updated = sr.TxHash, redeemPending, time.Now()
			_ = h.redeem.Store().Put(id, rec)
		}
		return redeemPendingAgain, rec, nil
	default:
		// Failed for good: nothing moved. Forget it; the authorization is
		// checked afresh (and most likely refused by verify).
		if err := h.redeem.Store().Delete(id); err != nil {
			return redeemUnknown, rec, err
		}
		return redeemNew, nil, nil
	}
}

// lookup asks the facilitator for a settlement's outcome: by its
// transaction when one is known, else by its authorization.
func (h *Handler) lookup(r *http.Request, rec *redemption, payment *facilitator.Payment) (*facilitator.SettleResponse, error) {
	if rec.TxHash != "" {
		return h.outcomes.byTx(r.Context(), rec.TxHash)
	}
	a, sl := &payment.Authorization, h.pricing.saleOf(r)
	return h.outcomes.byAuthorization(r.Context(), sl.network(), sl.scheme(), a.From.Hex(), "0x"+hex.EncodeToString(a.Nonce[:]))
}

// resumeEarlier answers a payment whose authorization this paywall has
// seen before, from its redemption record: refused when it belongs to
// another route or was delivered, delivered now when it was paid but not
// delivered, pending again while its transaction waits for a block. It
// reports handled false when there is no earlier attempt to resume and the
// caller goes on to verify and settle. The caller holds the claim on id.
func (h *Handler) resumeEarlier(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler,
	id string, payment *facilitator.Payment) (bool, error) {
	c, rec, err := h.resolve(r, id, payment)
	switch c {
	case redeemRefuse:
		h.metrics.payment(h.pricing.saleOf(r), OutcomeRefused, facilitator.ErrTextAlreadyUsed)
		return true, h.paymentRequired(w, r, facilitator.ErrTextAlreadyUsed, "")
	case redeemOtherAuth:
		h.metrics.payment(h.pricing.saleOf(r), OutcomeRefused, facilitator.ErrTextAlreadyUsed)
		return true, h.paymentRequired(w, r, textOtherAuthUsed, "")
	case redeemDeliver:
		return true, h.deliver(w, r, next, id, rec)
	case redeemPendingAgain:
		return true, h.pending(w, r, rec.TxHash)
	case redeemUnknown:
		h.logger.Error("the outcome of an earlier settlement of this payment is unknown; the buyer may retry",
			zap.String("id", id), zap.Error(err))
		return true, h.facilitatorFailed(w, "confirmed", &facilitator.StatusError{Status: http.StatusInternalServerError,
			Message: "the outcome of an earlier attempt with this payment is not known yet (" + err.Error() + "); retry with the same X-PAYMENT header", Err: err})
	}
	return false, nil
}

// servePaid serves a request that carries a payment, in either settlement
// order. It claims the payment id, if any, and the authorization first (a
// concurrent copy is answered 409 at once, to come back), answers a payment id bound to
// another payment, resumes an earlier attempt with the authorization at
// this route if there was one, and otherwise verifies the payment before
// settling it: before the upstream runs (settleThenDeliver) or when its
// answer starts (deliverThenSettle).
func (h *Handler) servePaid(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler,
	req *facilitator.Request, payment *facilitator.Payment, refusal [32]byte, pid *paymentID) error {
	if pid != nil {
		switch held, err := h.redeem.Acquire(r.Context(), pid.busyKey()); {
		case err != nil:
			return h.storeUnavailable(w, r, err)
		case held != store.Claimed:
			return h.paymentIDAnswer(w, r, http.StatusConflict, paymentIDAnswer{Error: textPaymentIDBusy, PaymentID: pid.id, Retry: retryPaymentIDBusy})
		}
		defer h.redeem.Release(pid.busyKey())
	}
	id := h.authIDOf(r, payment)
	fp := authFingerprint(payment)
	switch held, holder, err := h.redeem.AcquireAuth(r.Context(), id, fp); {
	case err != nil:
		return h.storeUnavailable(w, r, err)
	case held == store.HeldHere:
		return h.inFlight(w, r, reasonInFlight, holder, fp)
	case held == store.HeldElsewhere:
		return h.inFlight(w, r, reasonBusyElsewhere, h.recordedAuth(id), fp)
	}
	defer h.redeem.Release(id)

	if pid != nil {
		if handled, err := h.earlierWithPaymentID(w, r, pid); handled {
			return err
		}
	}
	if handled, err := h.resumeEarlier(w, r, next, id, payment); handled {
		return err
	}

	lost := &lostPayment{next: next, id: id, payment: payment, pid: pid}
	if h.upto() {
		return h.serveUpto(w, r, next, req, payment, refusal, id, pid, lost)
	}
	if h.settleAfter {
		res, ok, err := h.reservePayment(w, r, req, payment, refusal, lost)
		if !ok {
			return err
		}
		return h.deliverThenSettle(w, r, next, req, payment, id, pid, res)
	}
	if ok, err := h.verifyPayment(w, r, req, payment, refusal, lost); !ok {
		return err
	}
	return h.settleThenDeliver(w, r, next, req, payment, id, pid)
}

// settleThenDeliver is the settle-before path for a verified payment that
// this route has not seen: settle, then deliver. The record written before
// settle binds the payment id, if any.
func (h *Handler) settleThenDeliver(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler,
	req *facilitator.Request, payment *facilitator.Payment, id string, pid *paymentID) error {

	rec := pid.bindTo(&redemption{Route: h.routeKey(r), State: redeemSettling, Authorization: authFingerprint(payment),
		ValidBefore: payment.Authorization.ValidBefore.String(), Updated: time.Now()})
	if err := h.redeem.Store().Put(id, rec); err != nil {
		return h.storeUnavailable(w, r, fmt.Errorf("writing the redemption store: %w", err))
	}
	sr, err := h.settle(r, req, nil)
	if err != nil {
		h.settleFailed(id, err)
		return h.facilitatorFailed(w, "settled", err)
	}
	switch {
	case sr.Settled():
		h.metrics.revenue(h.pricing.saleOf(r), sr)
		setSettled(rec, redeemPaid, sr)
		if err := h.redeem.Store().Put(id, rec); err != nil {
			// The money moved; the record still says settling, which the
			// next retry resolves.
			return h.paidUnrecorded(w, r, sr.TxHash, err)
		}
		return h.deliver(w, r, next, id, rec)
	case sr.Error == facilitator.ErrTextPending:
		rec.State, rec.TxHash, rec.Updated = redeemPending, sr.TxHash, time.Now()
		_ = h.redeem.Store().Put(id, rec)
		return h.pending(w, r, sr.TxHash)
	default:
		if err := h.redeem.Store().Delete(id); err != nil {
			h.logger.Error("removing a refused payment from the redemption store failed", zap.String("id", id), zap.Error(err))
		}
		return h.settleRefused(w, r, sr)
	}
}

// verifyPayment verifies a payment and answers when it cannot go on: a
// JSON 500 when verify could not be carried out, a 402 when the payment is
// invalid (remembered by the refusal cache), unless it is used on chain
// and lost is a payment of this route whose records were lost
// (deliverLost).
func (h *Handler) verifyPayment(w http.ResponseWriter, r *http.Request, req *facilitator.Request,
	payment *facilitator.Payment, refusal [32]byte, lost *lostPayment) (bool, error) {
	verifyStart := time.Now()
	vr, err := h.client.Verify(r.Context(), req)
	h.metrics.timeVerify(h.pricing.saleOf(r), verifyStart)
	return h.verified(w, r, req, payment, refusal, vr, err, lost)
}

// reserver is a facilitator that holds a verified payment for a settle
// that comes later: the embedded one (facilitator.Facilitator.Reserve).
type reserver interface {
	Reserve(ctx context.Context, req *facilitator.Request) (*facilitator.Reservation, *facilitator.VerifyResponse, error)
}

// reservePayment is verifyPayment for settle after: with the embedded
// facilitator the payment is reserved too (its authorization, and its
// value against the payer's balance beside the payer's payments in
// flight), so that a payer who sends more authorizations at once than it
// can pay for is refused before the upstream runs. A remote facilitator
// only verifies (res is nil).
func (h *Handler) reservePayment(w http.ResponseWriter, r *http.Request, req *facilitator.Request,
	payment *facilitator.Payment, refusal [32]byte, lost *lostPayment) (res *facilitator.Reservation, ok bool, err error) {
	rs, can := h.client.(reserver)
	if !can {
		ok, err = h.verifyPayment(w, r, req, payment, refusal, lost)
		return nil, ok, err
	}
	verifyStart := time.Now()
	res, vr, err := rs.Reserve(r.Context(), req)
	h.metrics.timeVerify(h.pricing.saleOf(r), verifyStart)
	ok, err = h.verified(w, r, req, payment, refusal, vr, err, lost)
	return res, ok, err
}

// verified answers a verify that did not pass.
func (h *Handler) verified(w http.ResponseWriter, r *http.Request, req *facilitator.Request, payment *facilitator.Payment, refusal [32]byte,
	vr *facilitator.VerifyResponse, err error, lost *lostPayment) (bool, error) {
	if err != nil {
		h.metrics.paymentCode(h.pricing.saleOf(r), OutcomeFailed, failedReason(err))
		h.logger.Error("verify could not be carried out", zap.String("network", req.PaymentRequirements.Network), zap.Error(err))
		return false, h.facilitatorFailed(w, "verified", err)
	}
	if !vr.IsValid && vr.Reason() == facilitator.ReasonWalletBusy {
		return false, h.walletBusy(w, r)
	}
	if !vr.IsValid {
		if vr.Reason() == facilitator.ErrTextAlreadyUsed {
			if handled, err := h.deliverLost(w, r, lost); handled {
				return false, err
			}
		}
		h.metrics.payment(h.pricing.saleOf(r), OutcomeRefused, vr.Reason())
		h.attempts.refuse(refusal, payment, vr.Reason())
		return false, h.paymentRequired(w, r, "", vr.Reason())
	}
	return true, nil
}

// recordedAuth is the authFingerprint in an authorization's redemption
// record, "" when there is none (the request holding it has not written
// it yet) or it cannot be read.
func (h *Handler) recordedAuth(id string) string {
	rec, err := h.redeem.Store().Get(id)
	if err != nil || rec == nil {
		return ""
	}
	return rec.Authorization
}
