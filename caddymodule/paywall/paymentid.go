package paywall

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"

	"github.com/caddy-x402/caddy-x402/caddymodule/app"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// The payment-identifier extension (x402 version 2): a buyer may send an
// id with its payment (16-128 characters of [A-Za-z0-9_-], in the
// payload's extensions) as an idempotency key. The paywall binds the id to
// the payment it first came with once that payment may move money (the
// redemption record is written before settle), in the redemption store,
// durably and per payer, and then:
//
//	the same id with the same payload (the same PAYMENT-SIGNATURE sent again)
//	    is that payment again: paid and not delivered yet, it gets the resource
//	    without a second charge; pending, the pending answer; delivered, 409
//	    "payment already delivered" with its transaction (and its signed
//	    receipt, on a route with offer_receipt): the upstream is not
//	    run a second time for one payment, and no upstream answer is cached
//	the same id with another payload (or at another resource)
//	    409, checked before verify: nothing is verified or settled
//	the same id while a request with it is being served
//	    409 "in progress"
//	an id in the wrong format
//	    400; a v2 payment without an id where payment_identifier is required: 400
//
// A payment whose settle moved no money (refused, or nothing broadcast)
// frees its id with its record, so a buyer may pay again under the same id.
// The binding is pruned with its record: an hour after the authorization
// expired.

// Payment identifier modes (Handler.PaymentIdentifier).
const (
	PaymentIDOptional = "optional"
	PaymentIDRequired = "required"
	PaymentIDOff      = "off"
)

// Reasons of the answers about a payment id in x402_payments_total: a
// 409 (the id belongs to another payment, or is in use) and a 400 (an id
// badly formed, or missing where one is required).
const (
	reasonPaymentIDConflict = "payment_identifier_conflict"
	reasonPaymentIDInvalid  = "invalid_payment_identifier"
)

// Texts of the answers about a payment id.
const (
	textPaymentIDConflict  = "payment identifier already used with a different payload"
	textPaymentIDElsewhere = "payment identifier already used for another resource"
	textPaymentIDDelivered = "payment already delivered"
	textPaymentIDBusy      = "a request with this payment identifier is in progress"

	retryPaymentIDConflict  = "nothing was charged for this request. The payment identifier belongs to an earlier payment: to get what that payment bought, send its PAYMENT-SIGNATURE header again unchanged; to buy again, use a new payment identifier"
	retryPaymentIDDelivered = "the resource was served once for this payment (the transaction above) and is not served or charged again; to buy it again, pay with a new payment identifier"
	retryPaymentIDBusy      = "wait for the answer to the first request; if it is lost, send the same PAYMENT-SIGNATURE header again"
)

// paymentID is the payment id a request carries.
type paymentID struct {
	id          string // as the buyer sent it
	key         string // in the redemption store: payer/id
	fingerprint string // the payload's (Payment.Fingerprint)
}

// paymentIDKey scopes an id to its payer (app.PaymentIDKey: the receipt
// look-up of package discovery finds it by the same key).
func paymentIDKey(payer, id string) string { return app.PaymentIDKey(payer, id) }

// paymentIDOf reads a payment's id: nil when it has none or the extension
// is off (or the payment is version 1, which has no extensions), and a
// 400 reason for an id in the wrong format, or none where one is required.
func (h *core) paymentIDOf(p *x402.Payment) (*paymentID, string) {
	if !h.reply.declaresPaymentID() || p.X402Version != x402.Version2 {
		return nil, ""
	}
	id, err := p.PaymentID()
	switch {
	case err != nil:
		return nil, x402.ReasonPaymentIDFormat
	case id == "" && h.paymentIdentifier == PaymentIDRequired:
		return nil, x402.ReasonPaymentIDRequired
	case id == "":
		return nil, ""
	}
	return &paymentID{id: id, key: paymentIDKey(p.Authorization.From.Hex(), id), fingerprint: p.Fingerprint()}, ""
}

