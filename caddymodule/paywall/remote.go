package paywall

import (
	"fmt"
	"net/http"

	"github.com/caddyserver/caddy/v2"

	"github.com/caddy-x402/caddy-x402/facilitator/remote"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// remoteClient builds the client of a remote facilitator with its dialect
// and headers (placeholders resolved).
func (h *Handler) remoteClient() (*remote.Client, error) {
	opts := remote.Options{}
	if h.FacilitatorDialect != "" {
		d, err := x402.ParseDialect(h.FacilitatorDialect)
		if err != nil {
			return nil, fmt.Errorf("x402: facilitator_dialect: %w", err)
		}
		opts.Dialect = &d
	}
	if len(h.FacilitatorHeaders) > 0 {
		repl := caddy.NewReplacer()
		opts.Header = http.Header{}
		for k, v := range h.FacilitatorHeaders {
			val, err := repl.ReplaceOrErr(v, true, true)
			if err != nil || val == "" {
				return nil, fmt.Errorf("x402: facilitator_header %s: its value is empty or a placeholder in it cannot be resolved", k)
			}
			opts.Header.Set(k, val)
		}
	}
	return remote.New(h.Facilitator, opts), nil
}
