package paywall

import (
	"sync"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/caddy-x402/caddy-x402/caddymodule/internal/httpx"
)

// Outcomes of a priced MCP tool call, the outcome label of
// x402_mcp_tool_calls_total.
const (
	mcpOutcomePaymentRequired = "payment_required" // no payment: the PaymentRequired result
	mcpOutcomeRefused         = "refused"          // the payment was refused (or is pending): a PaymentRequired with the reason
	mcpOutcomePaid            = "paid"             // settled, and the tool's result delivered
	mcpOutcomeToolError       = "tool_error"       // the tool failed (isError, a JSON-RPC error, no answer): not settled after
	mcpOutcomeFailed          = "failed"           // the paywall could not take the payment (busy, facilitator or store out of reach)
)

// mcpMetrics counts priced tool calls by route, tool and outcome. The tool
// label takes only the configured tools' names, so its values are bounded.
var mcpMetrics struct {
	once  sync.Once
	calls *prometheus.CounterVec
}

// initMCPMetrics registers the MCP collector in the config's registry.
func initMCPMetrics(reg *prometheus.Registry) error {
	m := &mcpMetrics
	m.once.Do(func() {
		m.calls = prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "x402", Name: "mcp_tool_calls_total",
			Help: "Calls of priced MCP tools, by route (the handler's label), tool (a configured mcp_tool) and outcome (payment_required, refused, paid, tool_error, failed).",
		}, []string{"route", "tool", "outcome"})
	})
	return httpx.Register(reg, m.calls)
}

// mcpMetric counts a priced call's outcome.
func (h *Handler) mcpMetric(c *mcpCall, outcome string) {
	if mcpMetrics.calls == nil {
		return
	}
	mcpMetrics.calls.WithLabelValues(h.metrics.label, c.tool.cfg.Name, outcome).Inc()
}
