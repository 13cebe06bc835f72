package paywall

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"strings"
	"sync"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"go.uber.org/zap"

	"github.com/caddy-x402/caddy-x402/caddymodule/internal/httpx"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// errUptoUpgrade refuses a connection takeover on an upto route: what
// goes through an upgraded connection cannot be metered.
var errUptoUpgrade = errors.New("x402: an upto route does not carry connection upgrades: what goes through them cannot be metered")

type meterState int

const (
	meterIdle      meterState = iota // nothing from the upstream yet
	meterPassing                     // status >= 400: through, nothing charged
	meterHolding                     // settle before: the answer is held until the charge is known
	meterStreaming                   // the answer goes through (settled before, or settled after it ends)
	meterDropped                     // the payment failed: the paywall answered, the upstream's answer is dropped
)

// meterWriter runs between the upstream and the buyer for an upto
// payment or a channel request: it takes the charge from the answer
// (Settlement-Overrides, the meter, else the maximum) and has the scheme
// settle it (up, an upto payment; ch, a channel request), before the
// answer goes out (settle before: held, at most meter_max_bytes of it) or
// after it ended (settle after, upto only: streamed as it comes, flushed
// per write for server-sent events, the receipt in a trailer).
type meterWriter struct {
	*caddyhttp.ResponseWriterWrapper
	m     *meterer
	r     *http.Request
	up    *uptoCharge // an upto payment's settle (upto_charge.go), or nil
	rule  chargeRule
	after bool
	max   int // meter_max_bytes

	mu       sync.Mutex
	state    meterState
	status   int
	sse      bool
	charge   *big.Int // known from the header (or: no meter, the maximum)
	source   string
	meter    *meterReader // nil when the charge is known or there is no meter
	held     bytes.Buffer // settle before: the answer held
	trailer  string       // settle after: the receipt's trailer name
	upgraded bool
	ch       answerCharge // a channel request's charge (channel_meter.go), or nil

	settled *x402.SettleResponse // the facilitator's answer to the charge's settle, nil before
	usage   string               // the meter's last reading ("<path>=<number>"), "" before: a receipt signs it
}

// answerCharge settles the charge of a request that is not an upto
// payment (a channel request: channel_meter.go): the meter writer hands
// it the charge instead of settling a payment.
type answerCharge interface {
	// settle charges the metered charge (at most the maximum).
	settle(charge *big.Int) *x402.SettleResponse
	// receipt writes the receipt of the settled charge.
	receipt(w http.ResponseWriter)
	// release charges nothing and writes its receipt (an answer not
	// settled: a status of 400 or more, no answer).
	release(w http.ResponseWriter)
	// upgrade charges the maximum for a connection the upstream takes
	// over, and writes its receipt.
	upgrade(w http.ResponseWriter)
	// setUsage gives the meter's reading the next charge is computed from
	// ("" when not metered), for its signed receipt.
	setUsage(usage string)
}

// newWriter wraps w, the answer to r, in a meter writer. The caller sets
// the scheme's side: up (an upto payment) or ch (a channel request).
func (m *meterer) newWriter(w http.ResponseWriter, r *http.Request) *meterWriter {
	return &meterWriter{ResponseWriterWrapper: &caddyhttp.ResponseWriterWrapper{ResponseWriter: w},
		m: m, r: r, rule: m.chargeRuleOf(r), after: m.after, max: m.maxBytes}
}

// WriteHeader decides, at the upstream's status, how the answer goes.
func (mw *meterWriter) WriteHeader(status int) {
	mw.mu.Lock()
	defer mw.mu.Unlock()
	mw.writeHeader(status)
}

