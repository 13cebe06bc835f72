package paywall

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"go.uber.org/zap"

	"github.com/caddy-x402/caddy-x402/facilitator/store"
)

// deliver runs the upstream for a paid authorization and marks it
// delivered once the upstream's answer begins with a status below 500. A
// buyer who hung up before that, or an upstream that failed, leaves it
// paid, so the next retry with the same header gets the resource.
func (h *core) deliver(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler, id string, rec *redemption) error {
	if r.Context().Err() != nil {
		h.logger.Info("buyer hung up before the paid answer began; a retry with the same X-PAYMENT gets it",
			zap.String("id", id), zap.String("tx_hash", rec.TxHash))
		return nil
	}
	h.reply.settled(w, r, settlementOf(rec), rec.Receipt)
	dw := &deliverWriter{ResponseWriterWrapper: &caddyhttp.ResponseWriterWrapper{ResponseWriter: w}, h: h, r: r, id: id, rec: rec}
	ur, sp := traceStep(r, spanUpstream) // trace.go
	defer sp.End()
	return next.ServeHTTP(dw, ur)
}

// deliverWriter marks a paid redemption delivered when the answer begins.
// When that write finds the claim on the payment taken over by another
// instance (store.ErrClaimLost: this one was paused past its lease), the
// upstream's answer is dropped and the buyer told to retry (claimLost):
// the instance that holds the payment now delivers it, not both.
type deliverWriter struct {
	*caddyhttp.ResponseWriterWrapper
	h   *core
	r   *http.Request
	id  string
	rec *redemption

	once   sync.Once
	status int  // the final status written, 0 before WriteHeader
	lost   bool // the claim was lost: the upstream's answer is dropped
}

// written is the status the answer goes out with: the one WriteHeader
// gave, or 200 when the body starts without one.
func (dw *deliverWriter) written() int {
	if dw.status != 0 {
		return dw.status
	}
	return http.StatusOK
}

// begin records delivery for a status below 500 (and 101), before the
// status goes out.
func (dw *deliverWriter) begin(status int) {
	if status >= 500 || (status >= 100 && status < 200 && status != http.StatusSwitchingProtocols) {
		return
	}
	dw.once.Do(func() {
		rec := *dw.rec
		rec.State, rec.Updated = redeemDelivered, time.Now()
		// Delivered: the claim goes with the record (one round trip on
		// PostgreSQL), every copy being refused from the record now.
		err := dw.h.redeem.PutReleasing(dw.id, &rec)
		if errors.Is(err, store.ErrClaimLost) {
			dw.lost = true
			dw.h.reply.claimLost(dw.ResponseWriterWrapper.ResponseWriter, dw.r, dw.id, dw.rec.TxHash, err)
			return
		}
		if err != nil {
			dw.h.logger.Error("marking a payment delivered failed; a retry could get the resource again",
				zap.String("id", dw.id), zap.Error(err))
		}
	})
}

func (dw *deliverWriter) WriteHeader(status int) {
	if dw.status == 0 && (status >= 200 || status == http.StatusSwitchingProtocols) {
		dw.status = status
	}
	dw.begin(status)
	if dw.lost {
		return
	}
	dw.ResponseWriterWrapper.WriteHeader(status)
}

func (dw *deliverWriter) Write(p []byte) (int, error) {
	dw.begin(dw.written())
	if dw.lost {
		return len(p), nil
	}
	return dw.ResponseWriterWrapper.Write(p)
}

func (dw *deliverWriter) ReadFrom(src io.Reader) (int64, error) {
	dw.begin(dw.written())
	if dw.lost {
		return io.Copy(io.Discard, src)
	}
	return dw.ResponseWriterWrapper.ReadFrom(src)
}

func (dw *deliverWriter) FlushError() error {
	dw.begin(dw.written())
	if dw.lost {
		return nil
	}
	return http.NewResponseController(dw.ResponseWriterWrapper.ResponseWriter).Flush()
}

func (dw *deliverWriter) Flush() { _ = dw.FlushError() }

func (dw *deliverWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	dw.begin(http.StatusSwitchingProtocols)
	if dw.lost {
		return nil, nil, store.ErrClaimLost
	}
	return http.NewResponseController(dw.ResponseWriterWrapper.ResponseWriter).Hijack()
}
