package httpapi

import (
	"net/http"

	"github.com/caddy-x402/caddy-x402/internal/paytrace"
)

// spanAPI is the span of a request to the facilitator API (docs/tracing.md),
// a child of the request's span under Caddy's `tracing`: x402.route is
// the API's path; verify and settle add the facilitator's spans under it.
const spanAPI = "x402.facilitator.api"

// traceAPI starts the API's span of r and returns the request carrying
// it; without tracing, r itself.
func traceAPI(r *http.Request) (*http.Request, paytrace.Span) {
	ctx, sp := paytrace.Start(r.Context(), spanAPI)
	if !sp.On() {
		return r, sp
	}
	sp.Set(paytrace.KeyRoute, r.URL.Path)
	return r.WithContext(ctx), sp
}
