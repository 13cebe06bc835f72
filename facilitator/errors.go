package facilitator

import (
	"net/http"

	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// StatusError is returned by Verify and Settle when the request cannot be
// answered with a verdict: the request itself is malformed (400), or the
// facilitator cannot do its job right now (503). See x402.StatusError.
type StatusError = x402.StatusError

func badRequest(format string, args ...any) *StatusError { return x402.BadRequest(format, args...) }

func unavailable(msg string, err error) *StatusError {
	return &StatusError{Status: http.StatusServiceUnavailable, Message: msg, Err: err}
}

// StatusOf returns the HTTP status that fits err: a StatusError's own, or 500.
func StatusOf(err error) int { return x402.StatusOf(err) }

// MessageOf returns the caller-facing message of err.
func MessageOf(err error) string { return x402.MessageOf(err) }
