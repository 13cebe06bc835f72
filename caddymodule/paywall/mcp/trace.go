package mcp

import (
	"encoding/json"
	"net/http"

	"github.com/caddy-x402/caddy-x402/internal/paytrace"
)

// traceCall starts the span of a priced tools/call of tool with JSON-RPC
// id, a child of the request's span, named and attributed as
// OpenTelemetry's MCP conventions say ("tools/call <tool>", mcp.method.name,
// gen_ai.tool.name, gen_ai.operation.name, jsonrpc.request.id); the
// paywall's spans of the call are its children. It returns a shallow copy
// of r carrying it (r itself, or its copy, without tracing).
func traceCall(r *http.Request, tool string, id json.RawMessage) (*http.Request, paytrace.Span) {
	ctx, sp := paytrace.Start(r.Context(), "x402.mcp.call")
	if !sp.On() {
		return r.WithContext(r.Context()), sp
	}
	sp.Rename("tools/call " + tool)
	sp.Set("mcp.method.name", "tools/call")
	sp.Set("gen_ai.operation.name", "execute_tool")
	sp.Set("gen_ai.tool.name", tool)
	var s string
	if json.Unmarshal(id, &s) != nil {
		s = string(id) // a number
	}
	sp.Set("jsonrpc.request.id", s)
	return r.WithContext(ctx), sp
}
