package x402

import (
	"errors"
	"fmt"
	"net/http"
)

// StatusError is returned by verify and settle, in process or remote, when
// the request cannot be answered with a verdict: the request itself is
// malformed (400), or the facilitator cannot do its job right now (5xx,
// 429). An HTTP API answers with Status and Message in the operation's
// response shape.
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

// ReasonOf is the invalid reason of a payment that cannot be read: an
// InvalidPaymentError's own, else "Invalid Base64 paymentHeader".
func ReasonOf(err error) string {
	var ip *InvalidPaymentError
	if errors.As(err, &ip) {
		return ip.Reason
	}
	return ReasonInvalidBase64
}
