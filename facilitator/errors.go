package facilitator

import (
	"errors"
	"net/http"
	"strings"

	"github.com/caddy-x402/caddy-x402/facilitator/scheme"
	"github.com/caddy-x402/caddy-x402/facilitator/store"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// badRequest and unavailable are the 400 and 503 errors (package scheme).
var (
	badRequest  = scheme.BadRequest
	unavailable = scheme.Unavailable
)

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
	var se *x402.StatusError
	return errors.As(err, &se) && se.Status == http.StatusServiceUnavailable && strings.HasSuffix(se.Message, scheme.TextStoreUnreachable)
}