// bindTo marks a new redemption record with the request's payment id, so
// that writing it binds the id.
func (pid *paymentID) bindTo(rec *redemption) *redemption {
	if pid != nil {
		rec.PaymentID, rec.Fingerprint = pid.key, pid.fingerprint
	}
	return rec
}

// busyKey is the payment id's key among the requests in flight.
func (pid *paymentID) busyKey() string { return "payment-id:" + pid.key }

// earlierWithPaymentID answers a request whose payment id is bound to an
// earlier payment when it cannot be served as that payment: 409 for
// another payload or resource, or a payment already delivered. It reports
// handled false when the id is new, or is this very payment not yet
// delivered (the redemption record takes it from there).
func (h *core) earlierWithPaymentID(w http.ResponseWriter, r *http.Request, pid *paymentID) (bool, error) {
	_, rec, err := h.redeem.Store().ByPaymentID(pid.key)
	switch {
	case err != nil:
		return true, h.reply.storeUnavailable(w, r, fmt.Errorf("reading the redemption store: %w", err))
	case rec == nil:
		return false, nil
	case rec.Fingerprint != pid.fingerprint:
		return true, h.reply.paymentIDAnswer(w, r, http.StatusConflict, paymentIDAnswer{Error: textPaymentIDConflict, PaymentID: pid.id, Retry: retryPaymentIDConflict})
	case rec.Route != h.routeKey(r):
		return true, h.reply.paymentIDAnswer(w, r, http.StatusConflict, paymentIDAnswer{Error: textPaymentIDElsewhere, PaymentID: pid.id, Retry: retryPaymentIDConflict})
	case rec.State == redeemDelivered && rec.AnswerLost:
		return false, nil // charged when its buyer hung up: the record answers (hangup.go)
	case rec.State == redeemDelivered:
		a := paymentIDAnswer{Error: textPaymentIDDelivered, PaymentID: pid.id, TxHash: rec.TxHash, Network: h.pricing.saleOf(r).v2Network(), Retry: retryPaymentIDDelivered}
		if sr := settlementOf(rec); sr != nil {
			a.Payer = sr.From
		}
		a.Extensions = receiptExtensions(rec.Receipt) // the payment's signed receipt, kept with its record
		return true, h.reply.paymentIDAnswer(w, r, http.StatusConflict, a)
	}
	return false, nil
}

// paymentIDAnswer is the JSON body of a 400 or 409 about a payment id.
type paymentIDAnswer struct {
	X402Version int    `json:"x402Version"`
	Error       string `json:"error"`
	PaymentID   string `json:"paymentId,omitempty"`
	TxHash      string `json:"transaction,omitempty"`
	Network     string `json:"network,omitempty"`
	Payer       string `json:"payer,omitempty"`
	Retry       string `json:"retry,omitempty"`
	// Extensions carries the delivered payment's signed receipt
	// (offer-receipt), when its route signed one.
	Extensions map[string]any `json:"extensions,omitempty"`
}

// paymentIDAnswer writes a 400 or 409 about a payment id. Nothing was
// verified or settled for the request.
func (rp *replies) paymentIDAnswer(w http.ResponseWriter, r *http.Request, status int, a paymentIDAnswer) error {
	code := reasonPaymentIDConflict
	if status == http.StatusBadRequest {
		code = reasonPaymentIDInvalid
	}
	rp.metrics.paymentCode(rp.pricing.saleOf(r), OutcomeRefused, code)
	a.X402Version = x402.Version2
	body, _ := json.Marshal(a)
	body = append(body, '\n')
	hdr := w.Header()
	hdr["Content-Type"] = jsonContentType
	hdr["Cache-Control"] = noStore
	if a.Error == textPaymentIDBusy {
		hdr.Set("Retry-After", "1")
	}
	hdr["Content-Length"] = []string{strconv.Itoa(len(body))}
	w.WriteHeader(status)
	_, err := w.Write(body)
	return err
}
