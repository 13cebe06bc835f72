package paywall

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/caddy-x402/caddy-x402/caddymodule/internal/httpx"
	"github.com/caddy-x402/caddy-x402/facilitator"
	"github.com/caddy-x402/caddy-x402/facilitator/store"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// deliverThenSettle runs the next handler with a verified but unsettled
// payment and settles when the upstream's answer starts, if its status is
// below 400. The upstream is told who pays (X-Payment-From, -Value,
// -Network) but not the transaction, which does not exist yet.
//
// servePaid has reserved the authorization: while one request holds it,
// concurrent copies are answered 409 at once (to come back), so the upstream runs at
// most once per payment. An authorization found paid but not delivered (a
// crash, or a retry after a pending answer) was delivered there as in
// settle before: its upstream gets the transaction headers.
func (h *core) deliverThenSettle(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler,
	req *x402.Request, payment *x402.Payment, id string, pid *paymentID, res *facilitator.Reservation) error {

	if res != nil {
		defer res.Release() // nothing settled (an upstream error): nothing moved
	}
	r.Header.Set(httpx.HeaderFrom, payment.Authorization.From.Hex())
	r.Header.Set(httpx.HeaderValue, payment.Authorization.Value.String())
	r.Header.Set(httpx.HeaderNetwork, h.pricing.saleOf(r).network())

	sw := &settleWriter{ResponseWriterWrapper: &caddyhttp.ResponseWriterWrapper{ResponseWriter: w}, h: h, r: r, req: req, res: res,
		id: id, rec: pid.bindTo(&redemption{Route: h.routeKey(r), Authorization: authFingerprint(payment), ValidBefore: payment.Authorization.ValidBefore.String()})}
	if h.goneBeforeUpstream(r) {
		return nil // nothing went upstream, nothing is charged (hangup.go)
	}
	ur, usp := traceStep(r, spanUpstream) // trace.go
	err := next.ServeHTTP(sw, ur)
	usp.End()
	sw.mu.Lock()
	defer sw.mu.Unlock()
	if !sw.decided {
		switch {
		case err != nil && hungUp(r, 0):
			// The buyer hung up: the payment is spent (hangup.go).
			sw.decide(statusClientClosed)
		case err != nil:
			// The error handler answers; nothing was delivered, so no
			// money moves.
			return err
		default:
			// The upstream wrote nothing at all: an empty 200. Settle now.
			sw.decide(http.StatusOK)
		}
	}
	switch sw.state {
	case stateSettleError:
		// Nothing has gone out: answer 500 with the reason.
		return h.reply.facilitatorFailed(w, "settled", sw.settleErr)
	case stateRefused:
		return nil // 402 already written; the upstream's error no longer matters
	}
	return err
}

// errNotSettled refuses a connection takeover (Hijack, or a flush of an
// extended CONNECT tunnel) before the payment is settled.
var errNotSettled = errors.New("x402: the payment is not settled, so the connection cannot be taken over")

type settleState int

const (
	statePassing     settleState = iota // answer goes through unpaid (status >= 400)
	stateSettled                        // settled: the answer goes through
	stateRefused                        // settle failed; a 402 was written, the upstream's answer is dropped
	stateSettleError                    // settle could not be carried out; nothing written yet
)

// settleWriter intercepts the upstream's first WriteHeader, Write, ReadFrom
// or Flush, settles there when the status is below 400, and then passes the
// answer through unbuffered (or drops it if the payment failed).
type settleWriter struct {
	*caddyhttp.ResponseWriterWrapper
	h   *core
	r   *http.Request
	req *x402.Request
	res *facilitator.Reservation // the payment held by the embedded facilitator, or nil
	id  string                   // the authorization
	rec *redemption              // its record, written as the decision is made

	mu        sync.Mutex
	decided   bool
	state     settleState
	settleErr error
}

// decide settles or not for the status code, and writes the header
// accordingly. The caller holds mu.
func (sw *settleWriter) decide(status int) {
	sw.decided = true
	if hungUp(sw.r, status) {
		sw.settleHungUp()
		return
	}
	if status >= 400 {
		sw.state = statePassing
		sw.ResponseWriter.WriteHeader(status)
		return
	}
	h, rec := sw.h, sw.rec
	rec.State, rec.Updated = redeemSettling, time.Now()
	if err := h.redeem.Store().Put(sw.id, rec); err != nil {
		sw.state, sw.settleErr = stateSettleError, fmt.Errorf("x402: writing the redemption store: %w", err)
		clearHeader(sw.ResponseWriter.Header())
		return
	}
	sr, err := h.settle(sw.r, sw.req, sw.res)
	switch {
	case err != nil:
		h.settleFailed(sw.id, err)
		sw.state, sw.settleErr = stateSettleError, err
		clearHeader(sw.ResponseWriter.Header())
	case sr.Settled():
		// The answer begins right here: paid and delivered at once.
		h.metrics.revenue(h.pricing.saleOf(sw.r), sr)
		rec.Receipt = h.signReceipt(sw.r, sr, nil)
		setSettled(rec, redeemDelivered, sr)
		err := h.redeem.PutReleasing(sw.id, rec) // the claim goes with the record, as in deliverWriter

		if errors.Is(err, store.ErrClaimLost) {
			// Another instance took the payment over while this one was
			// paused: it delivers; this answer is dropped.
			sw.state = stateRefused
			h.reply.claimLost(sw.ResponseWriter, sw.r, sw.id, sr.TxHash, err)
			return
		}
		if err != nil {
			h.logger.Error("marking a payment delivered failed; a retry could get the resource again",
				zap.String("id", sw.id), zap.Error(err))
		}
		sw.state = stateSettled
		h.reply.settled(sw.ResponseWriter, sw.r, sr, rec.Receipt)
		sw.ResponseWriter.WriteHeader(status)
	case sr.Error == x402.ErrTextPending:
		// The upstream's answer is dropped; a retry with the same header
		// runs it again once the payment is in a block.
		rec.State, rec.TxHash, rec.Updated = redeemPending, sr.TxHash, time.Now()
		_ = h.redeem.Store().Put(sw.id, rec)
		sw.state = stateRefused
		clearHeader(sw.ResponseWriter.Header())
		_ = h.reply.pending(sw.ResponseWriter, sw.r, sr.TxHash)
	default:
		_ = h.redeem.Store().Delete(sw.id)
		sw.state = stateRefused
		clearHeader(sw.ResponseWriter.Header())
		_ = h.reply.settleRefused(sw.ResponseWriter, sw.r, sr)
	}
}

