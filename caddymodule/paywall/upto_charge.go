package paywall

import (
	"context"
	"fmt"
	"math/big"
	"net/http"
	"time"

	"go.uber.org/zap"

	"github.com/caddy-x402/caddy-x402/facilitator"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// uptoCharge is an upto payment's side of its metered answer: the meter
// writer (meter_writer.go) reads the charge from the answer and hands it
// here to be settled, as a channel request's charge goes to its
// answerCharge. It keeps the payment's redemption record in step with
// the settle and writes the payment's answers: the receipt, or why the
// charge was not settled.
type uptoCharge struct {
	u   *uptoSeller
	r   *http.Request
	req *x402.Request
	res *facilitator.Reservation // the payment held by the embedded facilitator, or nil
	id  string                   // the payment's redemption key
	rec *redemption
	v2  bool // the payment came in PAYMENT-SIGNATURE: the receipt trailer is PAYMENT-RESPONSE
	// usage is the meter's reading the charge was computed from ("" when
	// not metered), set by the meter writer before settle: the receipt signs it.
	usage string
}

// settle settles the charge: the record first says settling, then what
// the facilitator answered. It answers the settle's response (when a
// settle was asked) with its error.
func (c *uptoCharge) settle(charge *big.Int) (*x402.SettleResponse, error) {
	u, rec := c.u, c.rec
	rec.State, rec.Updated, rec.Usage = redeemSettling, time.Now(), c.usage
	if err := u.redeem.Store().Put(c.id, rec); err != nil {
		return nil, fmt.Errorf("x402: writing the redemption store: %w", err)
	}
	sr, err := u.settleCharge(c.r, c.req, c.res, charge)
	if err == nil && sr.Settled() && sr.Value == "" {
		sr.Value = charge.String() // a charge of 0 moves nothing: no transaction
	}
	if err == nil && sr.Settled() {
		rec.Receipt = u.core.signReceipt(c.r, sr, &charged{amount: charge.String(), usage: c.usage})
	}
	u.core.recordSettled(c.r, c.id, rec, sr, err, "marking an upto payment delivered failed; a retry could get the resource again")
	if err != nil {
		return sr, err
	}
	return sr, nil
}

// receipt writes the receipt of the settled charge (PAYMENT-RESPONSE, or
// X-PAYMENT-RESPONSE for version 1).
func (c *uptoCharge) receipt(w http.ResponseWriter, sr *x402.SettleResponse) {
	c.u.reply.settled(w, c.r, sr, c.rec.Receipt)
}

// refuse answers, instead of the held answer, a charge settled before
// that was not settled: the facilitator could not be asked (err), the
// transaction is pending, or the settle was refused.
func (c *uptoCharge) refuse(w http.ResponseWriter, sr *x402.SettleResponse, err error) {
	reply := c.u.reply
	switch {
	case err != nil:
		_ = reply.facilitatorFailed(w, "settled", err)
	case sr.Error == x402.ErrTextPending:
		_ = reply.pending(w, c.r, sr.TxHash)
	default:
		_ = reply.settleRefused(w, c.r, sr)
	}
}

// answerAfter ends an answer that went out before its charge was settled
// (settle after): the receipt in the trailer, or the failure, logged.
func (c *uptoCharge) answerAfter(w http.ResponseWriter, charge *big.Int, sr *x402.SettleResponse, err error) {
	u := c.u
	switch {
	case err != nil:
		u.logger.Error("settling an upto payment after its answer failed; the answer went out unpaid",
			zap.String("id", c.id), zap.String("charge", charge.String()), zap.Error(err))
		u.reply.setFailedResponse(w, c.r, &x402.SettleResponse{Event: x402.EventFailed,
			Network: u.pricing.saleOf(c.r).network(), Error: x402.MessageOf(err), Timestamp: x402.Timestamp(time.Now())})
	case sr.Settled():
		c.receipt(w, sr)
	default:
		u.logger.Error("an upto payment was not settled after its answer went out",
			zap.String("id", c.id), zap.String("charge", charge.String()), zap.String("error", sr.Error), zap.String("tx_hash", sr.TxHash))
		u.reply.setFailedResponse(w, c.r, sr)
	}
}

// settleCharge settles an upto payment at its charge: the reservation
// the embedded facilitator holds, or (a remote facilitator) the request
// with the charge as its amount.
func (u *uptoSeller) settleCharge(r *http.Request, req *x402.Request, res *facilitator.Reservation, charge *big.Int) (*x402.SettleResponse, error) {
	sreq := withAmount(req, charge.String())
	traceCharged(r, sreq.PaymentRequirements.MaxAmountRequired) // trace.go
	if res == nil {
		return u.core.settle(r, sreq, nil)
	}
	return u.core.settleBy(r, sreq, func(ctx context.Context) (*x402.SettleResponse, error) { return res.SettleAmount(ctx, charge) })
}

// withAmount is a copy of a request asking to settle amount (the charge),
// as the x402 reference servers settle an upto payment: the requirements'
// amount at settle is the charge.
func withAmount(req *x402.Request, amount string) *x402.Request {
	out := *req
	out.PaymentRequirements.MaxAmountRequired = amount
	if req.RequirementsV2 != nil {
		v2 := *req.RequirementsV2
		v2.Amount = amount
		out.RequirementsV2 = &v2
	}
	return &out
}
