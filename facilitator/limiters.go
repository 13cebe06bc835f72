package facilitator

import "github.com/caddy-x402/caddy-x402/facilitator/limit"

// Limiters is the facilitator's set of rate limiters, shared by the HTTP API handlers built on
// it, so that a new handler (a Caddy config reload) keeps the counts.
func (f *Facilitator) Limiters() *limit.Set { return &f.limiters }
