package facilitator

import (
	"encoding/base64"
	"encoding/json"
	"net/http"

	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// The facilitator's routes speak three dialects (see package x402): the
// Cronos interface (paymentHeader), the reference version 1
// (paymentPayload) and version 2. A request is normalised into a Request
// whose Dialect says how to answer.

// parseV2Request reads the payload and requirements of a version 2 body.
func parseV2Request(payload, requirements json.RawMessage) (*Request, error) {
	if payload[0] != '{' {
		return nil, badRequest("paymentPayload must be a JSON object")
	}
	var pp x402.PaymentPayloadV2
	if err := json.Unmarshal(payload, &pp); err != nil {
		return nil, badRequest("paymentPayload: %s", jsonProblem(err))
	}
	if isAbsent(requirements) {
		return nil, badRequest("paymentRequirements is required")
	}
	if requirements[0] != '{' {
		return nil, badRequest("paymentRequirements must be a JSON object")
	}
	var r x402.RequirementsV2
	if err := json.Unmarshal(requirements, &r); err != nil {
		return nil, badRequest("paymentRequirements: %s", jsonProblem(err))
	}
	var present map[string]json.RawMessage
	_ = json.Unmarshal(requirements, &present)
	for _, f := range []string{"amount", "maxTimeoutSeconds"} {
		if isAbsent(present[f]) {
			return nil, badRequest("paymentRequirements.%s is required", f)
		}
	}
	req := &Request{
		X402Version:         x402.Version2,
		PaymentHeader:       base64.StdEncoding.EncodeToString(payload),
		PaymentRequirements: r.V1(pp.Resource),
		Dialect:             x402.DialectV2,
		Resource:            pp.Resource,
	}
	if b, ok := pp.Extensions[x402.ExtBazaar]; ok {
		req.Bazaar, _ = json.Marshal(b)
	}
	if err := validateRequest(req); err != nil {
		return nil, err
	}
	return req, nil
}

// payerOf is the authorization's from, or "" when the payment cannot be read.
func payerOf(req *Request) string {
	if req == nil {
		return ""
	}
	p, err := DecodePaymentHeader(req.PaymentHeader)
	if err != nil || p.ParsePayload() != nil {
		return ""
	}
	return p.Authorization.From.Hex()
}

// writeVerify answers a verify request in its dialect. A nil res is a
// StatusError without a verdict (err).
func writeVerify(w http.ResponseWriter, req *Request, res *VerifyResponse, err error) {
	status := http.StatusOK
	if res == nil {
		status = StatusOf(err)
		res = Invalid(MessageOf(err))
	}
	payer := payerOf(req)
	if req == nil || req.Dialect == x402.DialectCronos {
		out := *res
		out.Payer = payer
		writeJSON(w, status, &out)
		return
	}
	ref := res.Reference(payer)
	if err != nil {
		ref.InvalidReason = x402.CodeUnexpectedVerifyError
		if status == http.StatusBadRequest {
			ref.InvalidReason = x402.CodeInvalidPayload
		}
	}
	writeJSON(w, status, ref)
}

// writeSettle answers a settle request in its dialect. A nil res is a
// StatusError without a settlement (err).
func writeSettle(w http.ResponseWriter, req *Request, network string, res *SettleResponse, err error) {
	status := http.StatusOK
	if res == nil {
		status = StatusOf(err)
		res = failed(network, MessageOf(err))
	}
	// A settled answer names the payer already; only the others decode
	// the payment header again for it.
	payer := res.From
	if payer == "" {
		payer = payerOf(req)
	}
	if req == nil || req.Dialect == x402.DialectCronos {
		writeJSON(w, status, res.Cronos(payer))
		return
	}
	ref := res.Reference(payer, req.PaymentRequirements.Network)
	if err != nil && status == http.StatusBadRequest {
		ref.ErrorReason = x402.CodeInvalidPayload
	}
	writeJSON(w, status, ref)
}
