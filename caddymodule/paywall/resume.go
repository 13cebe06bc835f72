package paywall

import (
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"go.uber.org/zap"

	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// redeemCase is what a request's authorization is, given its record.
type redeemCase int

const (
	redeemNew          redeemCase = iota // no record: verify and settle
	redeemRefuse                         // someone else's, or spent: 402
	redeemOtherAuth                      // the nonce is another authorization's: 402
	redeemDeliver                        // paid: deliver without paying again
	redeemPendingAgain                   // still pending: answer pending again
	redeemUnknown                        // outcome unknown (lookup failed): 500, keep the record
	redeemLost                           // charged when the buyer hung up, the answer lost: 402 (hangup.go)
)

// resolve looks at the authorization's record and, for one that is
// settling or pending, asks the facilitator what became of it. The caller
// holds the authorization (acquire); read, when not nil, gives its record
// as read with the claim (AcquireAuth), instead of a read of the store.
func (h *core) resolve(r *http.Request, id string, payment *x402.Payment, read func() (*redemption, error)) (redeemCase, *redemption, error) {
	if read == nil {
		read = func() (*redemption, error) { return h.redeem.Store().Get(id) }
	}
	rec, err := read()
	if err != nil {
		return redeemUnknown, nil, fmt.Errorf("reading the redemption store: %w", err)
	}
	if rec == nil {
		return redeemNew, nil, nil
	}
	if rec.Authorization != "" && rec.Authorization != authFingerprint(payment) {
		return redeemOtherAuth, rec, nil
	}
	if rec.Route != h.routeKey(r) {
		return redeemRefuse, rec, nil
	}
	if rec.State == redeemDelivered {
		if rec.AnswerLost {
			return redeemLost, rec, nil
		}
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
	case sr.Settled() && rec.AnswerLost:
		// Charged when its buyer hung up (hangup.go): spent, never
		// delivered again.
		h.metrics.revenue(h.pricing.saleOf(r), sr)
		if len(rec.Receipt) == 0 {
			rec.Receipt = h.signReceipt(r, sr, h.meteredCharge(sr, rec))
		}
		setSettled(rec, redeemDelivered, sr)
		if err := h.redeem.Store().Put(id, rec); err != nil {
			return redeemUnknown, rec, fmt.Errorf("writing the redemption store: %w", err)
		}
		return redeemLost, rec, nil
	case sr.Settled():
		h.metrics.revenue(h.pricing.saleOf(r), sr)
		if len(rec.Receipt) == 0 {
			rec.Receipt = h.signReceipt(r, sr, h.meteredCharge(sr, rec))
		}
		setSettled(rec, redeemPaid, sr)
		if err := h.redeem.Store().Put(id, rec); err != nil {
			return redeemUnknown, rec, fmt.Errorf("writing the redemption store: %w", err)
		}
		return redeemDeliver, rec, nil
	case sr.Error == x402.ErrTextPending:
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
func (h *core) lookup(r *http.Request, rec *redemption, payment *x402.Payment) (*x402.SettleResponse, error) {
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
// caller goes on to verify and settle. The caller holds the claim on id;
// read is resolve's (nil: the record is read from the store).
func (h *core) resumeEarlier(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler,
	id string, payment *x402.Payment, read func() (*redemption, error)) (bool, error) {
	c, rec, err := h.resolve(r, id, payment, read)
	switch c {
	case redeemRefuse:
		h.metrics.payment(h.pricing.saleOf(r), OutcomeRefused, x402.ErrTextAlreadyUsed)
		return true, h.reply.paymentRequired(w, r, x402.ErrTextAlreadyUsed, "")
	case redeemLost:
		return true, h.reply.answerLost(w, r)
	case redeemOtherAuth:
		h.metrics.payment(h.pricing.saleOf(r), OutcomeRefused, x402.ErrTextAlreadyUsed)
		return true, h.reply.paymentRequired(w, r, textOtherAuthUsed, "")
	case redeemDeliver:
		return true, h.deliver(w, r, next, id, rec)
	case redeemPendingAgain:
		return true, h.reply.pending(w, r, rec.TxHash)
	case redeemUnknown:
		h.logger.Error("the outcome of an earlier settlement of this payment is unknown; the buyer may retry",
			zap.String("id", id), zap.Error(err))
		return true, h.reply.facilitatorFailed(w, "confirmed", &x402.StatusError{Status: http.StatusInternalServerError,
			Message: "the outcome of an earlier attempt with this payment is not known yet (" + err.Error() + "); retry with the same X-PAYMENT header", Err: err})
	}
	return false, nil
}
