package x402

import "strings"

// Reason codes of the x402 reference implementations (EVM, scheme exact).
// Answers in the reference dialects carry them in invalidReason and
// errorReason; the Cronos texts go in invalidMessage and errorMessage.
const (
	CodeInsufficientFunds     = "insufficient_funds"
	CodeValidAfter            = "invalid_exact_evm_payload_authorization_valid_after"
	CodeValidBefore           = "invalid_exact_evm_payload_authorization_valid_before"
	CodeValueMismatch         = "invalid_exact_evm_payload_authorization_value_mismatch"
	CodeSignature             = "invalid_exact_evm_payload_signature"
	CodeRecipientMismatch     = "invalid_exact_evm_payload_recipient_mismatch"
	CodeInvalidNetwork        = "invalid_network"
	CodeInvalidPayload        = "invalid_payload"
	CodeInvalidRequirements   = "invalid_payment_requirements"
	CodeInvalidScheme         = "invalid_scheme"
	CodeUnsupportedScheme     = "unsupported_scheme"
	CodeInvalidVersion        = "invalid_x402_version"
	CodeInvalidTxState        = "invalid_transaction_state"
	CodeUnexpectedVerifyError = "unexpected_verify_error"
	CodeUnexpectedSettleError = "unexpected_settle_error"
	CodeNonceAlreadyUsed      = "invalid_exact_evm_nonce_already_used"
	CodeSimulationFailed      = "invalid_exact_evm_transaction_simulation_failed"
	// CodeSettlementPending is the newest reference code for a settlement
	// that was broadcast but not yet seen in a block; the answer carries
	// the transaction hash.
	CodeSettlementPending = "settlement_pending"
	// CodeBatchPrefix starts every batch-settlement reason of @x402/evm
	// 2.27; the scheme gives those codes as its reasons, so they are
	// their own code.
	CodeBatchPrefix = "invalid_batch_settlement_evm_"
	// CodeUnauthorized is ours: a settle this caller may not ask for
	// (a batch-settlement claim, settle or refund without the API key
	// that may act for its receiver); its text starts "Not authorized: ".
	CodeUnauthorized = "unauthorized"
)

// codeByText maps the Cronos texts (exact or by prefix) to reference codes.
var codeByText = []struct{ text, code string }{
	{ReasonInvalidSignature, CodeSignature},
	{ErrTextInvalidSignature, CodeSignature},
	{ReasonInvalidBase64, CodeInvalidPayload},
	{ReasonRecipient, CodeRecipientMismatch},
	{ErrTextAlreadyUsed, CodeNonceAlreadyUsed},
	{ErrTextExpired, CodeValidBefore},
	{ErrTextNotYetValid, CodeValidAfter},
	{ErrTextInsufficientFunds, CodeInsufficientFunds},
	{ErrTextFailedOnChain, CodeInvalidTxState},
	{ErrTextPending, CodeSettlementPending},
	{"Unsupported scheme: ", CodeUnsupportedScheme},
	{"Unsupported network: ", CodeInvalidNetwork},
	{"Unsupported asset: ", CodeInvalidRequirements},
	{"Invalid amount: ", CodeValueMismatch},
	{"Invalid payment payload", CodeInvalidPayload},
	{"Unsupported x402Version", CodeInvalidVersion},
	{"Transaction simulation failed", CodeSimulationFailed},
	{ReasonSmartWalletPrefix, CodeInvalidPayload},
	{"Not authorized: ", CodeUnauthorized},
}

// CodeOf returns the reference reason code for a Cronos reason or error
// text; def (unexpected_verify_error or unexpected_settle_error) when the
// text has no code of its own.
func CodeOf(text, def string) string {
	if strings.HasPrefix(text, CodeBatchPrefix) {
		return text // batch-settlement's reasons are the published codes themselves
	}
	for _, c := range codeByText {
		if text == c.text || (strings.HasSuffix(c.text, ": ") && strings.HasPrefix(text, c.text)) ||
			(!strings.HasSuffix(c.text, ": ") && strings.HasPrefix(text, c.text+":")) {
			return c.code
		}
	}
	return def
}
