package mcp

import (
	"encoding/json"

	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// description is the tool's configured description, else the learnt one.
func (t *tool) description() string {
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
func (t *tool) inputSchema() json.RawMessage {
	if len(t.cfg.InputSchema) > 0 {
		return t.cfg.InputSchema
	}
	if l := t.learnt.Load(); l != nil {
		return l.inputSchema
	}
	return nil
}

// resource is the tool's resource for its PaymentRequired.
func (t *tool) resource() *x402.ResourceInfo {
	d := t.description()
	if d == "" {
		d = "Tool: " + t.cfg.Name
	}
	return &x402.ResourceInfo{URL: toolResourcePrefix + t.cfg.Name, Description: d, MimeType: "application/json"}
}

// bazaar is the tool's bazaar declaration (x402 specs/extensions/bazaar.md,
// shaped as @x402/extensions 2.27 declares an MCP tool).
func (t *tool) bazaar() map[string]any {
	schema := t.inputSchema()
	input := map[string]any{"type": "mcp", "toolName": t.cfg.Name, "transport": "streamable-http", "inputSchema": json.RawMessage(`{"type":"object"}`)}
	if len(schema) > 0 {
		input["inputSchema"] = schema
	}
	props := map[string]any{
		"type":        map[string]any{"type": "string", "const": "mcp"},
		"toolName":    map[string]any{"type": "string"},
		"transport":   map[string]any{"type": "string", "enum": []string{"streamable-http"}},
		"inputSchema": map[string]any{"type": "object"},
	}
	if d := t.description(); d != "" {
		input["description"] = d
		props["description"] = map[string]any{"type": "string"}
	}
	return map[string]any{
		"info": map[string]any{"input": input},
		"schema": map[string]any{
			"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object",
			"properties": map[string]any{"input": map[string]any{
				"type": "object", "properties": props,
				"required": []string{"type", "toolName", "inputSchema"}, "additionalProperties": false,
			}},
			"required": []string{"input"},
		},
	}
}
