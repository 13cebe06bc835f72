package x402

import (
	"encoding/json"
	"fmt"
	"time"
)

// X402Version is the only protocol version this facilitator speaks.
const X402Version = 1

// SchemeExact is the x402 exact scheme: pay exactly maxAmountRequired.
const SchemeExact = "exact"

// Settlement events, as the interface specification names them.
const (
	EventSettled = "payment.settled"
	EventFailed  = "payment.failed"
)

// PaymentRequirements is what a seller asks for (spec 2.1). Extra and Resource
// are carried for the x402 reference clients; the facilitator ignores them.
type PaymentRequirements struct {
	// Scheme is the payment scheme; only "exact" is supported.
	Scheme string `json:"scheme"`
	// Network is the network string, for example "cronos-testnet".
	Network string `json:"network"`
	// PayTo is the seller's recipient address (0x hex).
	PayTo string `json:"payTo"`
	// Asset is the token contract address for the network.
	Asset string `json:"asset"`
	// MaxAmountRequired is the price in the token's smallest units, as a decimal string.
	MaxAmountRequired string `json:"maxAmountRequired"`
	// MaxTimeoutSeconds is how long the seller lets a payment take.
	MaxTimeoutSeconds int64 `json:"maxTimeoutSeconds"`
	// Resource is the URL of the paid resource (x402 reference clients).
	Resource string `json:"resource,omitempty"`
	// Description is free text shown to the buyer. Always written, even
	// empty: the seller's 402 answer carries it (spec 4.5).
	Description string `json:"description"`
	// MimeType is the media type of the paid resource. Always written,
	// even empty, like Description.
	MimeType string `json:"mimeType"`
	// Extra carries the token's EIP-712 domain name and version for
	// the x402 reference clients.
	Extra *DomainInfo `json:"extra,omitempty"`
}

// DomainInfo is the name and version of a token's EIP-712 domain.
type DomainInfo struct {
	// Name is the EIP-712 domain name, for example "Bridged USDC (Stargate)".
	Name string `json:"name"`
	// Version is the EIP-712 domain version, for example "1".
	Version string `json:"version"`
}

// Request is the body of both verify and settle (spec 4.3 and 4.4).
type Request struct {
	// X402Version must be 1.
	X402Version int `json:"x402Version"`
	// PaymentHeader is the buyer's X-PAYMENT header: Base64 of the payment JSON.
	PaymentHeader string `json:"paymentHeader"`
	// PaymentRequirements are the seller's requirements the payment is checked against.
	PaymentRequirements PaymentRequirements `json:"paymentRequirements"`
	// Dialect is the flavour the request came in (or, for a remote
	// facilitator, goes out in); answers follow it. Not on the wire.
	Dialect Dialect `json:"-"`
	// Resource is the paid resource of a v2 request. Not on the wire.
	Resource *ResourceInfo `json:"-"`
	// RequirementsV2 is the requirements in v2 form, when the seller knows
	// them (for a remote facilitator that speaks v2). Not on the wire.
	RequirementsV2 *RequirementsV2 `json:"-"`
	// Bazaar is the bazaar declaration a v2 payment echoed
	// (extensions.bazaar), for the discovery catalog. Not on the wire.
	Bazaar json.RawMessage `json:"-"`
}

// VerifyResponse is the answer of verify. InvalidReason is null when IsValid.
type VerifyResponse struct {
	IsValid       bool    `json:"isValid"`
	InvalidReason *string `json:"invalidReason"`
	// Payer is the authorization's from, when the payment could be read.
	Payer string `json:"payer,omitempty"`
	// Extra is what a scheme adds to a valid answer (batch-settlement:
	// the channel's state).
	Extra map[string]any `json:"extra,omitempty"`
}

// Valid is the positive verify answer.
func Valid() *VerifyResponse { return &VerifyResponse{IsValid: true} }

// Invalid is a negative verify answer with its reason.
func Invalid(reason string) *VerifyResponse {
	return &VerifyResponse{IsValid: false, InvalidReason: &reason}
}

// Reason returns the invalid reason, or "" for a valid answer.
func (v *VerifyResponse) Reason() string {
	if v == nil || v.InvalidReason == nil {
		return ""
	}
	return *v.InvalidReason
}

// SettleResponse is the answer of settle: event payment.settled with the
// transaction's facts, or payment.failed with Error (spec part 6).
type SettleResponse struct {
	X402Version int     `json:"x402Version"`
	Event       string  `json:"event"`
	TxHash      string  `json:"txHash,omitempty"`
	From        string  `json:"from,omitempty"`
	To          string  `json:"to,omitempty"`
	Value       string  `json:"value,omitempty"`
	BlockNumber *uint64 `json:"blockNumber,omitempty"`
	Network     string  `json:"network"`
	Timestamp   string  `json:"timestamp"`
	Error       string  `json:"error,omitempty"`
	// Extra is what a scheme adds to its answer (batch-settlement: the
	// channel's state after a deposit or refund).
	Extra map[string]any `json:"extra,omitempty"`
}

// Settled reports whether the response is payment.settled.
func (s *SettleResponse) Settled() bool { return s != nil && s.Event == EventSettled }

// timestampLayout is ISO 8601 UTC with milliseconds, as the spec shows it.
const timestampLayout = "2006-01-02T15:04:05.000Z"

// Timestamp formats t the way settle responses carry it.
func Timestamp(t time.Time) string { return t.UTC().Format(timestampLayout) }

// Failed is a payment.failed settle answer with the error text msg.
func Failed(network, msg string) *SettleResponse {
	return &SettleResponse{
		X402Version: X402Version,
		Event:       EventFailed,
		Network:     network,
		Timestamp:   Timestamp(time.Now()),
		Error:       msg,
	}
}

// SupportedKind is one entry of GET /v2/x402/supported.
type SupportedKind struct {
	X402Version int    `json:"x402Version"`
	Scheme      string `json:"scheme"`
	Network     string `json:"network"`
	// Extra is what the scheme announces for its requirements' extra
	// (upto: facilitatorAddress, the token's name and version;
	// batch-settlement: receiverAuthorizer).
	Extra any `json:"extra,omitempty"`
}

// SupportedResponse is the body of GET /v2/x402/supported.
type SupportedResponse struct {
	Kinds []SupportedKind `json:"kinds"`
	// Extensions lists the protocol extensions served (v2).
	Extensions []string `json:"extensions,omitempty"`
	// Signers lists the settlement signer addresses by CAIP-2 family (v2).
	Signers map[string][]string `json:"signers,omitempty"`
}

// PaymentRequired is the body of a seller's 402 answer. It carries the
// interface's single paymentRequirements and the x402 reference clients'
// accepts list; sellers built with caddy-x402 send both.
type PaymentRequired struct {
	X402Version         int                   `json:"x402Version"`
	Error               string                `json:"error"`
	InvalidReason       string                `json:"invalidReason,omitempty"`
	PaymentRequirements *PaymentRequirements  `json:"paymentRequirements,omitempty"`
	Accepts             []PaymentRequirements `json:"accepts,omitempty"`
}

// Requirements returns what a buyer should pay: the first of accepts, or
// paymentRequirements.
func (p *PaymentRequired) Requirements() (PaymentRequirements, error) {
	switch {
	case len(p.Accepts) > 0:
		return p.Accepts[0], nil
	case p.PaymentRequirements != nil:
		return *p.PaymentRequirements, nil
	}
	return PaymentRequirements{}, fmt.Errorf("the 402 answer has no payment requirements (error: %q)", p.Error)
}
