package caddymodule

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"go.uber.org/zap"

	"github.com/caddy-x402/caddy-x402/facilitator"
	"github.com/caddy-x402/caddy-x402/facilitator/store"
)

// Paid means delivered, exactly once.
//
// Every authorization the paywall settles is recorded in the redemption
// store, keyed by network, payer and nonce, with the route (requirements
// and resource URL) it was presented at:
//
//	settling  written before settle is called
//	pending   settle answered "Settlement pending" with a txHash
//	paid      the money moved; written before the upstream is called
//	delivered the upstream's answer began (a status below 500)
//
// A later request with the same X-PAYMENT at the same route picks up where
// the record stands: paid goes to the upstream without paying again;
// settling and pending look the outcome up at the facilitator (by txHash,
// or by authorization) and deliver once it is settled. Any other reuse (another
// route, or after delivery, or another authorization with the same payer and
// nonce) is answered 402 "Authorization already used". A copy that comes
// while a request with the authorization is being served, here or at
// another instance, is answered 409 with Retry-After: that request may be
// moving the buyer's money.
// A crash anywhere leaves a record that the next retry resolves, so a buyer
// whose money moved gets the resource once.

// retryAfterPending is the Retry-After of a pending answer, in seconds.
const retryAfterPending = "2"

// textRetrySameHeader is what a pending or unclear answer tells the buyer.
const textRetrySameHeader = "the payment was sent and is not confirmed yet; retry this request with the same X-PAYMENT header to get the resource once it is (do not sign a new payment)"

// routeKey identifies the route and resource a payment is presented at:
// the option it chose, at the price resolved for its request, and the
// resource URL. (For a route of one network and a fixed price, the key
// is what it was before routes had several options.)
func (h *Handler) routeKey(r *http.Request) string {
	part := h.saleOf(r).part()
	s := sha256.New()
	s.Write(part.head)
	s.Write(part.tail)
	s.Write([]byte{0})
	s.Write([]byte(resourceURL(r)))
	return hex.EncodeToString(s.Sum(nil)[:16])
}

// redeemCase is what a request's authorization is, given its record.
type redeemCase int

const (
	redeemNew          redeemCase = iota // no record: verify and settle
	redeemRefuse                         // someone else's, or spent: 402
	redeemOtherAuth                      // the nonce is another authorization's: 402
	redeemDeliver                        // paid: deliver without paying again
	redeemPendingAgain                   // still pending: answer pending again
	redeemUnknown                        // outcome unknown (lookup failed): 500, keep the record
)

// resolve looks at the authorization's record and, for one that is
// settling or pending, asks the facilitator what became of it. The caller
// holds the authorization (acquire).
func (h *Handler) resolve(r *http.Request, id string, payment *facilitator.Payment) (redeemCase, *redemption, error) {
	rec, err := h.redeem.store.Get(id)
	if err != nil {
		return redeemUnknown, nil, fmt.Errorf("reading the redemption store: %w", err)
	}
	if rec == nil {
		return redeemNew, nil, nil
	}
	if rec.Authorization != "" && rec.Authorization != authFingerprint(payment) {
		return redeemOtherAuth, rec, nil
	}
	if rec.Route != h.routeKey(r) || rec.State == redeemDelivered {
		return redeemRefuse, rec, nil
	}
	switch rec.State {
	case redeemPaid:
		return redeemDeliver, rec, nil
	case redeemSettling, redeemPending:
	default:
		return redeemUnknown, rec, fmt.Errorf("redemption %s has unknown state %q", id, rec.State)
	}
	sr, err := h.lookup(r, rec, payment)
	switch {
	case rec.TxHash == "" && (errors.Is(err, errOutcomeNotFound) || errors.Is(err, errLookupUnsupported)):
		// The facilitator journals a settlement before it broadcasts, so
		// an authorization it does not know moved no money: start over.
		// (Without a lookup by authorization, start over too: verify and
		// the facilitator refuse an authorization already used.)
		if err := h.redeem.store.Delete(id); err != nil {
			return redeemUnknown, rec, err
		}
		return redeemNew, nil, nil
	case err != nil:
		return redeemUnknown, rec, err
	case sr.Settled():
		h.observeRevenue(r, sr)
		setSettled(rec, redeemPaid, sr)
		if err := h.redeem.store.Put(id, rec); err != nil {
			return redeemUnknown, rec, fmt.Errorf("writing the redemption store: %w", err)
		}
		return redeemDeliver, rec, nil
	case sr.Error == facilitator.ErrTextPending:
		if sr.TxHash != "" && sr.TxHash != rec.TxHash {
			rec.TxHash, rec.State, rec.Updated = sr.TxHash, redeemPending, time.Now()
			_ = h.redeem.store.Put(id, rec)
		}
		return redeemPendingAgain, rec, nil
	default:
		// Failed for good: nothing moved. Forget it; the authorization is
		// checked afresh (and most likely refused by verify).
		if err := h.redeem.store.Delete(id); err != nil {
			return redeemUnknown, rec, err
		}
		return redeemNew, nil, nil
	}
}

