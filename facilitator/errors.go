package facilitator

import (
	"errors"
	"fmt"
	"net/http"
)

// Verify reasons (spec 7.1). Those with a value are built by the functions below.
const (
	ReasonInvalidSignature = "Invalid EIP-3009 signature"
	ReasonInvalidBase64    = "Invalid Base64 paymentHeader"
	ReasonRecipient        = "Recipient does not match payTo address"
)

// Settle errors (spec 7.2). Verify uses the window texts too.
const (
	ErrTextAlreadyUsed       = "Authorization already used"
	ErrTextExpired           = "Authorization expired"
	ErrTextNotYetValid       = "Authorization not yet valid"
	ErrTextInsufficientFunds = "ERC20: transfer amount exceeds balance"
	ErrTextInvalidSignature  = "Invalid signature"
	ErrTextFailedOnChain     = "Transaction failed on-chain"
	// ErrTextPending is given when the transaction was broadcast but not
	// confirmed before the settle timeout; the txHash is in the answer.
	ErrTextPending = "Settlement pending"
)

// ReasonUnsupportedScheme is the verify text for a scheme other than exact.
func ReasonUnsupportedScheme(s string) string { return "Unsupported scheme: " + s }

// ReasonUnsupportedNetwork is the verify text for an unknown network.
func ReasonUnsupportedNetwork(n string) string { return "Unsupported network: " + n }

// ReasonUnsupportedAsset is the verify text for a token that is not the network's.
func ReasonUnsupportedAsset(a string) string { return "Unsupported asset: " + a }

// ReasonInvalidAmount is the verify text for a bad or mismatched amount.
func ReasonInvalidAmount(a string) string { return "Invalid amount: " + a }

// ReasonSimulationFailed is the verify text for a simulated transfer that
// reverted for a reason without a text of its own.
func ReasonSimulationFailed(reason string) string {
	return "Transaction simulation failed: " + reason
}

// StatusError is returned by Verify and Settle when the request cannot be
// answered with a verdict: the request itself is malformed (400), or the
// facilitator cannot do its job right now (503). The HTTP API answers with
// Status and Message in the operation's response shape.
type StatusError struct {
	// Status is the HTTP status code that fits the failure.
	Status int
	// Message says what went wrong and what to do.
	Message string
	// Err is the underlying cause, if any. It is not shown to callers.
	Err error
}

func (e *StatusError) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%s: %v", e.Message, e.Err)
	}
	return e.Message
}

func (e *StatusError) Unwrap() error { return e.Err }

func badRequest(format string, args ...any) *StatusError {
	return &StatusError{Status: http.StatusBadRequest, Message: fmt.Sprintf(format, args...)}
}

func unavailable(msg string, err error) *StatusError {
	return &StatusError{Status: http.StatusServiceUnavailable, Message: msg, Err: err}
}

// StatusOf returns the HTTP status that fits err: a StatusError's own, or 500.
func StatusOf(err error) int {
	var se *StatusError
	if errors.As(err, &se) {
		return se.Status
	}
	return http.StatusInternalServerError
}

// MessageOf returns the caller-facing message of err.
func MessageOf(err error) string {
	var se *StatusError
	if errors.As(err, &se) {
		return se.Message
	}
	return "internal error: " + err.Error()
}
