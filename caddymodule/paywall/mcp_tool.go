package paywall

import (
	"encoding/json"
	"net/http"

	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// description is the tool's configured description, else the learnt one.
func (t *mcpTool) description() string {
	if t.cfg.Description != "" {
		return t.cfg.Description
	}
	if l := t.learnt.Load(); l != nil {
		return l.description
	}
	return ""
}

// inputSchema is the tool's configured input schema, else the learnt one
// (nil when neither is known).
func (t *mcpTool) inputSchema() json.RawMessage {
	if len(t.cfg.InputSchema) > 0 {
		return t.cfg.InputSchema
	}
	if l := t.learnt.Load(); l != nil {
		return l.inputSchema
	}
	return nil
}

// resource is the tool's resource for its PaymentRequired.
func (t *mcpTool) resource() *x402.ResourceInfo {
	d := t.description()
	if d == "" {
		d = "Tool: " + t.cfg.Name
	}
	return &x402.ResourceInfo{URL: mcpToolResourcePrefix + t.cfg.Name, Description: d, MimeType: "application/json"}
}

// mcpCallOf is the priced tools/call a request carries, nil for others.
func mcpCallOf(r *http.Request) *mcpCall {
	c, _ := r.Context().Value(mcpCallCtxKey{}).(*mcpCall)
	return c
}