// lookup asks the facilitator for a settlement's outcome: by its
// transaction when one is known, else by its authorization.
func (h *Handler) lookup(r *http.Request, rec *redemption, payment *facilitator.Payment) (*facilitator.SettleResponse, error) {
	if rec.TxHash != "" {
		return h.outcomes.byTx(r.Context(), rec.TxHash)
	}
	a := &payment.Authorization
	return h.outcomes.byAuthorization(r.Context(), h.saleOf(r).network(), a.From.Hex(), "0x"+hex.EncodeToString(a.Nonce[:]))
}

// resumeEarlier answers a payment whose authorization this paywall has
// seen before, from its redemption record: refused when it belongs to
// another route or was delivered, delivered now when it was paid but not
// delivered, pending again while its transaction waits for a block. It
// reports handled false when there is no earlier attempt to resume and the
// caller goes on to verify and settle. The caller holds the claim on id.
func (h *Handler) resumeEarlier(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler,
	id string, payment *facilitator.Payment) (bool, error) {
	c, rec, err := h.resolve(r, id, payment)
	switch c {
	case redeemRefuse:
		h.observePayment(r, OutcomeRefused, facilitator.ErrTextAlreadyUsed)
		return true, h.paymentRequired(w, r, facilitator.ErrTextAlreadyUsed, "")
	case redeemOtherAuth:
		h.observePayment(r, OutcomeRefused, facilitator.ErrTextAlreadyUsed)
		return true, h.paymentRequired(w, r, textOtherAuthUsed, "")
	case redeemDeliver:
		return true, h.deliver(w, r, next, id, rec)
	case redeemPendingAgain:
		return true, h.pending(w, r, rec.TxHash)
	case redeemUnknown:
		h.logger.Error("the outcome of an earlier settlement of this payment is unknown; the buyer may retry",
			zap.String("id", id), zap.Error(err))
		return true, h.facilitatorFailed(w, "confirmed", &facilitator.StatusError{Status: http.StatusInternalServerError,
			Message: "the outcome of an earlier attempt with this payment is not known yet (" + err.Error() + "); retry with the same X-PAYMENT header", Err: err})
	}
	return false, nil
}