func (mw *meterWriter) writeHeader(status int) {
	if mw.state != meterIdle {
		return
	}
	hdr := mw.ResponseWriter.Header()
	if status >= 100 && status < 200 && status != http.StatusSwitchingProtocols {
		mw.ResponseWriter.WriteHeader(status)
		return
	}
	override := hdr.Get(HeaderSettlementOverrides)
	hdr.Del(HeaderSettlementOverrides)
	dropOverrideTrailer(hdr) // announced as a trailer: not the buyer's to see (meter_request.go)
	if status == http.StatusSwitchingProtocols {
		mw.upgraded = true
		if mw.ch != nil {
			// A channel's voucher pays the price for the connection, which
			// goes through (channel_meter.go).
			mw.ch.upgrade(mw.ResponseWriter)
			mw.state = meterPassing
			mw.ResponseWriter.WriteHeader(status)
			return
		}
		mw.state = meterDropped
		return
	}
	if status >= 400 {
		if hungUp(mw.r, status) {
			mw.hangUp()
			return
		}
		mw.state = meterPassing
		if mw.ch != nil {
			mw.ch.release(mw.ResponseWriter) // nothing charged, said before the status goes out
		}
		mw.ResponseWriter.WriteHeader(status)
		return
	}
	mw.status = status
	mw.sse = isEventStream(hdr.Get("Content-Type"))
	if override != "" {
		if v, err := parseOverride(override, mw.rule.max, mw.rule.decimals); err != nil {
			mw.m.logger.Warn("the upstream's Settlement-Overrides header cannot be read; ignored (the meter, else the maximum, decides the charge)",
				zap.String("value", x402.Clip(override, 128)), zap.Error(err))
		} else {
			mw.charge, mw.source = mw.m.capCharge(mw.r, v, mw.rule.max, ChargeHeader), ChargeHeader
		}
	}
	if mw.charge == nil && mw.rule.unit != nil {
		if why := unreadable(status, hdr); why != "" {
			// Not the whole answer, or not one the meter reads: charged as
			// if it were read whole (meter_request.go).
			mw.m.logger.Warn("the meter cannot read the upstream's answer as a whole; charging the maximum (state the charge in Settlement-Overrides to charge less)",
				zap.String("reason", why), zap.String("uri", mw.r.RequestURI))
			mw.charge, mw.source = new(big.Int).Set(mw.rule.max), ChargeMaximum
		}
	}
	if mw.charge == nil {
		if mw.rule.unit == nil {
			mw.charge, mw.source = new(big.Int).Set(mw.rule.max), ChargeMaximum
		} else if mw.after || mw.sse {
			// Settle before keeps a JSON body whole (held) and reads it at
			// its end; everything else is read as it goes by.
			mw.meter = newMeterReader(mw.m.meter.Path, mw.max, mw.sse)
		}
	}
	if mw.after {
		hdr.Del("Content-Length")
		mw.trailer = httpx.HeaderPaymentResponse
		if mw.up.v2 {
			mw.trailer = x402.HeaderPaymentResponseV2
		}
		hdr.Add("Trailer", mw.trailer)
		mw.state = meterStreaming
		mw.ResponseWriter.WriteHeader(status)
		return
	}
	if mw.charge != nil {
		mw.settleBefore(false)
		return
	}
	mw.state = meterHolding
}

// settleBefore settles the charge and lets the held answer out (complete:
// all of it), or answers the failure instead. The caller holds mu.
func (mw *meterWriter) settleBefore(complete bool) {
	sr, err := mw.settle()
	if err != nil || !sr.Settled() {
		// Only an upto payment's settle fails (a channel's always
		// answers its receipt).
		mw.state = meterDropped
		clearHeader(mw.ResponseWriter.Header())
		mw.up.refuse(mw.ResponseWriter, sr, err)
		return
	}
	mw.receipt(sr)
	if complete {
		// The whole answer is held: say how long it is.
		mw.ResponseWriter.Header().Set("Content-Length", fmt.Sprint(mw.held.Len()))
	}
	mw.state = meterStreaming
	mw.ResponseWriter.WriteHeader(mw.status)
	if mw.held.Len() > 0 {
		_, _ = mw.ResponseWriter.Write(mw.held.Bytes())
		mw.held = bytes.Buffer{}
	}
}

// settle counts the charge and has the scheme settle it: a channel
// request's answerCharge, or the upto payment (uptoCharge.settle, which
// keeps its record). The caller holds mu.
func (mw *meterWriter) settle() (*x402.SettleResponse, error) {
	charge := mw.charge
	mw.m.metrics.metered(mw.m.pricing.saleOf(mw.r), mw.source, charge)
	usage := ""
	if mw.source == ChargeMeter {
		usage = mw.usage
	}
	if mw.ch != nil {
		mw.ch.setUsage(usage)
		return mw.ch.settle(charge), nil
	}
	mw.up.usage = usage
	sr, err := mw.up.settle(charge)
	mw.settled = sr
	if err != nil {
		return nil, err
	}
	return sr, nil
}

