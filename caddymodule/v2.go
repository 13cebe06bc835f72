package caddymodule

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/caddyserver/caddy/v2"

	"github.com/caddy-x402/caddy-x402/facilitator"
	"github.com/caddy-x402/caddy-x402/facilitator/remote"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
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

// initV2 turns version 2 on when some option's chain id is known.
func (h *Handler) initV2() {
	h.v2 = v2State{}
	for i := range h.options {
		if h.options[i].caip2 != "" {
			h.v2.on = true
		}
	}
	if !h.v2.on {
		return
	}
	h.v2.extensions = map[string]any{}
	if h.declaresPaymentID() {
		h.v2.extensions[x402.ExtPaymentIdentifier] = x402.DeclarePaymentIdentifier(h.PaymentIdentifier == PaymentIDRequired)
	}
}

// isPreflight reports a CORS preflight: it is never charged.
func isPreflight(r *http.Request) bool {
	return r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != ""
}

// paymentHeader returns the buyer's payment header and whether it is v2.
func (h *Handler) paymentHeader(r *http.Request) (string, bool) {
	if v := r.Header.Get(x402.HeaderPaymentSignature); v != "" && h.v2.on {
		return v, true
	}
	return r.Header.Get(HeaderPayment), false
}

// setPaymentRequired adds the v2 PAYMENT-REQUIRED header to a 402.
func (h *Handler) setPaymentRequired(hdr http.Header, off *offer, errText, resource, method string) {
	hdr.Set("Access-Control-Expose-Headers", exposedHeaders)
	if !h.v2.on {
		return
	}
	if errText == "X-PAYMENT header is required" {
		errText = "PAYMENT-SIGNATURE header is required"
	}
	pr := x402.PaymentRequiredV2{
		X402Version: x402.Version2,
		Error:       errText,
		Resource:    &x402.ResourceInfo{URL: resource, Description: h.Description, MimeType: h.MimeType},
		Accepts:     off.accepts(),
		Extensions:  h.withBazaar(h.extensions402(resource), method),
	}
	if v, err := x402.EncodeBase64JSON(pr); err == nil {
		hdr.Set(x402.HeaderPaymentRequired, v)
	}
}

// v2Request turns a v2 payment into the facilitator request for the
// option it chose: the v1 requirements (for the embedded facilitator and
// Cronos-flavour remotes) with the v2 ones beside them.
func (h *Handler) v2Request(r *http.Request, header string, resource string) *facilitator.Request {
	part := h.saleOf(r).part()
	req := &facilitator.Request{
		X402Version:         facilitator.X402Version,
		PaymentHeader:       header,
		PaymentRequirements: part.reqs,
		Dialect:             x402.DialectV2,
		Resource:            &x402.ResourceInfo{URL: resource, Description: h.Description, MimeType: h.MimeType},
	}
	if part.v2 != nil {
		reqs := *part.v2
		req.RequirementsV2 = &reqs
	}
	return req
}

// setPaymentResponse writes the settlement in the header matching the
// payment's version.
func (h *Handler) setPaymentResponse(w http.ResponseWriter, r *http.Request, sr *facilitator.SettleResponse, network string) {
	if _, v2 := h.paymentHeader(r); v2 {
		if v, err := x402.EncodeBase64JSON(sr.Reference(sr.From, h.saleOf(r).v2Network())); err == nil {
			w.Header().Set(x402.HeaderPaymentResponseV2, v)
		}
		return
	}
	w.Header().Set(HeaderPaymentResponse, encodePaymentResponse(sr, network))
}

// setFailedResponse adds PAYMENT-RESPONSE with the failed settlement to a
// v2 payment's 402, as the v2 transport does.
func (h *Handler) setFailedResponse(w http.ResponseWriter, r *http.Request, sr *facilitator.SettleResponse) {
	if _, v2 := h.paymentHeader(r); v2 {
		payer := ""
		if p, err := facilitator.DecodePaymentHeader(r.Header.Get(x402.HeaderPaymentSignature)); err == nil && p.ParsePayload() == nil {
			payer = p.Authorization.From.Hex()
		}
		if v, err := x402.EncodeBase64JSON(sr.Reference(payer, h.saleOf(r).v2Network())); err == nil {
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
func (h *Handler) facilitatorFailed(w http.ResponseWriter, op string, err error) error {
	if handled, werr := h.storeFault(w, op, err); handled {
		return werr
	}
	msg := fmt.Sprintf("the payment could not be %s: %s", op, facilitator.MessageOf(err))
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

// remoteClient builds the client of a remote facilitator with its dialect
// and headers (placeholders resolved).
func (h *Handler) remoteClient() (*remote.Client, error) {
	opts := remote.Options{}
	if h.FacilitatorDialect != "" {
		d, err := x402.ParseDialect(h.FacilitatorDialect)
		if err != nil {
			return nil, fmt.Errorf("x402: facilitator_dialect: %w", err)
		}
		opts.Dialect = &d
	}
	if len(h.FacilitatorHeaders) > 0 {
		repl := caddy.NewReplacer()
		opts.Header = http.Header{}
		for k, v := range h.FacilitatorHeaders {
			val, err := repl.ReplaceOrErr(v, true, true)
			if err != nil || val == "" {
				return nil, fmt.Errorf("x402: facilitator_header %s: its value is empty or a placeholder in it cannot be resolved", k)
			}
			opts.Header.Set(k, val)
		}
	}
	return remote.New(h.Facilitator, opts), nil
}