// servePaid serves a request that carries a payment, in either settlement
// order. It claims the payment id, if any, and the authorization first (a
// concurrent copy is answered 409 at once, to come back), answers a payment id bound to
// another payment, resumes an earlier attempt with the authorization at
// this route if there was one, and otherwise verifies the payment before
// settling it: before the upstream runs (settleThenDeliver) or when its
// answer starts (deliverThenSettle).
func (h *Handler) servePaid(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler,
	req *facilitator.Request, payment *facilitator.Payment, refusal [32]byte, pid *paymentID) error {
	if pid != nil {
		switch held, err := h.redeem.acquire(r.Context(), pid.busyKey()); {
		case err != nil:
			return h.storeUnavailable(w, r, err)
		case held != store.Claimed:
			return h.paymentIDAnswer(w, r, http.StatusConflict, paymentIDAnswer{Error: textPaymentIDBusy, PaymentID: pid.id, Retry: retryPaymentIDBusy})
		}
		defer h.redeem.release(pid.busyKey())
	}
	id := authID(h.saleOf(r).network(), payment.Authorization.From, payment.Authorization.Nonce)
	fp := authFingerprint(payment)
	switch held, holder, err := h.redeem.acquireAuth(r.Context(), id, fp); {
	case err != nil:
		return h.storeUnavailable(w, r, err)
	case held == store.HeldHere:
		return h.inFlight(w, r, reasonInFlight, holder, fp)
	case held == store.HeldElsewhere:
		return h.inFlight(w, r, reasonBusyElsewhere, h.recordedAuth(id), fp)
	}
	defer h.redeem.release(id)

	if pid != nil {
		if handled, err := h.earlierWithPaymentID(w, r, pid); handled {
			return err
		}
	}
	if handled, err := h.resumeEarlier(w, r, next, id, payment); handled {
		return err
	}

	lost := &lostPayment{next: next, id: id, payment: payment, pid: pid}
	if h.settleAfter {
		res, ok, err := h.reservePayment(w, r, req, payment, refusal, lost)
		if !ok {
			return err
		}
		return h.deliverThenSettle(w, r, next, req, payment, id, pid, res)
	}
	if ok, err := h.verifyPayment(w, r, req, payment, refusal, lost); !ok {
		return err
	}
	return h.settleThenDeliver(w, r, next, req, payment, id, pid)
}

// settleThenDeliver is the settle-before path for a verified payment that
// this route has not seen: settle, then deliver. The record written before
// settle binds the payment id, if any.
func (h *Handler) settleThenDeliver(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler,
	req *facilitator.Request, payment *facilitator.Payment, id string, pid *paymentID) error {

	rec := pid.bindTo(&redemption{Route: h.routeKey(r), State: redeemSettling, Authorization: authFingerprint(payment),
		ValidBefore: payment.Authorization.ValidBefore.String(), Updated: time.Now()})
	if err := h.redeem.store.Put(id, rec); err != nil {
		return h.storeUnavailable(w, r, fmt.Errorf("writing the redemption store: %w", err))
	}
	sr, err := h.settle(r, req, nil)
	if err != nil {
		h.settleFailed(id, err)
		return h.facilitatorFailed(w, "settled", err)
	}
	switch {
	case sr.Settled():
		h.observeRevenue(r, sr)
		setSettled(rec, redeemPaid, sr)
		if err := h.redeem.store.Put(id, rec); err != nil {
			// The money moved; the record still says settling, which the
			// next retry resolves.
			return h.paidUnrecorded(w, r, sr.TxHash, err)
		}
		return h.deliver(w, r, next, id, rec)
	case sr.Error == facilitator.ErrTextPending:
		rec.State, rec.TxHash, rec.Updated = redeemPending, sr.TxHash, time.Now()
		_ = h.redeem.store.Put(id, rec)
		return h.pending(w, r, sr.TxHash)
	default:
		if err := h.redeem.store.Delete(id); err != nil {
			h.logger.Error("removing a refused payment from the redemption store failed", zap.String("id", id), zap.Error(err))
		}
		return h.settleRefused(w, r, sr)
	}
}

// settleRefused answers a settle that failed for good (nothing moved):
// 402 with its reason, naming the transaction that did not transfer the
// payment, if one was sent; 409 for a smart-contract wallet with another
// payment being settled (walletBusy).
func (h *Handler) settleRefused(w http.ResponseWriter, r *http.Request, sr *facilitator.SettleResponse) error {
	if sr.Error == facilitator.ReasonWalletBusy {
		return h.walletBusy(w, r)
	}
	h.setFailedResponse(w, r, sr)
	text := sr.Error
	if text == facilitator.ErrTextFailedOnChain && sr.TxHash != "" {
		text = fmt.Sprintf(textFailedOnChainTx, sr.Error, sr.TxHash)
	}
	return h.paymentRequired(w, r, text, "")
}

