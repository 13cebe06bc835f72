package mcp

import (
	"sync"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/caddy-x402/caddy-x402/caddymodule/internal/httpx"
)

// Outcomes of a priced MCP tool call, the outcome label of
// x402_mcp_tool_calls_total.
const (
	OutcomePaymentRequired = "payment_required" // no payment: the PaymentRequired result
	OutcomeRefused         = "refused"          // the payment was refused (or is pending): a PaymentRequired with the reason
	OutcomePaid            = "paid"             // settled, and the tool's result delivered
	OutcomeToolError       = "tool_error"       // the tool failed (isError, a JSON-RPC error, no answer): not settled after
	OutcomeFailed          = "failed"           // the paywall could not take the payment (busy, facilitator or store out of reach)
)

// metrics counts priced tool calls by route, tool and outcome. The tool
// label takes only the configured tools' names, so its values are bounded.
var metrics struct {
	once  sync.Once
	calls *prometheus.CounterVec
}

// initMetrics registers the MCP collector in the config's registry.
func initMetrics(reg *prometheus.Registry) error {
	m := &metrics
	m.once.Do(func() {
		m.calls = prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "x402", Name: "mcp_tool_calls_total",
			Help: "Calls of priced MCP tools, by route (the handler's label), tool (a configured mcp_tool) and outcome (payment_required, refused, paid, tool_error, failed).",
		}, []string{"route", "tool", "outcome"})
	})
	return httpx.Register(reg, m.calls)
}

// metric counts a priced call's outcome.
func (t *Transport) metric(c *call, outcome string) {
	if metrics.calls == nil {
		return
	}
	metrics.calls.WithLabelValues(t.route.Label, c.tool.cfg.Name, outcome).Inc()
}
