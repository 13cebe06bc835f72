package caddymodule

import (
	"io"
	"net/http"
	"sync"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/caddy-x402/caddy-x402/facilitator"
)

// serveSettleAfter runs the next handler with a verified but unsettled
// payment and settles when the upstream's answer starts, if its status is
// below 400. The upstream is told who pays (X-Payment-From, -Value,
// -Network) but not the transaction, which does not exist yet.
func (h *Handler) serveSettleAfter(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler,
	req *facilitator.Request, payment *facilitator.Payment) error {
	r.Header.Set(HeaderFrom, payment.Authorization.From.Hex())
	r.Header.Set(HeaderValue, payment.Authorization.Value.String())
	r.Header.Set(HeaderNetwork, h.reqs.Network)

	sw := &settleWriter{ResponseWriterWrapper: &caddyhttp.ResponseWriterWrapper{ResponseWriter: w}, h: h, r: r, req: req}
	err := next.ServeHTTP(sw, r)
	sw.mu.Lock()
	defer sw.mu.Unlock()
	if !sw.decided {
		if err != nil {
			// The error handler answers; nothing was delivered, so no
			// money moves.
			return err
		}
		// The upstream wrote nothing at all: an empty 200. Settle now.
		sw.decide(http.StatusOK)
	}
	switch sw.state {
	case stateSettleError:
		// Nothing has gone out: answer 500 with the reason.
		return h.facilitatorFailed(w, "settled", sw.settleErr)
	case stateRefused:
		return nil // 402 already written; the upstream's error no longer matters
	}
	return err
}

type settleState int

const (
	statePassing     settleState = iota // answer goes through (settled, or status >= 400)
	stateRefused                        // settle failed; a 402 was written, the upstream's answer is dropped
	stateSettleError                    // settle could not be carried out; nothing written yet
)

// settleWriter intercepts the upstream's first WriteHeader, Write, ReadFrom
// or Flush, settles there when the status is below 400, and then passes the
// answer through unbuffered (or drops it if the payment failed).
type settleWriter struct {
	*caddyhttp.ResponseWriterWrapper
	h   *Handler
	r   *http.Request
	req *facilitator.Request

	mu        sync.Mutex
	decided   bool
	state     settleState
	settleErr error
}

// decide settles or not for the status code, and writes the header
// accordingly. The caller holds mu.
func (sw *settleWriter) decide(status int) {
	sw.decided = true
	if status >= 400 {
		sw.state = statePassing
		sw.ResponseWriter.WriteHeader(status)
		return
	}
	sr, err := sw.h.settle(sw.r, sw.req)
	switch {
	case err != nil:
		sw.state, sw.settleErr = stateSettleError, err
		clearHeader(sw.ResponseWriter.Header())
	case !sr.Settled():
		sw.state = stateRefused
		clearHeader(sw.ResponseWriter.Header())
		sw.h.setFailedResponse(sw.ResponseWriter, sw.r, sr)
		_ = sw.h.paymentRequired(sw.ResponseWriter, sw.r, sr.Error, "")
	default:
		sw.state = statePassing
		sw.h.settled(sw.ResponseWriter, sw.r, sr)
		sw.ResponseWriter.WriteHeader(status)
	}
}

func clearHeader(h http.Header) {
	for k := range h {
		delete(h, k)
	}
}

// WriteHeader settles (status below 400) or not, then passes the status on.
// Informational answers other than 101 go through without a decision.
func (sw *settleWriter) WriteHeader(status int) {
	sw.mu.Lock()
	defer sw.mu.Unlock()
	if sw.decided {
		if sw.state == statePassing {
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
	return sw.state == statePassing
}

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
// http.ResponseController never flushes an undecided answer.
func (sw *settleWriter) FlushError() error {
	if !sw.ensure() {
		return nil
	}
	return http.NewResponseController(sw.ResponseWriter).Flush()
}

// Flush implements http.Flusher.
func (sw *settleWriter) Flush() { _ = sw.FlushError() }