// verifyPayment verifies a payment and answers when it cannot go on: a
// JSON 500 when verify could not be carried out, a 402 when the payment is
// invalid (remembered by the refusal cache), unless it is used on chain
// and lost is a payment of this route whose records were lost
// (deliverLost).
func (h *Handler) verifyPayment(w http.ResponseWriter, r *http.Request, req *facilitator.Request,
	payment *facilitator.Payment, refusal [32]byte, lost *lostPayment) (bool, error) {
	verifyStart := time.Now()
	vr, err := h.client.Verify(r.Context(), req)
	h.timeVerify(r, verifyStart)
	return h.verified(w, r, req, payment, refusal, vr, err, lost)
}

// reserver is a facilitator that holds a verified payment for a settle
// that comes later: the embedded one (facilitator.Facilitator.Reserve).
type reserver interface {
	Reserve(ctx context.Context, req *facilitator.Request) (*facilitator.Reservation, *facilitator.VerifyResponse, error)
}

// reservePayment is verifyPayment for settle after: with the embedded
// facilitator the payment is reserved too (its authorization, and its
// value against the payer's balance beside the payer's payments in
// flight), so that a payer who sends more authorizations at once than it
// can pay for is refused before the upstream runs. A remote facilitator
// only verifies (res is nil).
func (h *Handler) reservePayment(w http.ResponseWriter, r *http.Request, req *facilitator.Request,
	payment *facilitator.Payment, refusal [32]byte, lost *lostPayment) (res *facilitator.Reservation, ok bool, err error) {
	rs, can := h.client.(reserver)
	if !can {
		ok, err = h.verifyPayment(w, r, req, payment, refusal, lost)
		return nil, ok, err
	}
	verifyStart := time.Now()
	res, vr, err := rs.Reserve(r.Context(), req)
	h.timeVerify(r, verifyStart)
	ok, err = h.verified(w, r, req, payment, refusal, vr, err, lost)
	return res, ok, err
}

// verified answers a verify that did not pass.
func (h *Handler) verified(w http.ResponseWriter, r *http.Request, req *facilitator.Request, payment *facilitator.Payment, refusal [32]byte,
	vr *facilitator.VerifyResponse, err error, lost *lostPayment) (bool, error) {
	if err != nil {
		h.observePaymentCode(r, OutcomeFailed, failedReason(err))
		h.logger.Error("verify could not be carried out", zap.String("network", req.PaymentRequirements.Network), zap.Error(err))
		return false, h.facilitatorFailed(w, "verified", err)
	}
	if !vr.IsValid && vr.Reason() == facilitator.ReasonWalletBusy {
		return false, h.walletBusy(w, r)
	}
	if !vr.IsValid {
		if vr.Reason() == facilitator.ErrTextAlreadyUsed {
			if handled, err := h.deliverLost(w, r, lost); handled {
				return false, err
			}
		}
		h.observePayment(r, OutcomeRefused, vr.Reason())
		h.guard.refuse(refusal, payment, vr.Reason())
		return false, h.paymentRequired(w, r, "", vr.Reason())
	}
	return true, nil
}

// settleFailed handles a settle that gave no answer. When the facilitator
// said nothing was broadcast, the record goes; otherwise (a remote
// facilitator that could not be reached or did not answer) it stays
// "settling" and the next retry looks the outcome up.
func (h *Handler) settleFailed(id string, err error) {
	if notSent(err) {
		if err := h.redeem.store.Delete(id); err != nil {
			h.logger.Error("removing an unsent payment from the redemption store failed", zap.String("id", id), zap.Error(err))
		}
	}
}

// notSent reports whether a settle error means that nothing was broadcast:
// the facilitator's own answer 400 (bad request), 429 (rate limit) or 503
// (nothing was broadcast). A transport error, or any other status, leaves
// it unknown.
func notSent(err error) bool {
	var se *facilitator.StatusError
	if !errors.As(err, &se) {
		return false
	}
	switch se.Status {
	case http.StatusBadRequest, http.StatusTooManyRequests, http.StatusServiceUnavailable:
		return true
	}
	return false
}

