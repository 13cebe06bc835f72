package x402

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Protocol versions.
const (
	// Version1 is x402 version 1 (the Cronos interface and the reference v1).
	Version1 = 1
	// Version2 is x402 version 2 (CAIP-2 networks, PAYMENT-* headers).
	Version2 = 2
)

// HTTP headers of the x402 transports.
const (
	// HeaderPayment is the v1 buyer's signed payment (Base64 JSON).
	HeaderPayment = "X-Payment"
	// HeaderPaymentResponse is the v1 settlement answer to the buyer.
	HeaderPaymentResponse = "X-Payment-Response"
	// HeaderPaymentRequired carries the v2 PaymentRequired on a 402.
	HeaderPaymentRequired = "Payment-Required"
	// HeaderPaymentSignature is the v2 buyer's signed payment.
	HeaderPaymentSignature = "Payment-Signature"
	// HeaderPaymentResponseV2 is the v2 settlement answer to the buyer.
	HeaderPaymentResponseV2 = "Payment-Response"
)

// Dialect is the flavour of the facilitator API a request or answer uses.
type Dialect int

const (
	// DialectCronos is version 1 as the Cronos interface specifies it:
	// paymentHeader (Base64), payment.settled / payment.failed answers.
	DialectCronos Dialect = iota
	// DialectV1 is the reference version 1: paymentPayload (a JSON
	// object), success / errorReason answers, v1 network names.
	DialectV1
	// DialectV2 is version 2: v2 payloads and requirements, CAIP-2 networks.
	DialectV2
)

// String is the dialect's name as the facilitator_dialect setting spells it.
func (d Dialect) String() string {
	switch d {
	case DialectV1:
		return "v1"
	case DialectV2:
		return "v2"
	}
	return "cronos"
}

// ParseDialect reads a dialect name: cronos, v1 or v2.
func ParseDialect(s string) (Dialect, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "cronos":
		return DialectCronos, nil
	case "v1", "reference", "v1-reference":
		return DialectV1, nil
	case "v2":
		return DialectV2, nil
	}
	return 0, fmt.Errorf("dialect %q is not one of cronos, v1, v2", s)
}

// ResourceInfo describes the paid resource (v2).
type ResourceInfo struct {
	// URL is the paid resource's URL.
	URL string `json:"url"`
	// Description is free text for the buyer.
	Description string `json:"description,omitempty"`
	// MimeType is the media type of the resource.
	MimeType string `json:"mimeType,omitempty"`
}

// RequirementsV2 is one way to pay in version 2 (an entry of accepts).
type RequirementsV2 struct {
	// Scheme is the payment scheme ("exact").
	Scheme string `json:"scheme"`
	// Network is the CAIP-2 network id, such as "eip155:338".
	Network string `json:"network"`
	// Amount is the price in the token's smallest units, a decimal string.
	Amount string `json:"amount"`
	// Asset is the token contract address.
	Asset string `json:"asset"`
	// PayTo is the seller's recipient address.
	PayTo string `json:"payTo"`
	// MaxTimeoutSeconds is how long the seller lets a payment take.
	MaxTimeoutSeconds int64 `json:"maxTimeoutSeconds"`
	// Extra carries the token's EIP-712 name and version, and any other
	// scheme-specific facts.
	Extra map[string]any `json:"extra,omitempty"`
}

// Domain returns the EIP-712 name and version in Extra, or nil.
func (r *RequirementsV2) Domain() *DomainInfo {
	name, _ := r.Extra["name"].(string)
	version, _ := r.Extra["version"].(string)
	if name == "" || version == "" {
		return nil
	}
	return &DomainInfo{Name: name, Version: version}
}

// V1 returns the requirements in version 1 form; the network stays as
// written (a CAIP-2 id).
func (r *RequirementsV2) V1(resource *ResourceInfo) PaymentRequirements {
	out := PaymentRequirements{
		Scheme: r.Scheme, Network: r.Network, PayTo: r.PayTo, Asset: r.Asset,
		MaxAmountRequired: r.Amount, MaxTimeoutSeconds: r.MaxTimeoutSeconds, Extra: r.Domain(),
	}
	if resource != nil {
		out.Resource, out.Description, out.MimeType = resource.URL, resource.Description, resource.MimeType
	}
	return out
}

