package paywall

import (
	"context"
	"net/http"
	"time"

	"go.uber.org/zap"

	"github.com/caddy-x402/caddy-x402/facilitator"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
	"github.com/caddy-x402/caddy-x402/internal/paytrace"
)

// verifyPayment verifies a payment and answers when it cannot go on: a
// JSON 500 when verify could not be carried out, a 402 when the payment is
// invalid (remembered by the refusal cache), unless it is used on chain
// and lost is a payment of this route whose records were lost
// (deliverLost).
func (h *core) verifyPayment(w http.ResponseWriter, r *http.Request, req *x402.Request,
	payment *x402.Payment, refusal [32]byte, lost *lostPayment) (bool, error) {
	verifyStart := time.Now()
	ctx, sp := traceVerify(r) // trace.go
	vr, err := h.client.Verify(ctx, req)
	traceVerified(sp, vr, err)
	h.metrics.timeVerify(h.pricing.saleOf(r), verifyStart)
	return h.verified(w, r, req, payment, refusal, vr, err, lost)
}

// reserver is a facilitator that holds a verified payment for a settle
// that comes later: the embedded one (facilitator.Facilitator.Reserve).
type reserver interface {
	Reserve(ctx context.Context, req *x402.Request) (*facilitator.Reservation, *x402.VerifyResponse, error)
}

// reservePayment is verifyPayment for settle after: with the embedded
// facilitator the payment is reserved too (its authorization, and its
// value against the payer's balance beside the payer's payments in
// flight), so that a payer who sends more authorizations at once than it
// can pay for is refused before the upstream runs. A remote facilitator
// only verifies (res is nil).
func (h *core) reservePayment(w http.ResponseWriter, r *http.Request, req *x402.Request,
	payment *x402.Payment, refusal [32]byte, lost *lostPayment) (res *facilitator.Reservation, ok bool, err error) {
	rs, can := h.client.(reserver)
	if !can {
		ok, err = h.verifyPayment(w, r, req, payment, refusal, lost)
		return nil, ok, err
	}
	verifyStart := time.Now()
	ctx, sp := traceVerify(r)
	res, vr, err := rs.Reserve(ctx, req)
	traceVerified(sp, vr, err)
	h.metrics.timeVerify(h.pricing.saleOf(r), verifyStart)
	ok, err = h.verified(w, r, req, payment, refusal, vr, err, lost)
	return res, ok, err
}

// verified answers a verify that did not pass.
func (h *core) verified(w http.ResponseWriter, r *http.Request, req *x402.Request, payment *x402.Payment, refusal [32]byte,
	vr *x402.VerifyResponse, err error, lost *lostPayment) (bool, error) {
	if err != nil {
		h.metrics.paymentCode(h.pricing.saleOf(r), OutcomeFailed, failedReason(err))
		h.logger.Error("verify could not be carried out", zap.String("network", req.PaymentRequirements.Network), zap.Error(err), paytrace.IDs(r.Context()))
		return false, h.reply.facilitatorFailed(w, "verified", err)
	}
	if !vr.IsValid && vr.Reason() == x402.ReasonWalletBusy {
		return false, h.reply.walletBusy(w, r)
	}
	if !vr.IsValid {
		if vr.Reason() == x402.ErrTextAlreadyUsed {
			if handled, err := h.deliverLost(w, r, lost); handled {
				return false, err
			}
		}
		h.metrics.payment(h.pricing.saleOf(r), OutcomeRefused, vr.Reason())
		h.attempts.refuse(refusal, payment, vr.Reason())
		return false, h.reply.paymentRequired(w, r, "", vr.Reason())
	}
	return true, nil
}
