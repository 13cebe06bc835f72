package x402

import (
	"bytes"
	"encoding/json"
	"strings"
)

// PayloadJSON is the payment's payload as sent, for a scheme whose payload
// is not an EIP-3009 authorization (upto's permit2Authorization).
func (p *Payment) PayloadJSON() (json.RawMessage, error) {
	if len(p.payload) > 0 && !bytes.Equal(p.payload, []byte("null")) {
		return p.payload, nil
	}
	if p.parsed != nil && p.parsed.raw != "" {
		return json.RawMessage(p.parsed.raw), nil
	}
	var env struct {
		Payload json.RawMessage `json:"payload"`
	}
	if err := json.Unmarshal([]byte(p.raw), &env); err != nil || len(env.Payload) == 0 || bytes.Equal(env.Payload, []byte("null")) {
		return nil, invalidPayment("Invalid payment payload: payload is missing")
	}
	return env.Payload, nil
}

// PayloadHas reports whether the payload's JSON text holds quoted (a key
// with its quotes, `"permit2Authorization"`): a look at its shape before
// it is parsed.
func (p *Payment) PayloadHas(quoted string) bool {
	switch {
	case p.parsed != nil && p.parsed.raw != "":
		return strings.Contains(p.parsed.raw, quoted)
	case len(p.payload) > 0:
		return bytes.Contains(p.payload, []byte(quoted))
	}
	raw, err := p.PayloadJSON()
	return err == nil && bytes.Contains(raw, []byte(quoted))
}

// ExtEIP2612GasSponsoring is the key of the eip2612GasSponsoring extension:
// the buyer's EIP-2612 permit of the token to Permit2, which the
// facilitator submits with the settle (the proxy's settleWithPermit), so a
// buyer who never approved Permit2 needs no transaction of its own.
const ExtEIP2612GasSponsoring = "eip2612GasSponsoring"

// ExtensionInfo is extensions[name].info of a v2 payment, as sent; nil
// when absent.
func (p *Payment) ExtensionInfo(name string) json.RawMessage {
	if p.X402Version != Version2 || len(p.extensions) == 0 {
		return nil
	}
	var exts map[string]struct {
		Info json.RawMessage `json:"info"`
	}
	if json.Unmarshal(p.extensions, &exts) != nil {
		return nil
	}
	info := exts[name].Info
	if len(info) == 0 || bytes.Equal(info, []byte("null")) {
		return nil
	}
	return info
}

// PayloadFrom is a Permit2 payload's permit2Authorization.from, when it
// is an address; "" otherwise.
func PayloadFrom(p *Payment) string {
	raw, err := p.PayloadJSON()
	if err != nil {
		return ""
	}
	var pl struct {
		Authorization struct {
			From string `json:"from"`
		} `json:"permit2Authorization"`
	}
	if json.Unmarshal(raw, &pl) != nil {
		return ""
	}
	if a, ok := ParseAddress(pl.Authorization.From); ok {
		return a.Hex()
	}
	return ""
}

// The verify reasons and settle texts of payments through Permit2 (upto),
// with the codes of the x402 reference facilitators (@x402/evm 2.27).
const (
	// ReasonPermit2AllowanceRequired: the payer has not approved Permit2
	// for the amount and sent no gas-sponsoring extension. The
	// facilitator's /verify answers it with HTTP 412 (the upto spec's
	// PERMIT2_ALLOWANCE_REQUIRED).
	ReasonPermit2AllowanceRequired = "Permit2 allowance required: the payer must approve Permit2 (0x000000000022D473030F116dDEE9F6B43aC78BA3) on the token for at least the amount, once, then pay again"
	ReasonPermit2Spender           = "Permit2 spender is not the x402 proxy of the payment's scheme"
	ReasonPermit2Recipient         = "Permit2 witness.to does not match payTo address"
	ReasonUptoFacilitator          = "Permit2 witness.facilitator is not a signer of this facilitator"
	ReasonPermit2Expired           = "Permit2 deadline expired"
	ReasonPermit2NotYetValid       = "Permit2 witness.validAfter is in the future"
	ReasonPermit2Token             = "Permit2 permitted.token does not match the asset"
	ReasonPermit2Signature         = "Invalid Permit2 signature"
	// ReasonUptoExceedsMaximum prefixes the settle text of a charge above
	// the buyer's signed maximum.
	ReasonUptoExceedsMaximum = "Settle amount exceeds the authorized maximum: "
	// The refusals of an eip2612GasSponsoring extension.
	ReasonEIP2612Format  = "eip2612GasSponsoring: the extension's info is malformed"
	ReasonEIP2612From    = "eip2612GasSponsoring: the permit's owner is not the payer"
	ReasonEIP2612Asset   = "eip2612GasSponsoring: the permit is not for the asset"
	ReasonEIP2612Spender = "eip2612GasSponsoring: the permit's spender is not Permit2"
	ReasonEIP2612Expired = "eip2612GasSponsoring: the permit's deadline has passed"
	// ReasonPermit2AmountMismatch prefixes the verify text of a permitted
	// amount other than the requirements' amount (the maximum).
	ReasonPermit2AmountMismatch = "Permit2 permitted.amount does not match the amount: "
)

// Reference codes of the Permit2 texts above.
const (
	CodePermit2AllowanceRequired = "permit2_allowance_required"
	CodePermit2Spender           = "invalid_permit2_spender"
	CodePermit2Recipient         = "invalid_permit2_recipient_mismatch"
	CodeUptoFacilitator          = "upto_facilitator_mismatch"
	CodePermit2Expired           = "permit2_deadline_expired"
	CodePermit2NotYetValid       = "permit2_not_yet_valid"
	CodePermit2AmountMismatch    = "permit2_amount_mismatch"
	CodePermit2Token             = "permit2_token_mismatch"
	CodePermit2Signature         = "invalid_permit2_signature"
	CodeUptoExceedsMaximum       = "invalid_upto_evm_payload_settlement_exceeds_amount"
	CodeEIP2612Format            = "invalid_eip2612_extension_format"
	CodeEIP2612From              = "eip2612_from_mismatch"
	CodeEIP2612Asset             = "eip2612_asset_mismatch"
	CodeEIP2612Spender           = "eip2612_spender_not_permit2"
	CodeEIP2612Expired           = "eip2612_deadline_expired"
)

func init() {
	codeByText = append(codeByText, []struct{ text, code string }{
		{ReasonPermit2AllowanceRequired, CodePermit2AllowanceRequired},
		{ReasonPermit2Spender, CodePermit2Spender},
		{ReasonPermit2Recipient, CodePermit2Recipient},
		{ReasonUptoFacilitator, CodeUptoFacilitator},
		{ReasonPermit2Expired, CodePermit2Expired},
		{ReasonPermit2NotYetValid, CodePermit2NotYetValid},
		{ReasonPermit2Token, CodePermit2Token},
		{ReasonPermit2Signature, CodePermit2Signature},
		{ReasonUptoExceedsMaximum, CodeUptoExceedsMaximum},
		{ReasonPermit2AmountMismatch, CodePermit2AmountMismatch},
		{ReasonEIP2612Format, CodeEIP2612Format},
		{ReasonEIP2612From, CodeEIP2612From},
		{ReasonEIP2612Asset, CodeEIP2612Asset},
		{ReasonEIP2612Spender, CodeEIP2612Spender},
		{ReasonEIP2612Expired, CodeEIP2612Expired},
	}...)
}
