package x402

import (
	"bytes"
	"encoding/json"
)

// SchemeUpto is the x402 `upto` scheme: the buyer signs a Permit2 witness
// transfer of at most an amount, the seller settles what was used.
const SchemeUpto = "upto"

// PayloadJSON is the payment's payload as sent, for a scheme whose payload
// is not an EIP-3009 authorization (upto's permit2Authorization).
func (p *Payment) PayloadJSON() (json.RawMessage, error) {
	if len(p.payload) > 0 && !bytes.Equal(p.payload, []byte("null")) {
		return p.payload, nil
	}
	var env struct {
		Payload json.RawMessage `json:"payload"`
	}
	if err := json.Unmarshal([]byte(p.raw), &env); err != nil || len(env.Payload) == 0 || bytes.Equal(env.Payload, []byte("null")) {
		return nil, invalidPayment("Invalid payment payload: payload is missing")
	}
	return env.Payload, nil
}

// The verify reasons and settle texts of payments through Permit2 (upto),
// with the codes of the x402 reference facilitators (@x402/evm 2.27).
const (
	// ReasonPermit2AllowanceRequired: the payer has not approved Permit2
	// for the amount and sent no gas-sponsoring extension. The
	// facilitator's /verify answers it with HTTP 412 (the upto spec's
	// PERMIT2_ALLOWANCE_REQUIRED).
	ReasonPermit2AllowanceRequired = "Permit2 allowance required: the payer must approve Permit2 (0x000000000022D473030F116dDEE9F6B43aC78BA3) on the token for at least the amount, once, then pay again"
	ReasonPermit2Spender           = "Permit2 spender is not the x402 upto proxy"
	ReasonPermit2Recipient         = "Permit2 witness.to does not match payTo address"
	ReasonUptoFacilitator          = "Permit2 witness.facilitator is not a signer of this facilitator"
	ReasonPermit2Expired           = "Permit2 deadline expired"
	ReasonPermit2NotYetValid       = "Permit2 witness.validAfter is in the future"
	ReasonPermit2Token             = "Permit2 permitted.token does not match the asset"
	ReasonPermit2Signature         = "Invalid Permit2 signature"
	// ReasonUptoExceedsMaximum prefixes the settle text of a charge above
	// the buyer's signed maximum.
	ReasonUptoExceedsMaximum = "Settle amount exceeds the authorized maximum: "
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
	}...)
}
