package paywall

import (
	"net/http"

	"go.uber.org/zap"

	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// A buyer who hangs up (issue 32, finding 2).
//
// On a route that settles after the upstream (settle after, MCP), on an
// upto route and on a metered channel route, a payment runs the upstream
// once: once its request has gone to the upstream, it is spent. A buyer
// who hangs up before the answer begins is charged as if the answer had
// ended there (the meter's reading so far, else the maximum, else the
// price; a channel keeps the charge in its store), the answer, which is
// not kept, is lost, and the redemption record says so (AnswerLost): a
// retry with the same payment does not run the upstream again and is
// answered 402 with textAnswerLost. (A channel's voucher is spent by its
// charge: the same voucher again gets the corrective 402 with the
// channel's charged.) A buyer already gone before the request reaches
// the upstream is charged nothing and the upstream does not run.

// statusClientClosed is the status reverse_proxy writes when the buyer
// hung up before the upstream answered (nginx's 499, client closed request).
const statusClientClosed = 499

// textAnswerLost is the error of a retry with a payment whose answer was
// lost: it was charged when the buyer hung up, and nothing is served again.
const textAnswerLost = "Payment already charged: its request went to the upstream and the buyer hung up before the answer came; the answer was not kept and is not served again. Sign a new payment to buy again"

// hungUp reports whether the buyer hung up before the upstream's answer
// began: the request's context is done, and the upstream gave no answer
// of its own (no status, reverse_proxy's 499, or a failure of 500 or
// more, as an answer cut off by the hang-up is). An answer of 400 to 499
// the upstream chose stays free, as always.
func hungUp(r *http.Request, status int) bool {
	return r.Context().Err() != nil && (status == 0 || status == statusClientClosed || status >= 500)
}

// goneBeforeUpstream reports whether the buyer hung up before its request
// went to the upstream: then the upstream is not run, and nothing is
// charged.
func (h *core) goneBeforeUpstream(r *http.Request) bool {
	if r.Context().Err() == nil {
		return false
	}
	h.logger.Info("the buyer hung up before its paid request went to the upstream; not run, nothing charged",
		zap.String("uri", r.RequestURI))
	return true
}

// logAnswerLost logs the charge of a buyer who hung up.
func (rp *replies) logAnswerLost(r *http.Request, id string, sr *x402.SettleResponse, err error) {
	switch {
	case err != nil:
		rp.logger.Error("the buyer hung up after its request went to the upstream, and settling its payment could not be carried out",
			zap.String("id", id), zap.String("uri", r.RequestURI), zap.Error(err))
	case sr.Settled():
		rp.logger.Info("the buyer hung up after its request went to the upstream: charged, the answer is lost; a retry with the same payment is told so and does not run the upstream again",
			zap.String("id", id), zap.String("uri", r.RequestURI), zap.String("value", sr.Value), zap.String("tx_hash", sr.TxHash))
	default:
		rp.logger.Warn("the buyer hung up after its request went to the upstream, and its payment was not settled",
			zap.String("id", id), zap.String("uri", r.RequestURI), zap.String("error", sr.Error), zap.String("tx_hash", sr.TxHash))
	}
}

// answerLost answers a retry with a payment whose answer was lost (see
// the top of this file).
func (rp *replies) answerLost(w http.ResponseWriter, r *http.Request) error {
	rp.metrics.payment(rp.pricing.saleOf(r), OutcomeRefused, x402.ErrTextAlreadyUsed)
	return rp.paymentRequired(w, r, textAnswerLost, "")
}
