package paywall

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"go.uber.org/zap"

	"github.com/caddy-x402/caddy-x402/caddymodule/access"
	"github.com/caddy-x402/caddy-x402/caddymodule/internal/httpx"
	"github.com/caddy-x402/caddy-x402/caddymodule/paywall/discovery"
	"github.com/caddy-x402/caddy-x402/facilitator"
	"github.com/caddy-x402/caddy-x402/facilitator/offerreceipt"
	"github.com/caddy-x402/caddy-x402/facilitator/remote"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
	"github.com/caddy-x402/caddy-x402/internal/paytrace"
)

// The remote facilitator client is a facilitator.Client.
var _ facilitator.Client = (*remote.Client)(nil)

// The paywall speaks x402 version 1 and version 2 at once: a 402 carries
// the v1 body and the v2 PAYMENT-REQUIRED header; a payment comes as
// PAYMENT-SIGNATURE (v2) or X-PAYMENT (v1, flat or nested) and its answer
// goes back in the matching header.

// exposedHeaders lets browser clients read the x402 headers.
const exposedHeaders = "PAYMENT-REQUIRED, PAYMENT-RESPONSE, X-PAYMENT-RESPONSE"

// v2State is what the paywall needs for version 2.
type v2State struct {
	on         bool           // some option's chain id is known: the 402 offers version 2
	extensions map[string]any // the 402's extensions
}

// replies writes the route's answers to a payment: the 402 with the
// requirements (and the payment page), pending, the 409s and 503s of a
// payment that cannot be decided now, the 500 of a facilitator failure
// or of a price that did not resolve, the refusal of a settle
// (settle.go), the answers about a payment id (paymentid.go), of a store
// fault (storefault.go), of a busy wallet (wallet_refusal.go) and of a
// lost answer (hangup.go), and the settlement attached to a paid request,
// each in the payment's x402 version (its dialect); and the facilitator
// request of a version 2 payment (v2Request), built in that dialect.
// Handler.Provision builds it (newReplies) once what it reads exists; the
// core and the channel route reach it through pointers of their own.
//
// It reads of the route: its pricing (the options and the request's
// sale), metrics, logger, access gate (nil without access), discovery
// declarations (nil without them), payment page, and of the config the
// description, mime type, scheme, payment identifier mode and whether the
// scheme exists in x402 version 2 only; and the v2 state it derives from
// them.
type replies struct {
	pricing     *pricing         // the route's payment options and offers (Handler.pricing)
	metrics     *routeMetrics    // the route's metrics (Handler.metrics)
	logger      *zap.Logger      // the route's logger
	gate        *access.Gate     // the access gate; nil without access
	disc        *discovery.Route // the bazaar declarations; nil-safe
	page        *PaywallPage     // the payment page (Handler.PaywallPage, built after newReplies)
	description string           // Description, in the v2 resource info
	mimeType    string           // MimeType, in the v2 resource info
	scheme      string           // Scheme, named in the v2-only body
	paymentID   string           // PaymentIdentifier: PaymentIDOptional, PaymentIDRequired or PaymentIDOff
	v2Only      bool             // the scheme exists in x402 version 2 only (upto, batch-settlement): reply_v2only.go
	v2          v2State          // version 2 on or off, and the 402's extensions (initV2)
	receipts    *receipts        // the signer of offers and receipts (receipt.go); nil without offer_receipt
}

// newReplies builds the route's replies from its handler, in Provision
// once the pricing, metrics label, access gate (on the core) and
// discovery declarations exist (the page is pointed at, and built after).
// It keeps no pointer to the handler.
func newReplies(h *Handler) replies {
	rp := replies{
		pricing: &h.pricing, metrics: &h.metrics, logger: h.logger, gate: h.core.gate, disc: h.disc, page: &h.PaywallPage,
		description: h.Description, mimeType: h.MimeType, scheme: h.Scheme, paymentID: h.PaymentIdentifier,
		v2Only: h.upto() || h.Scheme == SchemeChannel, receipts: newReceipts(h),
	}
	rp.initV2(h.GasSponsoring == GasSponsoringEIP2612)
	return rp
}

