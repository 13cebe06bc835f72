package facilitator

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/caddy-x402/caddy-x402/facilitator/store"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// StatusError is returned by Verify and Settle when the request cannot be
// answered with a verdict: the request itself is malformed (400), or the
// facilitator cannot do its job right now (503). See x402.StatusError.
type StatusError = x402.StatusError

func badRequest(format string, args ...any) *StatusError {
	for i, a := range args {
		// The caller's own text is echoed cut (x402.Clip), so that an
		// answer never carries kilobytes of the sender's choosing.
		if s, ok := a.(string); ok {
			args[i] = x402.Clip(s, x402.MaxEchoBytes)
		}
	}
	return &StatusError{Status: http.StatusBadRequest, Message: fmt.Sprintf(format, args...)}
}

func unavailable(msg string, err error) *StatusError {
	return &StatusError{Status: http.StatusServiceUnavailable, Message: msg, Err: err}
}

// StatusOf returns the HTTP status that fits err: a StatusError's own, or 500.
func StatusOf(err error) int { return x402.StatusOf(err) }

// MessageOf returns the caller-facing message of err.
func MessageOf(err error) string { return x402.MessageOf(err) }

// IsStoreUnavailable reports whether err says that the facilitator's
// shared store (PostgreSQL) could not be reached, or its lease did not
// hold, so nothing was done that the same call cannot do shortly: a
// settle or reservation refused with nothing broadcast, or a look-up that
// could not read the journal. It knows the errors of this process's
// facilitator (store.ErrUnavailable, store.ErrFenced) and a remote one's
// 503 with this facilitator's text.
func IsStoreUnavailable(err error) bool {
	if errors.Is(err, store.ErrUnavailable) || errors.Is(err, store.ErrFenced) {
		return true
	}
	var se *StatusError
	return errors.As(err, &se) && se.Status == http.StatusServiceUnavailable && strings.HasSuffix(se.Message, textStoreUnreachable)
}
