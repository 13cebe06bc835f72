package paywall

import (
	"errors"
	"math/big"
	"net/http"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"go.uber.org/zap"

	"github.com/caddy-x402/caddy-x402/facilitator/store"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// Metering on a channel route (x402 batch-settlement).
//
// The voucher reserves the price: serveChannel charges the channel from
// base to base + price (the store's one conditional write) before the
// upstream runs, so the seller holds what the buyer signed whatever
// happens next. The answer is then metered as an upto answer is
// (meter_writer.go: Settlement-Overrides, else the meter, else the price;
// nothing for a status of 400 or more, or an answer that broke off before
// it was read), and a second Charge moves the channel's charged down to
// base + the charge. PAYMENT-RESPONSE carries chargedAmount (the charge)
// and channelState.chargedCumulativeAmount (the channel's charged after
// it), as the published server does after a settlement override, so the
// published client signs its next voucher from there: no corrective 402.
//
// The charge is known before the answer goes out: from the upstream's
// header at once (the answer streams), or from the meter at the end of a
// held answer (at most meter_max_bytes; past it the price is charged and
// the rest streams). A kill -9 between the two writes leaves the
// reservation: the seller keeps the price the buyer signed for, never
// more. When the second write is refused (the channel was claimed past
// it, or is being refunded), the reservation stands too and the answer
// says so (chargedAmount = the price). When the store cannot be reached,
// the record tells whether the write happened; when it cannot be read
// either, the answer goes out without a receipt (none rather than an
// untrue one), and the buyer's next voucher is corrected by a 402 to
// what the store holds.

// chanCharge is the charge of one channel request: its reservation, and
// the second write that settles the metered charge.
type chanCharge struct {
	rt       *chanRoute
	r        *http.Request
	reserved *store.Channel       // the record after the reservation
	price    *big.Int             // what the voucher reserved
	deposit  *x402.SettleResponse // the deposit's settle, or nil (a voucher)
	// respond writes the receipt (channel.go's setChannelResponse, handed
	// over so that this file does not call back into channel.go).
	respond func(w http.ResponseWriter, r *http.Request, c *store.Channel, charged *big.Int, deposit *x402.SettleResponse, cr *chanReceipt)
	usage   string         // the meter's reading the charge was computed from, "" when not metered (setUsage)
	done    bool           // settled, or released
	after   *store.Channel // the record after the settle
	charged *big.Int       // what the request was charged
}

// serveChannelMetered runs the upstream of a charged channel request
// through the meter and settles the charge (serveChannel's last step);
// then it lets go of the price held for the claim round (held, from
// heldCharges.hold: the charge is final).
func (rt *chanRoute) serveChannelMetered(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler, reserved *store.Channel,
	price *big.Int, deposit *x402.SettleResponse,
	respond func(http.ResponseWriter, *http.Request, *store.Channel, *big.Int, *x402.SettleResponse, *chanReceipt), held func()) (err error) {
	defer held()
	cc := &chanCharge{rt: rt, r: r, reserved: reserved, price: price, deposit: deposit, respond: respond}
	if rt.core.goneBeforeUpstream(r) {
		cc.release(w) // nothing went upstream, nothing is charged (hangup.go)
		return nil
	}
	rt.meter.forMeter(r) // the whole answer, whatever the buyer asked for (meter_request.go)
	mw := rt.meter.newWriter(w, r)
	mw.ch = cc
	defer func() {
		// reverse_proxy aborts an answer it cannot complete by panicking
		// with http.ErrAbortHandler (as in uptoSeller.serve): a held answer is
		// answered 502 and nothing is charged; a streaming one was settled;
		// a buyer who hung up is charged (hangup.go) and gets nothing.
		if p := recover(); p != nil {
			held := mw.holding()
			_ = mw.finish(errAnswerAborted)
			cc.release(w)
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
	err = traceMetered(r, func(ur *http.Request) error { return next.ServeHTTP(mw, ur) }, mw.finish) // trace.go
	cc.release(w)
	return err
}

// settle moves the channel's charged from the reservation to base +
// charge (charge at most the price: capped by the meter writer) and
// answers the receipt's settle response. It always succeeds for the
// buyer: a write that cannot be made leaves the reservation, logged.
func (cc *chanCharge) settle(charge *big.Int) *x402.SettleResponse {
	cc.done = true
	cc.after, cc.charged = cc.reserved, cc.price
	if refund := new(big.Int).Sub(cc.price, charge); refund.Sign() > 0 {
		var lowered bool
		if cc.after, lowered = cc.lower(refund); lowered {
			cc.charged = charge
		}
	}
	return &x402.SettleResponse{Event: x402.EventSettled, Value: cc.charged.String(), Network: cc.rt.pricing.saleOf(cc.r).network()}
}

// lower gives back refund of the reservation: the second write, from
// the reserved charged (or, when another request of the channel charged
// since, from the current one: the refund is this request's alone). It
// answers the record as it stands after it, and whether the refund was
// made (else the reservation stands).
func (cc *chanCharge) lower(refund *big.Int) (*store.Channel, bool) {
	rt, cur := cc.rt, cc.reserved
	// The buyer hanging up does not stop the write: what it paid for was
	// answered (or nothing was).
	ctx, cancel := detachedWrite(cc.r.Context())
	defer cancel()
	for try := 0; try < 3; try++ {
		target := new(big.Int).Sub(cur.Charged, refund)
		if target.Cmp(cur.Floor()) < 0 || cur.VoucherMax == nil {
			// Claimed past it since, or a claim is under way past it (a
			// claim round, on any instance, ran during a long answer):
			// what is claimed cannot be given back.
			rt.logger.Warn("a metered channel charge could not be lowered: the channel was claimed past it; the price stands",
				zap.String("channel", cur.ID), zap.String("refund", refund.String()), zap.String("floor", cur.Floor().String()), zap.String("claimed", cur.Claimed.String()))
			return cur, false
		}
		after, err := rt.store.Charge(ctx, cur.ID, cur.Charged, target, store.ChannelVoucher{Max: cur.VoucherMax, Signature: cur.VoucherSignature})
		switch {
		case err == nil:
			return after, true
		case errors.Is(err, store.ErrChannelConflict) && after != nil:
			cur = after // another request of the channel charged: lower from there
			continue
		case after != nil: // refused: not open, or out of range
			rt.logger.Warn("a metered channel charge could not be lowered; the price the voucher reserved stands",
				zap.String("channel", cur.ID), zap.String("refund", refund.String()), zap.Error(err))
			return after, false
		}
		// A store fault (PostgreSQL out of reach): the write happened or
		// not, and the record tells which.
		now, rerr := rt.store.Channel(ctx, cur.ID)
		switch {
		case rerr == nil && now != nil && now.Charged.Cmp(target) == 0:
			return now, true
		case rerr == nil && now != nil && now.Charged.Cmp(cur.Charged) == 0:
			continue // not written: again
		}
		rt.logger.Error("a metered channel charge could not be settled: the store cannot be reached; the answer goes out without a receipt (the buyer's next voucher is corrected by a 402 to what the store holds: the price reserved, or the charge)",
			zap.String("channel", cur.ID), zap.String("refund", refund.String()), zap.Error(err))
		return nil, false
	}
	rt.logger.Warn("a metered channel charge could not be lowered: the channel kept moving; the price the voucher reserved stands",
		zap.String("channel", cur.ID), zap.String("refund", refund.String()))
	return cur, false
}

// release charges nothing for a request whose answer was not settled
// (a status of 400 or more, no answer, an answer that broke off while
// held): the reservation is given back. A deposit's receipt still goes
// out (chargedAmount 0), so that the buyer records its deposit.
func (cc *chanCharge) release(w http.ResponseWriter) {
	if cc.done {
		return
	}
	cc.settle(new(big.Int))
	if cc.after != nil {
		// Nothing was served: the answer says so, with no signed receipt.
		cc.respond(w, cc.r, cc.after, cc.charged, cc.deposit, nil)
	}
}

// upgrade charges the price for a connection the upstream takes over
// (101 Switching Protocols): what goes through it cannot be metered.
func (cc *chanCharge) upgrade(w http.ResponseWriter) {
	cc.rt.metrics.metered(cc.rt.pricing.saleOf(cc.r), ChargeMaximum, cc.price)
	cc.settle(cc.price)
	cc.receipt(w)
}

// receipt writes PAYMENT-RESPONSE of a settled channel request: the
// channel's state after the charge and chargedAmount.
func (cc *chanCharge) receipt(w http.ResponseWriter) {
	if cc.after == nil {
		return // unknown (the store failed): no receipt rather than an untrue one
	}
	cc.respond(w, cc.r, cc.after, cc.charged, cc.deposit, &chanReceipt{max: cc.price, usage: cc.usage})
}

// setUsage keeps the meter's reading for the receipt (answerCharge).
func (cc *chanCharge) setUsage(usage string) { cc.usage = usage }

// validateChannelMeter checks the metering settings of a channel route.
func (m *Metering) validateChannelMeter() error {
	if m.MeterMaxBytes < 0 {
		return errors.New("x402: meter_max_bytes must not be negative")
	}
	if m.Meter != nil {
		return m.Meter.validate()
	}
	return nil
}