// initV2 turns version 2 on when some option's chain id is known, and
// declares the route's extensions: the payment identifier unless off, and
// EIP-2612 gas sponsoring when eip2612 is set.
func (rp *replies) initV2(eip2612 bool) {
	rp.v2 = v2State{}
	for i := range rp.pricing.options {
		if rp.pricing.options[i].caip2 != "" {
			rp.v2.on = true
		}
	}
	if !rp.v2.on {
		return
	}
	rp.v2.extensions = map[string]any{}
	if rp.declaresPaymentID() {
		rp.v2.extensions[x402.ExtPaymentIdentifier] = x402.DeclarePaymentIdentifier(rp.paymentID == PaymentIDRequired)
	}
	if eip2612 {
		rp.v2.extensions[x402.ExtEIP2612GasSponsoring] = eip2612Declaration()
	}
}

// isPreflight reports a CORS preflight: it is never charged.
func isPreflight(r *http.Request) bool {
	return r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != ""
}

// paymentHeader returns the buyer's payment header and whether it is v2.
func (rp *replies) paymentHeader(r *http.Request) (string, bool) {
	if v := r.Header.Get(x402.HeaderPaymentSignature); v != "" && rp.v2.on {
		return v, true
	}
	return r.Header.Get(httpx.HeaderPayment), false
}

// The 402's error for a request without a payment (a quote, not a
// refusal), and the same in version 2 answers.
const (
	textNoPayment   = "X-PAYMENT header is required"
	textNoPaymentV2 = "PAYMENT-SIGNATURE header is required"
)

// setPaymentRequired adds the v2 PAYMENT-REQUIRED header to a 402.
func (rp *replies) setPaymentRequired(hdr http.Header, r *http.Request, off *offer, errText, resource, method string) {
	hdr.Set("Access-Control-Expose-Headers", exposedHeaders)
	if !rp.v2.on {
		return
	}
	if errText == textNoPayment {
		errText = textNoPaymentV2
	}
	exts := rp.v2.extensions
	if rp.gate != nil {
		exts = rp.gate.Declare(exts, resource)
	}
	accepts := off.accepts()
	if rp.receipts != nil {
		if ext := rp.receipts.offersExtension(r, resource, v2Terms(accepts)); ext != nil {
			withOffers := make(map[string]any, len(exts)+1) // the route's map is shared by its requests
			maps.Copy(withOffers, exts)
			withOffers[offerreceipt.Name] = ext
			exts = withOffers
		}
	}
	pr := x402.PaymentRequiredV2{
		X402Version: x402.Version2,
		Error:       errText,
		Resource:    &x402.ResourceInfo{URL: resource, Description: rp.description, MimeType: rp.mimeType},
		Accepts:     accepts,
		Extensions:  rp.disc.WithBazaar(exts, method),
	}
	if v, err := x402.EncodeBase64JSON(pr); err == nil {
		hdr.Set(x402.HeaderPaymentRequired, v)
	}
}

// v2Request turns a v2 payment into the facilitator request for the
// option it chose: the v1 requirements (for the embedded facilitator and
// Cronos-flavour remotes) with the v2 ones beside them.
func (rp *replies) v2Request(r *http.Request, header string, resource string) *x402.Request {
	part := rp.pricing.saleOf(r).part()
	req := &x402.Request{
		X402Version:         x402.X402Version,
		PaymentHeader:       header,
		PaymentRequirements: part.reqs,
		Dialect:             x402.DialectV2,
		Resource:            &x402.ResourceInfo{URL: resource, Description: rp.description, MimeType: rp.mimeType},
	}
	if part.v2 != nil {
		reqs := *part.v2
		req.RequirementsV2 = &reqs
	}
	return req
}

