package x402

// A facilitator's routes speak three dialects: the Cronos interface (paymentHeader), the
// reference version 1 (paymentPayload) and version 2. A request body is normalised into a
// Request whose Dialect says how to answer.

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
)

// BadRequest is a 400 StatusError whose message is format with args; string args, the
// caller's own text, are echoed cut to MaxEchoBytes.
func BadRequest(format string, args ...any) *StatusError {
	for i, a := range args {
		// The caller's own text is echoed cut (Clip), so that an
		// answer never carries kilobytes of the sender's choosing.
		if s, ok := a.(string); ok {
			args[i] = Clip(s, MaxEchoBytes)
		}
	}
	return &StatusError{Status: http.StatusBadRequest, Message: fmt.Sprintf(format, args...)}
}

// ParseRequest parses a verify or settle request body strictly: valid JSON, every required
// field of the right type, then ValidateRequest. Its errors are StatusError 400 saying what is
// wrong. Besides paymentHeader (Base64), the x402 reference servers' paymentPayload (the
// decoded header as a JSON object) is accepted, and a version 2 body. With an error, the
// request is nil, or for a v2 body only says its dialect.
func ParseRequest(body []byte) (*Request, error) {
	var raw struct {
		X402Version         json.RawMessage `json:"x402Version"`
		PaymentHeader       json.RawMessage `json:"paymentHeader"`
		PaymentPayload      json.RawMessage `json:"paymentPayload"`
		PaymentRequirements json.RawMessage `json:"paymentRequirements"`
	}
	if len(body) == 0 {
		return nil, BadRequest("request body is empty; send a JSON object with x402Version, paymentHeader and paymentRequirements")
	}
	if err := json.Unmarshal(body, &raw); err != nil {
		return nil, BadRequest("request body is not a valid JSON object: %s", jsonProblem(err))
	}
	req := &Request{}
	if isAbsent(raw.X402Version) {
		return nil, BadRequest("x402Version is required")
	}
	if err := json.Unmarshal(raw.X402Version, &req.X402Version); err != nil {
		return nil, BadRequest("x402Version must be the integer 1")
	}
	if req.X402Version == Version2 && isAbsent(raw.PaymentHeader) && !isAbsent(raw.PaymentPayload) {
		v2, err := parseV2Request(raw.PaymentPayload, raw.PaymentRequirements)
		if err != nil {
			// The dialect is known: the error is answered in it.
			return &Request{X402Version: Version2, Dialect: DialectV2}, err
		}
		return v2, nil
	}
	switch {
	case !isAbsent(raw.PaymentHeader):
		if err := json.Unmarshal(raw.PaymentHeader, &req.PaymentHeader); err != nil {
			return nil, BadRequest("paymentHeader must be a string (Base64 of the payment JSON)")
		}
	case !isAbsent(raw.PaymentPayload):
		if raw.PaymentPayload[0] != '{' {
			return nil, BadRequest("paymentPayload must be a JSON object")
		}
		req.PaymentHeader = base64.StdEncoding.EncodeToString(raw.PaymentPayload)
		req.Dialect = DialectV1
	default:
		return nil, BadRequest("paymentHeader is required")
	}
	if isAbsent(raw.PaymentRequirements) {
		return nil, BadRequest("paymentRequirements is required")
	}
	if raw.PaymentRequirements[0] != '{' {
		return nil, BadRequest("paymentRequirements must be a JSON object")
	}
	if err := json.Unmarshal(raw.PaymentRequirements, &req.PaymentRequirements); err != nil {
		return nil, BadRequest("paymentRequirements: %s", jsonProblem(err))
	}
	var present map[string]json.RawMessage
	_ = json.Unmarshal(raw.PaymentRequirements, &present)
	if isAbsent(present["maxTimeoutSeconds"]) {
		return nil, BadRequest("paymentRequirements.maxTimeoutSeconds is required")
	}
	if err := ValidateRequest(req); err != nil {
		return nil, err
	}
	return req, nil
}

func isAbsent(m json.RawMessage) bool {
	return len(m) == 0 || string(m) == "null"
}

// jsonProblem words a JSON decoding error for the caller, in JSON's terms.
func jsonProblem(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		want := JSONKind(te.Type)
		if te.Field != "" {
			return fmt.Sprintf("%s must be a %s, got %s", te.Field, want, te.Value)
		}
		return fmt.Sprintf("expected a %s, got %s", want, te.Value)
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("%v at byte %d", se, se.Offset)
	}
	return err.Error()
}

// parseV2Request reads the payload and requirements of a version 2 body.
func parseV2Request(payload, requirements json.RawMessage) (*Request, error) {
	if payload[0] != '{' {
		return nil, BadRequest("paymentPayload must be a JSON object")
	}
	var pp PaymentPayloadV2
	if err := json.Unmarshal(payload, &pp); err != nil {
		return nil, BadRequest("paymentPayload: %s", jsonProblem(err))
	}
	if isAbsent(requirements) {
		return nil, BadRequest("paymentRequirements is required")
	}
	if requirements[0] != '{' {
		return nil, BadRequest("paymentRequirements must be a JSON object")
	}
	var r RequirementsV2
	if err := json.Unmarshal(requirements, &r); err != nil {
		return nil, BadRequest("paymentRequirements: %s", jsonProblem(err))
	}
	var present map[string]json.RawMessage
	_ = json.Unmarshal(requirements, &present)
	for _, f := range []string{"amount", "maxTimeoutSeconds"} {
		if isAbsent(present[f]) {
			return nil, BadRequest("paymentRequirements.%s is required", f)
		}
	}
	req := &Request{
		X402Version:         Version2,
		PaymentHeader:       base64.StdEncoding.EncodeToString(payload),
		PaymentRequirements: r.V1(pp.Resource),
		Dialect:             DialectV2,
		Resource:            pp.Resource,
		RequirementsV2:      &r,
	}
	if b, ok := pp.Extensions[ExtBazaar]; ok {
		req.Bazaar, _ = json.Marshal(b)
	}
	if err := ValidateRequest(req); err != nil {
		return nil, err
	}
	return req, nil
}

// ValidateRequest rejects requests that are malformed as requests (HTTP
// 400): wrong protocol version, missing fields, a payTo that is no address.
func ValidateRequest(req *Request) error {
	if req == nil {
		return BadRequest("request body is required")
	}
	if req.X402Version != X402Version && (req.Dialect != DialectV2 || req.X402Version != Version2) {
		return BadRequest("x402Version must be 1, got %d", req.X402Version)
	}
	if req.PaymentHeader == "" {
		return BadRequest("paymentHeader is required")
	}
	r := &req.PaymentRequirements
	for _, f := range []struct{ name, val string }{
		{"scheme", r.Scheme}, {"network", r.Network}, {"payTo", r.PayTo},
		{"asset", r.Asset}, {"maxAmountRequired", r.MaxAmountRequired},
	} {
		if f.val == "" {
			return BadRequest("paymentRequirements.%s is required", f.name)
		}
	}
	if !IsAddress(r.PayTo) {
		return BadRequest("paymentRequirements.payTo must be a 0x-prefixed 20-byte hex address, got %q", r.PayTo)
	}
	if r.MaxTimeoutSeconds < 0 {
		return BadRequest("paymentRequirements.maxTimeoutSeconds must not be negative")
	}
	return nil
}
