package paywall

import (
	"net/http"

	"go.uber.org/zap"

	"github.com/caddy-x402/caddy-x402/caddymodule/internal/httpx"
	"github.com/caddy-x402/caddy-x402/facilitator"
)

// A store fault is never the buyer's 500: a payment that the shared store
// (PostgreSQL) could not take, at whatever step, is answered 503 with
// Retry-After and what was done, so that the buyer sends it again.

// Texts of the 503 when the facilitator could not use its store, by the
// step that failed (facilitatorFailed's op).
var textsStoreFault = map[string]string{
	"verified":  "the payment store cannot be reached, so this payment was not taken: nothing was settled or charged",
	"settled":   "the payment store cannot be reached, so this payment was not settled: nothing was broadcast or charged",
	"confirmed": "the payment store cannot be reached, so the outcome of an earlier attempt with this payment cannot be read now: nothing more was charged for this request",
}

// retryStoreFault tells the buyer what to do after a store fault.
const retryStoreFault = "send the same request again with the same payment header shortly: it is served once the store answers, and charged at most once"

// storeFault answers 503 with Retry-After when err is a fault of the
// facilitator's shared store (facilitator.IsStoreUnavailable); handled is
// false otherwise.
func (rp *replies) storeFault(w http.ResponseWriter, op string, err error) (handled bool, werr error) {
	if !facilitator.IsStoreUnavailable(err) {
		return false, nil
	}
	text, ok := textsStoreFault[op]
	if !ok {
		text = textsStoreFault["settled"]
	}
	rp.logger.Error("the payment store cannot be reached; the payment is answered 503, to be sent again",
		zap.String("step", op), zap.Error(err))
	return true, httpx.WriteRetryJSON(w, http.StatusServiceUnavailable, text, retryStoreFault)
}

// failedReason is the x402_payments_total reason of a verify or settle
// that could not be carried out: store_unavailable for a store fault.
func failedReason(err error) string {
	if facilitator.IsStoreUnavailable(err) {
		return reasonStoreUnavailable
	}
	return ""
}
