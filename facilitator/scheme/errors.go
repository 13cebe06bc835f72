package scheme

import (
	"context"
	"errors"
	"net/http"

	"github.com/caddy-x402/caddy-x402/facilitator/engine"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// BadRequest is the error of a request malformed as a request (HTTP 400).
// The caller's own strings among args are echoed cut (x402.Clip), so that
// an answer never carries kilobytes of the sender's choosing.
func BadRequest(format string, args ...any) *x402.StatusError {
	return x402.BadRequest(format, args...)
}

// Unavailable is the error of a facilitator that cannot do its job right
// now (HTTP 503): msg for the caller, err for the logs.
func Unavailable(msg string, err error) *x402.StatusError {
	return &x402.StatusError{Status: http.StatusServiceUnavailable, Message: msg, Err: err}
}

// TextStoreUnreachable is the 503 of a settle that the shared store
// (PostgreSQL) could not take: nothing was broadcast.
const TextStoreUnreachable = "the facilitator's settlement store (PostgreSQL) cannot be reached; nothing was broadcast, try again shortly"

// ReserveFailed is the 503 of a settle whose reservation (the engine's
// Reserve) failed, naming what failed: the chain's reads of the payer's
// balance (engine.ErrChainRead) or the shared store. Nothing was broadcast.
func ReserveFailed(network string, err error) *x402.StatusError {
	if errors.Is(err, engine.ErrChainRead) {
		return Unavailable("cannot read the payer's balance on network "+network+"; nothing was broadcast, try again shortly", err)
	}
	return Unavailable(TextStoreUnreachable, err)
}

// Declined is Bind's error for a network the scheme does not serve (no
// contract there, no signer key, a chain that did not answer at start): not
// a fault, the facilitator starts without the scheme on that network and
// keeps Reason, which a seller's route that needs the scheme names.
type Declined struct{ Reason string }

func (d *Declined) Error() string { return d.Reason }

// Decline is the Declined error of reason.
func Decline(reason string) error { return &Declined{Reason: reason} }

type viaKey struct{}

// WithVia marks ctx with the way a settle came in (store.ViaAPI for the
// facilitator's HTTP routes), which its journal record keeps.
func WithVia(ctx context.Context, via string) context.Context {
	return context.WithValue(ctx, viaKey{}, via)
}

// Via is the way WithVia put in ctx, "" for an in-process settle.
func Via(ctx context.Context) string {
	v, _ := ctx.Value(viaKey{}).(string)
	return v
}