// settleHungUp settles the price of a payment whose buyer hung up after
// its request went to the upstream (hangup.go): it is spent, its answer
// lost, which its record says, so that a retry does not run the upstream
// again. Nothing is written to the buyer, who is gone, and the upstream's
// answer, if any, is dropped. The caller holds mu.
func (sw *settleWriter) settleHungUp() {
	h, rec := sw.h, sw.rec
	sw.state = stateRefused
	rec.State, rec.AnswerLost, rec.Updated = redeemSettling, true, time.Now()
	if err := h.redeem.Store().Put(sw.id, rec); err != nil {
		h.logger.Error("the buyer hung up after its request went to the upstream; its payment is not charged: the redemption store cannot be written",
			zap.String("id", sw.id), zap.Error(err))
		return
	}
	sr, err := h.settle(sw.r, sw.req, sw.res)
	h.reply.logAnswerLost(sw.r, sw.id, sr, err)
	if err == nil && sr.Settled() {
		rec.Receipt = h.signReceipt(sw.r, sr, nil) // kept for the look-up (discovery.ServeReceipt): the buyer is gone
	}
	h.recordSettled(sw.r, sw.id, rec, sr, err, "marking a payment charged for a buyer who hung up failed; a retry could run the upstream again")
}

// WriteHeader settles (status below 400) or not, then passes the status on.
// Informational answers other than 101 go through without a decision.
func (sw *settleWriter) WriteHeader(status int) {
	sw.mu.Lock()
	defer sw.mu.Unlock()
	if sw.decided {
		if sw.passing() {
			sw.ResponseWriter.WriteHeader(status)
		}
		return
	}
	if status >= 100 && status < 200 && status != http.StatusSwitchingProtocols {
		sw.ResponseWriter.WriteHeader(status)
		return
	}
	sw.decide(status)
}

// ensure makes the decision for an implicit 200 and reports whether the
// body goes through.
func (sw *settleWriter) ensure() bool {
	sw.mu.Lock()
	defer sw.mu.Unlock()
	if !sw.decided {
		sw.decide(http.StatusOK)
	}
	return sw.passing()
}

// passing reports whether the upstream's answer goes out. The caller
// holds mu.
func (sw *settleWriter) passing() bool { return sw.state == statePassing || sw.state == stateSettled }

// Write passes the body through once the payment is settled.
func (sw *settleWriter) Write(p []byte) (int, error) {
	if !sw.ensure() {
		return len(p), nil // dropped: the buyer got a 402 (or will get a 500)
	}
	return sw.ResponseWriter.Write(p)
}

// ReadFrom is Write for io.Copy (file_server's sendfile path).
func (sw *settleWriter) ReadFrom(src io.Reader) (int64, error) {
	if !sw.ensure() {
		return io.Copy(io.Discard, src)
	}
	return sw.ResponseWriterWrapper.ReadFrom(src)
}

// FlushError flushes, settling first if nothing was written yet, so that
// http.ResponseController never flushes an undecided answer. It fails when
// the payment was refused: an HTTP/2 extended CONNECT tunnel (which starts
// with a flush) must not open.
func (sw *settleWriter) FlushError() error {
	if !sw.ensure() {
		return errNotSettled
	}
	return http.NewResponseController(sw.ResponseWriter).Flush()
}

// Flush implements http.Flusher.
func (sw *settleWriter) Flush() { _ = sw.FlushError() }

// Hijack hands the connection over (a WebSocket upgrade through
// reverse_proxy) only once the payment is settled: the upstream's 101 is
// the decision, and an upgrade that was refused, or not decided, or not
// paid for (status 400 or more) is not taken over.
func (sw *settleWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	sw.mu.Lock()
	settled := sw.decided && sw.state == stateSettled
	sw.mu.Unlock()
	if !settled {
		return nil, nil, errNotSettled
	}
	return http.NewResponseController(sw.ResponseWriter).Hijack()
}
