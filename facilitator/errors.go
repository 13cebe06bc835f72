package facilitator

import (
	"errors"
	"fmt"
	"net/http"
)

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