// V2 returns v1 requirements in version 2 form, under the given network id
// (the CAIP-2 id of the requirements' network).
func (r *PaymentRequirements) V2(network string) RequirementsV2 {
	out := RequirementsV2{
		Scheme: r.Scheme, Network: network, Amount: r.MaxAmountRequired, Asset: r.Asset,
		PayTo: r.PayTo, MaxTimeoutSeconds: r.MaxTimeoutSeconds,
	}
	if r.Extra != nil {
		out.Extra = map[string]any{"name": r.Extra.Name, "version": r.Extra.Version}
	}
	return out
}

// PaymentRequiredV2 is the v2 402 answer, sent Base64 in PAYMENT-REQUIRED.
type PaymentRequiredV2 struct {
	// X402Version is 2.
	X402Version int `json:"x402Version"`
	// Error says why payment is required.
	Error string `json:"error,omitempty"`
	// Resource is the paid resource.
	Resource *ResourceInfo `json:"resource,omitempty"`
	// Accepts lists the ways to pay.
	Accepts []RequirementsV2 `json:"accepts"`
	// Extensions are the seller's protocol extensions.
	Extensions map[string]any `json:"extensions"`
}

// PaymentPayloadV2 is the v2 buyer's payment, sent Base64 in PAYMENT-SIGNATURE.
type PaymentPayloadV2 struct {
	// X402Version is 2.
	X402Version int `json:"x402Version"`
	// Resource is the paid resource, as the buyer saw it.
	Resource *ResourceInfo `json:"resource,omitempty"`
	// Accepted is the entry of accepts the buyer chose, echoed.
	Accepted RequirementsV2 `json:"accepted"`
	// Payload is the signed authorization: signature plus authorization.
	Payload json.RawMessage `json:"payload"`
	// Extensions are the buyer's protocol extensions.
	Extensions map[string]any `json:"extensions,omitempty"`
}

// EncodeBase64JSON marshals v and returns it Base64 (standard alphabet),
// as every x402 header carries its JSON.
func EncodeBase64JSON(v any) (string, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	return base64.StdEncoding.EncodeToString(b), nil
}

// DecodeBase64JSON decodes a Base64 JSON header value into v.
func DecodeBase64JSON(s string, v any) error {
	b, err := DecodeBase64(s)
	if err != nil {
		return errors.New("not Base64")
	}
	return json.Unmarshal(b, v)
}

// ReferenceVerifyResponse is the verify answer of the reference dialects.
type ReferenceVerifyResponse struct {
	IsValid        bool           `json:"isValid"`
	InvalidReason  string         `json:"invalidReason,omitempty"`
	InvalidMessage string         `json:"invalidMessage,omitempty"`
	Payer          string         `json:"payer,omitempty"`
	Extra          map[string]any `json:"extra,omitempty"`
}

// ReferenceSettleResponse is the settle answer of the reference dialects
// (v1 reference and v2), and the PAYMENT-RESPONSE header's JSON.
type ReferenceSettleResponse struct {
	Success      bool   `json:"success"`
	ErrorReason  string `json:"errorReason,omitempty"`
	ErrorMessage string `json:"errorMessage,omitempty"`
	Transaction  string `json:"transaction"`
	Network      string `json:"network"`
	Payer        string `json:"payer,omitempty"`
	Amount       string `json:"amount,omitempty"`
	// Extra is the scheme's addition (batch-settlement: channelState).
	Extra map[string]any `json:"extra,omitempty"`
	// Extensions are the seller's extensions of a settlement response (a
	// signed receipt: offer-receipt); a facilitator sets none.
	Extensions map[string]any `json:"extensions,omitempty"`
}

// CronosSettleAnswer is the Cronos settle answer with the reference
// fields added, so that reference sellers read it right: every Cronos
// field stays as it is.
type CronosSettleAnswer struct {
	*SettleResponse
	Success     bool   `json:"success"`
	Transaction string `json:"transaction"`
	Payer       string `json:"payer,omitempty"`
	ErrorReason string `json:"errorReason,omitempty"`
}

// Cronos returns the answer in the Cronos dialect with the reference
// fields added. payer is the authorization's from, when known.
func (s *SettleResponse) Cronos(payer string) *CronosSettleAnswer {
	out := &CronosSettleAnswer{SettleResponse: s, Success: s.Settled(), Transaction: s.TxHash, Payer: payer}
	if out.Payer == "" {
		out.Payer = s.From
	}
	if !out.Success {
		out.ErrorReason = CodeOf(s.Error, CodeUnexpectedSettleError)
	}
	return out
}