// Write meters the answer and passes it on, holds it, or drops it.
func (mw *meterWriter) Write(p []byte) (int, error) {
	mw.mu.Lock()
	defer mw.mu.Unlock()
	if mw.state == meterIdle {
		mw.writeHeader(http.StatusOK)
	}
	switch mw.state {
	case meterPassing:
		return mw.ResponseWriter.Write(p)
	case meterHolding:
		if mw.meter != nil {
			mw.meter.write(p)
		}
		if mw.held.Len()+len(p) <= mw.max {
			return mw.held.Write(p)
		}
		// Too long to hold: the meter cannot read the whole answer, so
		// the charge is the maximum, settled now; the rest streams.
		mw.m.logger.Warn("the upstream's answer is longer than meter_max_bytes, so the meter cannot read it; charging the maximum",
			zap.Int("meter_max_bytes", mw.max), zap.String("uri", mw.r.RequestURI))
		mw.charge, mw.source, mw.meter = new(big.Int).Set(mw.rule.max), ChargeMaximum, nil
		mw.settleBefore(false)
		if mw.state != meterStreaming {
			return len(p), nil
		}
		return mw.ResponseWriter.Write(p)
	case meterStreaming:
		if mw.meter != nil {
			mw.meter.write(p)
		}
		n, err := mw.ResponseWriter.Write(p)
		if err == nil && mw.sse {
			err = http.NewResponseController(mw.ResponseWriter).Flush()
			if errors.Is(err, http.ErrNotSupported) {
				err = nil
			}
		}
		return n, err
	}
	return len(p), nil // dropped
}

// ReadFrom is Write for io.Copy, so that the meter sees every byte.
func (mw *meterWriter) ReadFrom(src io.Reader) (int64, error) {
	return io.CopyBuffer(writerOnly{mw}, src, make([]byte, 32<<10))
}

type writerOnly struct{ io.Writer }

// FlushError flushes what goes through; a held answer stays held.
func (mw *meterWriter) FlushError() error {
	mw.mu.Lock()
	defer mw.mu.Unlock()
	if mw.state != meterStreaming && mw.state != meterPassing {
		return nil
	}
	return http.NewResponseController(mw.ResponseWriter).Flush()
}

// Flush implements http.Flusher.
func (mw *meterWriter) Flush() { _ = mw.FlushError() }

// Hijack is refused on an upto route: an upgraded connection cannot be
// metered. A channel request's connection goes through, at the price.
func (mw *meterWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	mw.mu.Lock()
	through := mw.ch != nil && mw.upgraded
	mw.mu.Unlock()
	if through {
		return http.NewResponseController(mw.ResponseWriter).Hijack()
	}
	return nil, nil, errUptoUpgrade
}

// holding reports whether the answer is held, nothing of it sent.
func (mw *meterWriter) holding() bool {
	mw.mu.Lock()
	defer mw.mu.Unlock()
	return mw.state == meterHolding
}

// finish ends the answer after the upstream returned: settles a held
// answer (settle before) or the streamed one (settle after), and answers
// what the upstream left unanswered.
func (mw *meterWriter) finish(upstreamErr error) error {
	mw.mu.Lock()
	defer mw.mu.Unlock()
	log := mw.m.logger
	if dropOverrideTrailer(mw.ResponseWriter.Header()) {
		log.Warn("the upstream sent Settlement-Overrides as a trailer; removed and ignored (the charge is read from the response header only): send it as a header",
			zap.String("uri", mw.r.RequestURI))
	}
	if mw.state == meterIdle {
		if upstreamErr != nil && hungUp(mw.r, 0) {
			mw.hangUp()
			return nil
		}
		if upstreamErr != nil {
			return upstreamErr // nothing answered, nothing charged: the error handler answers
		}
		mw.writeHeader(http.StatusOK) // an empty answer
	}
	switch mw.state {
	case meterPassing:
		return upstreamErr
	case meterDropped:
		if mw.upgraded {
			log.Warn("the upstream switched protocols on an upto route; refused, nothing charged", zap.String("uri", mw.r.RequestURI))
			return caddyhttp.Error(http.StatusBadGateway, errUptoUpgrade)
		}
		return nil
	case meterHolding:
		if upstreamErr != nil && hungUp(mw.r, 0) {
			mw.hangUp()
			return nil
		}
		if upstreamErr != nil {
			// The upstream broke off before its answer was complete:
			// nothing went out, nothing is charged.
			log.Warn("the upstream's answer broke off on an upto route; nothing charged", zap.Error(upstreamErr))
			return upstreamErr
		}
		mw.charge, mw.source = mw.chargeAtEnd(false)
		mw.settleBefore(true)
		return nil
	}
	// Streaming: settled before (done), or settle after now.
	if !mw.after {
		return upstreamErr
	}
	mw.charge, mw.source = mw.chargeAtEnd(upstreamErr != nil && mw.r.Context().Err() == nil)
	sr, err := mw.settle()
	mw.up.answerAfter(mw.ResponseWriter, mw.charge, sr, err)
	return upstreamErr
}

