package paywall

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"go.uber.org/zap"

	"github.com/caddy-x402/caddy-x402/facilitator"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
	"github.com/caddy-x402/caddy-x402/internal/paytrace"
)

// The settle call shared by checkout.go (settle before delivery) and
// settle_after.go (after it), and what follows a settle that failed.

// settleRefused answers a settle that failed for good (nothing moved):
// 402 with its reason, naming the transaction that did not transfer the
// payment, if one was sent; 409 for a smart-contract wallet with another
// payment being settled (walletBusy).
func (rp *replies) settleRefused(w http.ResponseWriter, r *http.Request, sr *x402.SettleResponse) error {
	if sr.Error == x402.ReasonWalletBusy {
		return rp.walletBusy(w, r)
	}
	rp.setFailedResponse(w, r, sr)
	text := sr.Error
	if text == x402.ErrTextFailedOnChain && sr.TxHash != "" {
		text = fmt.Sprintf(textFailedOnChainTx, sr.Error, sr.TxHash)
	}
	return rp.paymentRequired(w, r, text, "")
}

// settleFailed handles a settle that gave no answer. When the facilitator
// said nothing was broadcast, the record goes; otherwise (a remote
// facilitator that could not be reached or did not answer) it stays
// "settling" and the next retry looks the outcome up.
func (h *core) settleFailed(id string, err error) {
	if notSent(err) {
		if err := h.redeem.Store().Delete(id); err != nil {
			h.logger.Error("removing an unsent payment from the redemption store failed", zap.String("id", id), zap.Error(err))
		}
	}
}

// recordSettled writes a settle's outcome to the authorization's record
// when the answer was decided before it (a metered charge, a buyer who
// hung up): settled is delivered (its revenue counted), pending keeps its
// transaction, refused removes the record, a failed settle goes to
// settleFailed. lost says, for the log, what a record not written as
// delivered risks.
func (h *core) recordSettled(r *http.Request, id string, rec *redemption, sr *x402.SettleResponse, err error, lost string) {
	switch {
	case err != nil:
		h.settleFailed(id, err)
	case sr.Settled():
		h.metrics.revenue(h.pricing.saleOf(r), sr)
		setSettled(rec, redeemDelivered, sr)
		if err := h.redeem.Store().Put(id, rec); err != nil {
			h.logger.Error(lost, zap.String("id", id), zap.Error(err))
		}
	case sr.Error == x402.ErrTextPending:
		// A retry finds it settled later.
		rec.State, rec.TxHash, rec.Updated = redeemPending, sr.TxHash, time.Now()
		_ = h.redeem.Store().Put(id, rec)
	default:
		_ = h.redeem.Store().Delete(id)
	}
}

// notSent reports whether a settle error means that nothing was broadcast:
// the facilitator's own answer 400 (bad request), 429 (rate limit) or 503
// (nothing was broadcast). A transport error, or any other status, leaves
// it unknown.
func notSent(err error) bool {
	var se *x402.StatusError
	if !errors.As(err, &se) {
		return false
	}
	switch se.Status {
	case http.StatusBadRequest, http.StatusTooManyRequests, http.StatusServiceUnavailable:
		return true
	}
	return false
}

// settle settles a verified payment (res, when the embedded facilitator
// reserved it for settle after). A buyer who hangs up does not cancel
// it: the transaction may already be broadcast, and the facilitator bounds
// the wait itself.
func (h *core) settle(r *http.Request, req *x402.Request, res *facilitator.Reservation) (*x402.SettleResponse, error) {
	if res != nil {
		return h.settleBy(r, req, res.Settle)
	}
	return h.settleBy(r, req, func(ctx context.Context) (*x402.SettleResponse, error) { return h.client.Settle(ctx, req) })
}

// settleBy runs a settle call (of the facilitator, or of a reservation)
// as settle describes, timed and logged.
func (h *core) settleBy(r *http.Request, req *x402.Request, call func(context.Context) (*x402.SettleResponse, error)) (*x402.SettleResponse, error) {
	ctx := context.WithoutCancel(r.Context())
	if h.settleWait > 0 {
		// The app's current settle_timeout, even when the facilitator was
		// started by an earlier config with another one.
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, h.settleWait)
		defer cancel()
	}
	ctx, sp := traceSettle(ctx) // trace.go
	settleStart := time.Now()
	sr, err := call(ctx)
	traceSettled(r, sp, sr, err)
	h.metrics.timeSettle(h.pricing.saleOf(r), settleStart)
	if err != nil {
		h.metrics.paymentCode(h.pricing.saleOf(r), OutcomeFailed, failedReason(err))
		h.logger.Error("settle could not be carried out", zap.String("network", req.PaymentRequirements.Network), zap.Error(err), paytrace.IDs(ctx))
		return nil, err
	}
	if !sr.Settled() {
		outcome := OutcomeRefused
		if sr.Error == x402.ErrTextPending {
			outcome = OutcomePending
		}
		h.metrics.payment(h.pricing.saleOf(r), outcome, sr.Error)
		h.logger.Info("payment not settled", zap.String("network", sr.Network),
			zap.String("error", sr.Error), zap.String("tx_hash", sr.TxHash), paytrace.IDs(ctx))
	}
	return sr, nil
}