// Reference returns the answer in a reference dialect, under the given
// network id (the v1 name or the CAIP-2 id the request used).
func (s *SettleResponse) Reference(payer, network string) *ReferenceSettleResponse {
	out := &ReferenceSettleResponse{Success: s.Settled(), Transaction: s.TxHash, Network: network, Payer: payer, Extra: s.Extra}
	if out.Payer == "" {
		out.Payer = s.From
	}
	if out.Network == "" {
		out.Network = s.Network
	}
	if out.Success {
		out.Amount = s.Value
	} else {
		out.ErrorReason = CodeOf(s.Error, CodeUnexpectedSettleError)
		out.ErrorMessage = s.Error
	}
	return out
}

// Reference returns the verify answer in a reference dialect.
func (v *VerifyResponse) Reference(payer string) *ReferenceVerifyResponse {
	out := &ReferenceVerifyResponse{IsValid: v.IsValid, Payer: payer, Extra: v.Extra}
	if out.Payer == "" {
		out.Payer = v.Payer
	}
	if !v.IsValid {
		out.InvalidReason = CodeOf(v.Reason(), CodeUnexpectedVerifyError)
		out.InvalidMessage = v.Reason()
	}
	return out
}

// AnySettleAnswer decodes a settle answer of any dialect.
type AnySettleAnswer struct {
	SettleResponse
	Success      *bool  `json:"success"`
	ErrorReason  string `json:"errorReason"`
	ErrorMessage string `json:"errorMessage"`
	Transaction  string `json:"transaction"`
	Payer        string `json:"payer"`
	Amount       string `json:"amount"`
}

// Normalize returns the answer as a Cronos SettleResponse. A Cronos event
// decides; else success does. An answer with neither is an error: it
// does not say whether money moved.
func (a *AnySettleAnswer) Normalize() (*SettleResponse, error) {
	s := a.SettleResponse
	if s.Event == EventSettled || s.Event == EventFailed {
		if s.TxHash == "" {
			s.TxHash = a.Transaction
		}
		return &s, nil
	}
	if a.Success == nil {
		return nil, errors.New("the settle answer has neither event nor success")
	}
	s.X402Version = Version1
	s.TxHash = a.Transaction
	s.From = a.Payer
	if *a.Success {
		s.Event = EventSettled
		s.Value = a.Amount
		return &s, nil
	}
	s.Event = EventFailed
	s.Error = a.ErrorMessage
	switch {
	case a.ErrorReason == CodeSettlementPending:
		s.Error = ErrTextPending
	case s.Error == "":
		s.Error = a.ErrorReason
	}
	if s.Error == "" {
		s.Error = ErrTextFailedOnChain
	}
	return &s, nil
}

// AnyVerifyAnswer decodes a verify answer of any dialect.
type AnyVerifyAnswer struct {
	IsValid        *bool   `json:"isValid"`
	InvalidReason  *string `json:"invalidReason"`
	InvalidMessage string  `json:"invalidMessage"`
	Payer          string  `json:"payer"`
}

// Normalize returns the answer as a Cronos VerifyResponse (the message, or
// else the code, as the reason).
func (a *AnyVerifyAnswer) Normalize() (*VerifyResponse, error) {
	if a.IsValid == nil {
		return nil, errors.New("the verify answer has no isValid")
	}
	if *a.IsValid {
		return &VerifyResponse{IsValid: true, Payer: a.Payer}, nil
	}
	reason := a.InvalidMessage
	if reason == "" && a.InvalidReason != nil {
		reason = *a.InvalidReason
	}
	if reason == "" {
		reason = CodeUnexpectedVerifyError
	}
	v := Invalid(reason)
	v.Payer = a.Payer
	return v, nil
}

// EncodePaymentV2 writes a signed payment as the Base64 JSON of a v2
// PaymentPayload (the PAYMENT-SIGNATURE header), paying accepted, with the
// buyer's extensions (nil for none; they are not signed).
func EncodePaymentV2(p *Payment, accepted RequirementsV2, resource *ResourceInfo, extensions map[string]any) (string, error) {
	if err := checkComplete(p); err != nil {
		return "", err
	}
	payload, err := json.Marshal(exactPayload(p))
	if err != nil {
		return "", err
	}
	return EncodeBase64JSON(PaymentPayloadV2{X402Version: Version2, Resource: resource, Accepted: accepted, Payload: payload, Extensions: extensions})
}