// setPaymentResponse writes the settlement in the header matching the
// payment's version, with its signed receipt (receipt.go) when there is
// one.
func (rp *replies) setPaymentResponse(w http.ResponseWriter, r *http.Request, sr *x402.SettleResponse, network string, receipt json.RawMessage) {
	if _, v2 := rp.paymentHeader(r); v2 {
		ref := sr.Reference(sr.From, rp.pricing.saleOf(r).v2Network())
		ref.Extensions = receiptExtensions(receipt)
		if v, err := x402.EncodeBase64JSON(ref); err == nil {
			w.Header().Set(x402.HeaderPaymentResponseV2, v)
		}
		return
	}
	w.Header().Set(httpx.HeaderPaymentResponse, encodePaymentResponse(sr, network, receipt))
}

// setFailedResponse adds PAYMENT-RESPONSE with the failed settlement to a
// v2 payment's 402, as the v2 transport does.
func (rp *replies) setFailedResponse(w http.ResponseWriter, r *http.Request, sr *x402.SettleResponse) {
	if _, v2 := rp.paymentHeader(r); v2 {
		payer := ""
		if p, err := x402.DecodePaymentHeader(r.Header.Get(x402.HeaderPaymentSignature)); err == nil && p.ParsePayload() == nil {
			payer = p.Authorization.From.Hex()
		}
		if v, err := x402.EncodeBase64JSON(sr.Reference(payer, rp.pricing.saleOf(r).v2Network())); err == nil {
			w.Header().Set(x402.HeaderPaymentResponseV2, v)
		}
	}
}

// retryAfterFailed is the Retry-After of a facilitator failure, in seconds:
// health is checked about once a second, RPC endpoints cool down for five.
var retryAfterFailed = []string{"5"}

// facilitatorFailed answers 500 with a JSON reason when verify or settle
// could not be carried out (facilitator unreachable, refusing, rate
// limiting): never an empty body, and no money moved that the buyer does
// not know of (a pending settlement is an answer, not a failure). A fault
// of the shared store is answered 503 instead (storeFault).
func (rp *replies) facilitatorFailed(w http.ResponseWriter, op string, err error) error {
	if handled, werr := rp.storeFault(w, op, err); handled {
		return werr
	}
	msg := fmt.Sprintf("the payment could not be %s: %s", op, x402.MessageOf(err))
	if !strings.Contains(msg, "try again") && !strings.Contains(msg, "retry") {
		// Say what to do, once: most facilitator texts already do.
		msg += "; try again shortly"
	}
	body, _ := json.Marshal(map[string]any{
		"x402Version": 1,
		"error":       msg,
	})
	body = append(body, '\n')
	hdr := w.Header()
	hdr["Content-Type"] = jsonContentType
	hdr["Cache-Control"] = noStore
	hdr["Content-Length"] = []string{strconv.Itoa(len(body))}
	hdr["Retry-After"] = retryAfterFailed
	w.WriteHeader(http.StatusInternalServerError)
	_, werr := w.Write(body)
	return werr
}

// priceFailed answers a request whose price did not resolve: 500 (the
// seller's configuration is at fault), logged with the route and the
// value. Nothing was verified or settled, and the next handler did not run.
func (rp *replies) priceFailed(err error) error {
	var pe *priceError
	value, expr := "", rp.pricing.expr
	if errors.As(err, &pe) {
		value = pe.value
	}
	rp.logger.Error("the route's price did not resolve to a valid price for this request; answering 500, nothing charged: fix the placeholder or what sets it",
		zap.String("route", rp.metrics.label), zap.String("price", expr), zap.String("value", value), zap.Error(err))
	return caddyhttp.Error(http.StatusInternalServerError, err)
}