// pending answers a payment whose transaction is not in a block yet: 402
// (spec 4.5 rule 4) with error "Settlement pending", the txHash in the body
// and in X-PAYMENT-RESPONSE, and the advice to retry with the same header.
func (h *Handler) pending(w http.ResponseWriter, r *http.Request, txHash string) error {
	sl := h.saleOf(r)
	sr := &facilitator.SettleResponse{Event: facilitator.EventFailed, TxHash: txHash, Network: sl.network(),
		Error: facilitator.ErrTextPending, Timestamp: facilitator.Timestamp(time.Now())}
	body := sl.offer.build(facilitator.ErrTextPending, "", resourceURL(r))
	extra := `"txHash":` + string(appendJSONString(nil, txHash)) + `,"retry":` + string(appendJSONString(nil, textRetrySameHeader)) + ","
	body = append([]byte("{"+extra), body[1:]...)
	hdr := w.Header()
	hdr["Content-Type"] = jsonContentType
	hdr["Cache-Control"] = noStore
	hdr.Set("Retry-After", retryAfterPending)
	h.setPaymentResponse(w, r, sr, sl.network())
	hdr["Content-Length"] = []string{strconv.Itoa(len(body))}
	w.WriteHeader(http.StatusPaymentRequired)
	_, err := w.Write(body)
	return err
}

// deliver runs the upstream for a paid authorization and marks it
// delivered once the upstream's answer begins with a status below 500. A
// buyer who hung up before that, or an upstream that failed, leaves it
// paid, so the next retry with the same header gets the resource.
func (h *Handler) deliver(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler, id string, rec *redemption) error {
	if r.Context().Err() != nil {
		h.logger.Info("buyer hung up before the paid answer began; a retry with the same X-PAYMENT gets it",
			zap.String("id", id), zap.String("tx_hash", rec.TxHash))
		return nil
	}
	h.settled(w, r, settlementOf(rec))
	dw := &deliverWriter{ResponseWriterWrapper: &caddyhttp.ResponseWriterWrapper{ResponseWriter: w}, h: h, id: id, rec: rec}
	return next.ServeHTTP(dw, r)
}

