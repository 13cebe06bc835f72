package facilitator

import (
	"time"

	"go.uber.org/zap"

	"github.com/caddy-x402/caddy-x402/facilitator/limit"
	"github.com/caddy-x402/caddy-x402/facilitator/store"
)

// What the facilitator lends the HTTP API built on it (package httpapi).

// Limiters is the facilitator's set of rate limiters, shared by the HTTP API handlers built on
// it, so that a new handler (a Caddy config reload) keeps the counts.
func (f *Facilitator) Limiters() *limit.Set { return &f.limiters }

// Logger is the facilitator's logger (Config.Logger).
func (f *Facilitator) Logger() *zap.Logger { return f.logger }

// Now is the facilitator's clock (time.Now but in tests).
func (f *Facilitator) Now() time.Time { return f.now() }

// Catalog is the discovery catalog kept beside the journal, or nil when
// the journal keeps none.
func (f *Facilitator) Catalog() store.Catalog {
	c, _ := f.journal.(store.Catalog)
	return c
}