// pending answers a payment whose transaction is not in a block yet: 402
// (spec 4.5 rule 4) with error "Settlement pending", the txHash in the body
// and in X-PAYMENT-RESPONSE, and the advice to retry with the same header.
func (rp *replies) pending(w http.ResponseWriter, r *http.Request, txHash string) error {
	sl := rp.pricing.saleOf(r)
	sr := &x402.SettleResponse{Event: x402.EventFailed, TxHash: txHash, Network: sl.network(),
		Error: x402.ErrTextPending, Timestamp: x402.Timestamp(time.Now())}
	var body []byte
	if rp.v2Only {
		body = rp.v2OnlyBody(x402.ErrTextPending, "", txHash, textRetrySameHeader) // reply_v2only.go
	} else {
		body = sl.offer.build(x402.ErrTextPending, "", resourceURL(r))
		if rp.receipts != nil {
			body = rp.receipts.withOffers(r, body, sl.offer, resourceURL(r))
		}
		extra := `"txHash":` + string(appendJSONString(nil, txHash)) + `,"retry":` + string(appendJSONString(nil, textRetrySameHeader)) + ","
		body = append([]byte("{"+extra), body[1:]...)
	}
	hdr := w.Header()
	hdr["Content-Type"] = jsonContentType
	hdr["Cache-Control"] = noStore
	hdr.Set("Retry-After", retryAfterPending)
	rp.setPaymentResponse(w, r, sr, sl.network(), nil)
	hdr["Content-Length"] = []string{strconv.Itoa(len(body))}
	w.WriteHeader(http.StatusPaymentRequired)
	_, err := w.Write(body)
	return err
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
	textOtherAuthUsed   = x402.ErrTextAlreadyUsed + ": a different authorization with the same nonce from the same payer was presented before; sign a new payment"
	textFailedOnChainTx = "%s: transaction %s did not transfer the payment, so nothing was charged"
	textStoreDown       = "the payment store cannot be reached, so this payment was not taken: nothing was verified, settled or charged"
	retryStoreDown      = "send the same request again shortly"
	textPaidUnrecorded  = "the payment settled, but the payment store cannot be reached to record it, so the resource is not served yet"
	retryPaidUnrecorded = "send the same request again with the same payment header shortly: you get the resource without paying again"
)

// inFlight answers a payment whose authorization (payer and nonce) a
// request of this instance or of another is serving: 409 with
// Retry-After, never a final refusal, since that request may be moving
// the buyer's money. holder is the serving request's authFingerprint ("" if
// not known), fp this request's: the text says whether it is this very
// payment or a different authorization with the same nonce.
func (rp *replies) inFlight(w http.ResponseWriter, r *http.Request, reason, holder, fp string) error {
	rp.metrics.paymentCode(rp.pricing.saleOf(r), OutcomeRefused, reason)
	text, retry := textInFlight, retryInFlight
	switch {
	case holder == "":
		text = textInFlightUnknown
	case holder != fp:
		text, retry = textOtherAuthBusy, retryOtherAuthBusy
	}
	return httpx.WriteRetryJSON(w, http.StatusConflict, text, retry)
}

// storeUnavailable answers a payment when the shared store cannot be
// reached: 503 with Retry-After; nothing was verified or broadcast.
func (rp *replies) storeUnavailable(w http.ResponseWriter, r *http.Request, err error) error {
	rp.metrics.paymentCode(rp.pricing.saleOf(r), OutcomeFailed, reasonStoreUnavailable)
	rp.logger.Error("the payment store cannot be reached; paid requests are answered 503 until it is back", zap.Error(err))
	// Nothing was verified or settled for this request.
	return httpx.WriteRetryJSON(w, http.StatusServiceUnavailable, textStoreDown, retryStoreDown)
}

// Texts of claimLost.
const (
	textClaimLost  = "this instance lost its hold on the payment (it was paused past its lease) and another instance took the payment over; this answer was not sent, so that the payment is not delivered twice"
	retryClaimLost = "the payment was settled (txHash); send the same payment header again in a moment: the instance that holds the payment now answers it"
)

// claimLost answers a paid request whose claim another instance took over
// while this one was paused past its lease (store.ErrClaimLost): 409 with
// the transaction and Retry-After; nothing of the upstream's answer is
// sent, the new holder delivers the payment.
func (rp *replies) claimLost(w http.ResponseWriter, r *http.Request, id, txHash string, err error) {
	rp.metrics.paymentCode(rp.pricing.saleOf(r), OutcomeFailed, reasonStoreUnavailable)
	rp.logger.Warn("a paid request lost its claim on the payment: this instance was paused past its lease and another instance took the payment over; its answer was dropped so that the payment is delivered once, by the new holder (if this recurs, look at why the instance stalls or set a longer lease)",
		zap.String("id", id), zap.String("tx_hash", txHash), zap.Error(err))
	clearHeader(w.Header())
	_ = httpx.WriteRetryJSON(w, http.StatusConflict, textClaimLost, retryClaimLost, "txHash", txHash)
}