// chargeAtEnd is the charge of an answer that has ended: the header's,
// else the meter's reading, else the maximum. An answer the upstream
// broke off (broken; not the buyer hanging up) without a header or a
// reading is charged nothing.
func (mw *meterWriter) chargeAtEnd(broken bool) (*big.Int, string) {
	if mw.charge != nil && (mw.source == ChargeHeader || !broken) {
		return mw.charge, mw.source
	}
	if charge, ok := mw.reading(); ok {
		return charge, ChargeMeter
	}
	if broken {
		mw.m.logger.Warn("the upstream's answer broke off before the meter read it; nothing charged", zap.String("uri", mw.r.RequestURI))
		return new(big.Int), ChargeNone
	}
	if mw.rule.unit != nil {
		mw.m.logger.Warn("the meter found no number in the upstream's answer; charging the maximum",
			zap.String("path", mw.m.meter.Path), zap.String("uri", mw.r.RequestURI))
	}
	return new(big.Int).Set(mw.rule.max), ChargeMaximum
}

// reading is the charge of what the meter read of the answer so far
// (capped at the maximum), if it read a number.
func (mw *meterWriter) reading() (*big.Int, bool) {
	var count *big.Rat
	ok := false
	switch {
	case mw.meter != nil:
		count, ok = mw.meter.result()
	case mw.rule.unit != nil && mw.state == meterHolding:
		count, ok = jsonNumberAt(mw.held.Bytes(), mw.meterPath())
	}
	if !ok {
		return nil, false
	}
	mw.usage = mw.m.meter.Path + "=" + ratString(count)
	return mw.m.capCharge(mw.r, mw.rule.metered(count), mw.rule.max, ChargeMeter), true
}

// hangUp charges a request whose buyer hung up after it went to the
// upstream and before its answer went out (hangup.go): the charge known
// so far (the upstream's header, or the meter's reading of what came),
// else the maximum. An upto payment's record says that its answer is lost,
// so that a retry does not run the upstream again; a channel keeps the
// charge. Nothing goes out: the buyer is gone. The caller holds mu.
func (mw *meterWriter) hangUp() {
	if mw.charge == nil {
		if charge, ok := mw.reading(); ok {
			mw.charge, mw.source = charge, ChargeMeter
		} else {
			mw.charge, mw.source = new(big.Int).Set(mw.rule.max), ChargeMaximum
		}
	}
	mw.state = meterDropped
	id := "" // a channel request has no redemption record
	if mw.up != nil {
		mw.up.rec.AnswerLost = true
		id = mw.up.id
	}
	sr, err := mw.settle()
	mw.m.reply.logAnswerLost(mw.r, id, sr, err)
}

// receipt writes the receipt of a settled charge.
func (mw *meterWriter) receipt(sr *x402.SettleResponse) {
	if mw.ch != nil {
		mw.ch.receipt(mw.ResponseWriter)
		return
	}
	mw.up.receipt(mw.ResponseWriter, sr)
}

// meterPath is the meter's dotted path, split.
func (mw *meterWriter) meterPath() []string { return newMeterReader(mw.m.meter.Path, 0, false).path }

// isEventStream says whether the media type of Content-Type ct is
// text/event-stream, in any case and whatever its parameters, as
// mime.ParseMediaType reads it, without the map of parameters that one
// allocates on every answer (a voucher's path).
func isEventStream(ct string) bool {
	t, _, _ := strings.Cut(ct, ";")
	return strings.EqualFold(strings.TrimSpace(t), "text/event-stream")
}