// deliverWriter marks a paid redemption delivered when the answer begins.
type deliverWriter struct {
	*caddyhttp.ResponseWriterWrapper
	h   *Handler
	id  string
	rec *redemption

	once   sync.Once
	status int // the final status written, 0 before WriteHeader
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
		if err := dw.h.redeem.store.Put(dw.id, &rec); err != nil {
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
	dw.ResponseWriterWrapper.WriteHeader(status)
}

func (dw *deliverWriter) Write(p []byte) (int, error) {
	dw.begin(dw.written())
	return dw.ResponseWriterWrapper.Write(p)
}

func (dw *deliverWriter) ReadFrom(src io.Reader) (int64, error) {
	dw.begin(dw.written())
	return dw.ResponseWriterWrapper.ReadFrom(src)
}

func (dw *deliverWriter) FlushError() error {
	dw.begin(dw.written())
	return http.NewResponseController(dw.ResponseWriterWrapper.ResponseWriter).Flush()
}

func (dw *deliverWriter) Flush() { _ = dw.FlushError() }

func (dw *deliverWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	dw.begin(http.StatusSwitchingProtocols)
	return http.NewResponseController(dw.ResponseWriterWrapper.ResponseWriter).Hijack()
}

// Reasons in x402_payments_total of the answers when no claim is decided:
// busy in this instance (409), busy on another instance (409), or the
// shared store out of reach (503).
const (
	reasonInFlight         = "in_flight"
	reasonBusyElsewhere    = "busy_elsewhere"
	reasonStoreUnavailable = "store_unavailable"
)

// Texts of the answers when no claim is decided, and of the refusal of
// another authorization with a nonce already presented.
const (
	textInFlight        = "another request with this payment is being served"
	retryInFlight       = "nothing more was charged for this request. Send the same payment header again in a moment: the first request's outcome is then known (if the instance serving it stopped, once its lease ran out, within seconds)"
	textOtherAuthBusy   = "a different authorization with the same nonce from the same payer is being served; only one of them can be paid"
	retryOtherAuthBusy  = "nothing was charged for this request. If the other authorization is paid, this one never can be (its nonce is used): sign a new payment. Send this one again in a moment to learn which"
	textInFlightUnknown = "another request with this payment, or with a different authorization with the same nonce from the same payer, is being served"
	textOtherAuthUsed   = facilitator.ErrTextAlreadyUsed + ": a different authorization with the same nonce from the same payer was presented before; sign a new payment"
	textFailedOnChainTx = "%s: transaction %s did not transfer the payment, so nothing was charged"
	textStoreDown       = "the payment store cannot be reached, so this payment was not taken: nothing was verified, settled or charged"
	retryStoreDown      = "send the same request again shortly"
	textPaidUnrecorded  = "the payment settled, but the payment store cannot be reached to record it, so the resource is not served yet"
	retryPaidUnrecorded = "send the same request again with the same payment header shortly: you get the resource without paying again"
	retryAfterClaimBusy = "2"
)

// inFlight answers a payment whose authorization (payer and nonce) a
// request of this instance or of another is serving: 409 with
// Retry-After, never a final refusal, since that request may be moving
// the buyer's money. holder is the serving request's authFingerprint ("" if
// not known), fp this request's: the text says whether it is this very
// payment or a different authorization with the same nonce.
func (h *Handler) inFlight(w http.ResponseWriter, r *http.Request, reason, holder, fp string) error {
	h.observePaymentCode(r, OutcomeRefused, reason)
	text, retry := textInFlight, retryInFlight
	switch {
	case holder == "":
		text = textInFlightUnknown
	case holder != fp:
		text, retry = textOtherAuthBusy, retryOtherAuthBusy
	}
	return writeRetryJSON(w, http.StatusConflict, text, retry)
}

// recordedAuth is the authFingerprint in an authorization's redemption
// record, "" when there is none (the request holding it has not written
// it yet) or it cannot be read.
func (h *Handler) recordedAuth(id string) string {
	rec, err := h.redeem.store.Get(id)
	if err != nil || rec == nil {
		return ""
	}
	return rec.Authorization
}

// storeUnavailable answers a payment when the shared store cannot be
// reached: 503 with Retry-After; nothing was verified or broadcast.
func (h *Handler) storeUnavailable(w http.ResponseWriter, r *http.Request, err error) error {
	h.observePaymentCode(r, OutcomeFailed, reasonStoreUnavailable)
	h.logger.Error("the payment store cannot be reached; paid requests are answered 503 until it is back", zap.Error(err))
	// Nothing was verified or settled for this request.
	return writeRetryJSON(w, http.StatusServiceUnavailable, textStoreDown, retryStoreDown)
}

// paidUnrecorded answers a payment that moved money when its record cannot
// be written: 503 with the transaction and Retry-After; the same header
// again gets the resource (the record still says settling, and the retry
// finds the settlement).
func (h *Handler) paidUnrecorded(w http.ResponseWriter, r *http.Request, txHash string, err error) error {
	h.observePaymentCode(r, OutcomeFailed, reasonStoreUnavailable)
	h.logger.Error("a payment settled but its redemption record could not be written; the buyer's retry with the same header gets the resource",
		zap.String("tx_hash", txHash), zap.Error(err))
	return writeRetryJSON(w, http.StatusServiceUnavailable, textPaidUnrecorded, retryPaidUnrecorded, "txHash", txHash)
}

// writeRetryJSON writes a JSON answer that tells the buyer to send the
// request again after Retry-After seconds.
func writeRetryJSON(w http.ResponseWriter, status int, text, retry string, extra ...string) error {
	fields := map[string]any{"x402Version": 1, "error": text, "retry": retry, "retryAfterSeconds": 2}
	for i := 0; i+1 < len(extra); i += 2 {
		fields[extra[i]] = extra[i+1]
	}
	body, _ := json.Marshal(fields)
	body = append(body, '\n')
	hdr := w.Header()
	hdr["Content-Type"] = jsonContentType
	hdr["Cache-Control"] = noStore
	hdr["Retry-After"] = []string{retryAfterClaimBusy}
	hdr["Content-Length"] = []string{strconv.Itoa(len(body))}
	w.WriteHeader(status)
	_, werr := w.Write(body)
	return werr
}