// paidUnrecorded answers a payment that moved money when its record cannot
// be written: 503 with the transaction and Retry-After; the same header
// again gets the resource (the record still says settling, and the retry
// finds the settlement).
func (rp *replies) paidUnrecorded(w http.ResponseWriter, r *http.Request, txHash string, err error) error {
	rp.metrics.paymentCode(rp.pricing.saleOf(r), OutcomeFailed, reasonStoreUnavailable)
	rp.logger.Error("a payment settled but its redemption record could not be written; the buyer's retry with the same header gets the resource",
		zap.String("tx_hash", txHash), zap.Error(err))
	return httpx.WriteRetryJSON(w, http.StatusServiceUnavailable, textPaidUnrecorded, retryPaidUnrecorded, "txHash", txHash)
}

// settled attaches a settlement to the request (for the upstream and for
// placeholders) and to the response (X-PAYMENT-RESPONSE), with its signed
// receipt (nil without one).
func (rp *replies) settled(w http.ResponseWriter, r *http.Request, sr *x402.SettleResponse, receipt json.RawMessage) {
	defer traceAnswer(r, sr).End() // trace.go
	block := ""
	if sr.BlockNumber != nil {
		block = strconv.FormatUint(*sr.BlockNumber, 10)
	}
	network := sr.Network
	if network == "" {
		network = rp.pricing.saleOf(r).network()
	}
	r.Header.Set(httpx.HeaderTxHash, sr.TxHash)
	r.Header.Set(httpx.HeaderFrom, sr.From)
	r.Header.Set(httpx.HeaderValue, sr.Value)
	r.Header.Set(httpx.HeaderNetwork, network)
	r.Header.Set(httpx.HeaderBlockNumber, block)

	vals := [...][2]string{
		{"tx_hash", sr.TxHash}, {"from", sr.From}, {"to", sr.To}, {"value", sr.Value},
		{"network", network}, {"block_number", block},
	}
	repl, _ := r.Context().Value(caddy.ReplacerCtxKey).(*caddy.Replacer)
	for _, kv := range vals {
		if repl != nil {
			repl.Set("http.x402."+kv[0], kv[1])
		}
		caddyhttp.SetVar(r.Context(), "x402."+kv[0], kv[1])
	}
	rp.setPaymentResponse(w, r, sr, network, receipt)
	if rp.gate != nil {
		rp.gate.Grant(w, r, sr, rp.pricing.accessPrice(r), network)
	}
	rp.logger.Info("payment settled", zap.String("network", network), zap.String("tx_hash", sr.TxHash),
		zap.String("from", sr.From), zap.String("value", sr.Value), zap.String("block_number", block), paytrace.IDs(r.Context()))
}

// paymentResponse is the X-PAYMENT-RESPONSE body: the x402 reference
// fields, then the settlement as the facilitator gave it.
type paymentResponse struct {
	Success     bool    `json:"success"`
	Transaction string  `json:"transaction"`
	Network     string  `json:"network"`
	Payer       string  `json:"payer"`
	Event       string  `json:"event"`
	TxHash      string  `json:"txHash"`
	From        string  `json:"from"`
	To          string  `json:"to"`
	Value       string  `json:"value"`
	BlockNumber *uint64 `json:"blockNumber,omitempty"`
	Timestamp   string  `json:"timestamp"`
	// Extensions carries the signed receipt (offer-receipt), when any.
	Extensions map[string]any `json:"extensions,omitempty"`
}

