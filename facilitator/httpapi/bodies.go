package httpapi

import (
	"encoding/json"
	"net/http"

	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// payerOf is the authorization's from, or "" when the payment cannot be read.
func payerOf(req *x402.Request) string {
	if req == nil {
		return ""
	}
	p, err := x402.DecodePaymentHeader(req.PaymentHeader)
	if err != nil {
		return ""
	}
	if p.ParsePayload() != nil {
		return x402.PayloadFrom(p)
	}
	return p.Authorization.From.Hex()
}

// writeVerify answers a verify request in its dialect. A nil res is a
// StatusError without a verdict (err).
func writeVerify(w http.ResponseWriter, req *x402.Request, res *x402.VerifyResponse, err error) {
	status := http.StatusOK
	if res == nil {
		status = x402.StatusOf(err)
		res = x402.Invalid(x402.MessageOf(err))
	}
	if res.Reason() == x402.ReasonPermit2AllowanceRequired {
		// The upto spec: 412 Precondition Failed, PERMIT2_ALLOWANCE_REQUIRED
		// (the body is the verdict as ever).
		status = http.StatusPreconditionFailed
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
func writeSettle(w http.ResponseWriter, req *x402.Request, network string, res *x402.SettleResponse, err error) {
	status := http.StatusOK
	if res == nil {
		status = x402.StatusOf(err)
		res = x402.Failed(network, x402.MessageOf(err))
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

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status, b = http.StatusInternalServerError, []byte(`{"error":"encoding the response failed"}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}