func encodePaymentResponse(sr *x402.SettleResponse, network string, receipt json.RawMessage) string {
	b, _ := json.Marshal(paymentResponse{
		Success: sr.Settled(), Transaction: sr.TxHash, Network: network, Payer: sr.From,
		Event: sr.Event, TxHash: sr.TxHash, From: sr.From, To: sr.To, Value: sr.Value,
		BlockNumber: sr.BlockNumber, Timestamp: sr.Timestamp, Extensions: receiptExtensions(receipt),
	})
	return base64.StdEncoding.EncodeToString(b)
}

// paymentRequired answers 402 with the requirements. errText is the
// "error" field; invalid, when set, is a verify reason and goes into both
// "error" and "invalidReason".
func (rp *replies) paymentRequired(w http.ResponseWriter, r *http.Request, errText, invalid string) error {
	defer traceQuote(r, errText, invalid).End() // trace.go
	// A reason may repeat the buyer's text (or a remote facilitator's):
	// it is answered cut, as the refusal cache keeps it.
	errText, invalid = clipReason(errText), clipReason(invalid)
	var message string
	if invalid == x402.ReasonInvalidBase64 {
		// Version 1 keeps the spec's text in error and invalidReason and
		// says more in message; version 2's error says it all.
		header, v2 := rp.paymentHeader(r)
		if message = undecodable(header, v2); v2 {
			invalid, message = message, ""
		}
	}
	body := rp.pricing.saleOf(r).offer.build(errText, invalid, resourceURL(r))
	if rp.receipts != nil && !rp.v2Only {
		body = rp.receipts.withOffers(r, body, rp.pricing.saleOf(r).offer, resourceURL(r))
	}
	if message != "" {
		b := appendJSONString(append(make([]byte, 0, len(body)+len(message)+16), `{"message":`...), message)
		body = append(append(b, ','), body[1:]...) // body is {"error":...}

	}
	hdr := w.Header()
	var v2OnlyBody []byte
	if rp.v2Only {
		v2OnlyBody = rp.v2OnlyBody(errText, invalid, "", "") // reply_v2only.go
	}
	if invalid != "" {
		errText = invalid
	}
	rp.setPaymentRequired(hdr, r, rp.pricing.saleOf(r).offer, errText, resourceURL(r), r.Method)
	var perRequest *offer
	if rp.pricing.static == nil {
		perRequest = rp.pricing.saleOf(r).offer
	}
	if served, err := rp.page.servePage(w, r, perRequest, body); served {
		return err // the page's script reads the requirements in the version 1 shape
	}
	if v2OnlyBody != nil {
		body = v2OnlyBody
	}
	hdr["Content-Type"] = jsonContentType
	hdr["Cache-Control"] = noStore
	hdr["Content-Length"] = []string{strconv.Itoa(len(body))}
	w.WriteHeader(http.StatusPaymentRequired)
	_, err := w.Write(body)
	return err
}

var (
	jsonContentType = []string{"application/json"}
	noStore         = []string{"no-store"}
)

func invalidReason(err error) string { return x402.ReasonOf(err) }

// undecodable says what is wrong with a payment header refused as
// x402.ReasonInvalidBase64 (the spec's text for any header that cannot be
// decoded), naming the header the buyer sent: not Base64, or Base64 of
// something that is not a JSON object.
func undecodable(header string, v2 bool) string {
	name := "X-PAYMENT"
	if v2 {
		name = "PAYMENT-SIGNATURE"
	}
	raw, err := x402.DecodeBase64(header)
	switch {
	case err != nil:
		return "Invalid payment payload: the " + name + " header is not Base64"
	case len(raw) == 0:
		return "Invalid payment payload: the " + name + " header is empty"
	}
	return "Invalid payment payload: the " + name + " header is Base64, but what it encodes is not a JSON object (a payment is Base64 of the PaymentPayload JSON)"
}

// declaresPaymentID reports whether the 402 declares the extension.
func (rp *replies) declaresPaymentID() bool {
	return rp.paymentID != PaymentIDOff && rp.v2.on
}

func clearHeader(h http.Header) {
	for k := range h {
		delete(h, k)
	}
}
