package paywall

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"

	"github.com/caddy-x402/caddy-x402/caddymodule/internal/httpx"
	"github.com/caddy-x402/caddy-x402/caddymodule/paywall/mcp"
	"github.com/caddy-x402/caddy-x402/facilitator"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// Discovery: what a route declares so that agents find it before they hit
// a 402. The same configuration that makes the route's 402 makes three
// views of it, so that none can drift from what is charged:
//
//   - the 402's v2 extensions.bazaar (when the route declares an input or
//     an output), which paying clients echo to their facilitator for its
//     catalog (x402 specs/extensions/bazaar.md);
//   - GET /.well-known/x402.json on the route's site (x402 PR #2646):
//     discovery_wellknown.go;
//   - the embedded facilitator's GET /v2/x402/discovery/resources:
//     facilitatorapi/handler.go (this Caddy's own routes: ownResources).

// Discovery is what an x402 route declares for discovery (the x402
// directive's input_schema, input_example, body_type, output_schema,
// output_example and discovery options).
type Discovery struct {
	// InputSchema is the JSON Schema (draft 2020-12) of the route's
	// input: of its query parameters for GET, HEAD and DELETE requests,
	// of its body for POST, PUT and PATCH.
	InputSchema json.RawMessage `json:"input_schema,omitempty"`

	// InputExample is an example input (query parameters as an object, or
	// a body); it must satisfy InputSchema.
	InputExample json.RawMessage `json:"input_example,omitempty"`

	// BodyType is how a body is encoded for POST, PUT and PATCH requests:
	// json (default), form-data or text.
	BodyType string `json:"body_type,omitempty"`

	// OutputSchema is the JSON Schema of the route's answer.
	OutputSchema json.RawMessage `json:"output_schema,omitempty"`

	// OutputExample is an example answer; it must satisfy OutputSchema.
	OutputExample json.RawMessage `json:"output_example,omitempty"`

	// NoDiscovery leaves the route out of discovery: no bazaar
	// declaration in its 402, and not listed in /.well-known/x402.json
	// nor in the embedded facilitator's discovery list.
	NoDiscovery bool `json:"no_discovery,omitempty"`

	// DiscoveryAlways lists the route in the embedded facilitator's
	// discovery list even when its server listens on loopback addresses
	// only (such routes are not listed by default: they are not meant to
	// be reached from elsewhere).
	DiscoveryAlways bool `json:"discovery_always,omitempty"`
}

// discoveryState is what Provision builds for discovery.
type discoveryState struct {
	// decls are the route's bazaar declarations by HTTP method ("" when
	// the route's methods are not known: any method).
	decls map[string]map[string]any
	// declare is set when the 402 carries the declaration (the route
	// declares an input or an output).
	declare bool
	// at is when the route was provisioned: its entries' lastUpdated.
	at time.Time
}

var (
	queryMethods = []string{"GET", "HEAD", "DELETE"}
	bodyMethods  = []string{"POST", "PUT", "PATCH"}
)

// validateDiscovery checks the discovery settings' shapes.
func (d *Discovery) validateDiscovery() error {
	for name, v := range map[string]json.RawMessage{"input_schema": d.InputSchema, "output_schema": d.OutputSchema} {
		if len(v) > 0 {
			var obj map[string]any
			if err := json.Unmarshal(v, &obj); err != nil {
				return fmt.Errorf("x402: %s must be a JSON Schema (a JSON object): %v", name, err)
			}
		}
	}
	for name, v := range map[string]json.RawMessage{"input_example": d.InputExample, "output_example": d.OutputExample} {
		if len(v) > 0 && !json.Valid(v) {
			return fmt.Errorf("x402: %s is not valid JSON", name)
		}
	}
	switch d.BodyType {
	case "", "json", "form-data", "text":
	default:
		return fmt.Errorf("x402: body_type must be json, form-data or text, got %q", d.BodyType)
	}
	return nil
}

// provisionDiscovery builds the route's bazaar declarations and checks
// each as a facilitator will (facilitator.ValidateBazaar): an example
// that does not satisfy its schema, or a declaration too large to be
// cataloged, is a configuration error.
func (h *Handler) provisionDiscovery() error {
	h.disc = discoveryState{at: time.Now(), decls: map[string]map[string]any{}}
	if err := h.validateDiscovery(); err != nil {
		return err
	}
	d := &h.Discovery
	h.disc.declare = !d.NoDiscovery && (len(d.InputSchema) > 0 || len(d.InputExample) > 0 || len(d.OutputSchema) > 0 ||
		len(d.OutputExample) > 0 || d.BodyType != "")
	for _, m := range append(append([]string{""}, queryMethods...), bodyMethods...) {
		decl := h.bazaarDeclaration(m)
		b, err := json.Marshal(decl)
		if err != nil {
			return fmt.Errorf("x402: the route's bazaar declaration: %w", err)
		}
		if _, _, err := facilitator.ValidateBazaar(b); err != nil {
			return fmt.Errorf("x402: the route's discovery settings (input_schema, input_example, output_schema, output_example) do not make a valid bazaar declaration: %v; an example must satisfy its schema, and a body schema with required fields needs an input_example", err)
		}
		h.disc.decls[m] = decl
	}
	return nil
}

// bodyMethod reports whether a request of method m carries the input in
// its body.
func bodyMethod(m string) bool {
	for _, b := range bodyMethods {
		if m == b {
			return true
		}
	}
	return false
}

// bazaarDeclaration is the route's extensions.bazaar for method m ("" for
// a route that answers any method): info (input and output) and the JSON
// Schema info satisfies, shaped as @x402/extensions'
// declareDiscoveryExtension shapes them.
func (h *Handler) bazaarDeclaration(m string) map[string]any {
	d := &h.Discovery
	input := map[string]any{"type": "http"}
	props := map[string]any{"type": map[string]any{"type": "string", "const": "http"}}
	required := []string{"type"}
	if m != "" {
		input["method"] = m
		props["method"] = map[string]any{"type": "string", "enum": []string{m}}
		required = append(required, "method")
	} else {
		props["method"] = map[string]any{"type": "string", "enum": append(append([]string{}, queryMethods...), bodyMethods...)}
	}
	inputSchema := any(map[string]any{"type": "object"})
	if len(d.InputSchema) > 0 {
		inputSchema = d.InputSchema
	}
	if bodyMethod(m) || (m == "" && d.BodyType != "") {
		bt := d.BodyType
		if bt == "" {
			bt = "json"
		}
		input["bodyType"] = bt
		input["body"] = map[string]any{}
		if len(d.InputExample) > 0 {
			input["body"] = d.InputExample
		}
		props["bodyType"] = map[string]any{"type": "string", "enum": []string{bt}}
		if len(d.InputSchema) > 0 {
			props["body"] = d.InputSchema
		} else {
			props["body"] = map[string]any{}
		}
		required = append(required, "bodyType", "body")
	} else {
		if len(d.InputExample) > 0 {
			input["queryParams"] = d.InputExample
		}
		props["queryParams"] = inputSchema
	}
	info := map[string]any{"input": input}
	schemaProps := map[string]any{"input": map[string]any{
		"type": "object", "properties": props, "required": required, "additionalProperties": false,
	}}
	if len(d.OutputSchema) > 0 || len(d.OutputExample) > 0 {
		output := map[string]any{"type": h.outputType()}
		if len(d.OutputExample) > 0 {
			output["example"] = d.OutputExample
		}
		info["output"] = output
		example := any(map[string]any{})
		if len(d.OutputSchema) > 0 {
			example = d.OutputSchema
		}
		schemaProps["output"] = map[string]any{"type": "object", "properties": map[string]any{
			"type": map[string]any{"type": "string"}, "example": example}, "required": []string{"type"}}
	}
	return map[string]any{
		"info": info,
		"schema": map[string]any{
			"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object",
			"properties": schemaProps, "required": []string{"input"},
		},
	}
}

// outputType is the bazaar output type of the route's answer: json,
// unless mime_type names another type.
func (h *Handler) outputType() string {
	mt := strings.ToLower(h.MimeType)
	switch {
	case mt == "" || strings.Contains(mt, "json"):
		return "json"
	case strings.HasPrefix(mt, "text/"):
		return "text"
	}
	return mt
}

// withBazaar adds the route's bazaar declaration for the request's method
// to a 402's extensions (a copy: ext is shared between requests).
func (h *Handler) withBazaar(ext map[string]any, method string) map[string]any {
	decl, ok := h.disc.decls[method]
	if !h.disc.declare || !ok {
		return ext
	}
	out := make(map[string]any, len(ext)+1)
	for k, v := range ext {
		out[k] = v
	}
	out[x402.ExtBazaar] = decl
	return out
}

// discoveryAccepts are the ways to pay the route as listed: with their
// amounts for a fixed price; without (dynamic) for a price set per
// request. Options without a chain id (version 1 only) are not listed.
func (h *Handler) discoveryAccepts() (accepts []x402.DiscoveryAccept, dynamic bool) {
	if h.pricing.static != nil {
		for _, a := range h.pricing.static.accepts() {
			accepts = append(accepts, x402.AcceptOf(a))
		}
		return accepts, false
	}
	for i := range h.pricing.options {
		o := &h.pricing.options[i]
		if o.caip2 == "" {
			continue
		}
		a := x402.AcceptOf(o.reqs.V2(o.caip2))
		a.Amount = ""
		accepts = append(accepts, a)
	}
	return accepts, true
}

// listedMethods are the methods the route is listed under: those its
// method matcher allows, or "" (any method).
func listedMethods(methods []string) []string {
	var out []string
	for _, m := range methods {
		m = strings.ToUpper(m)
		if _, ok := map[string]bool{"GET": true, "HEAD": true, "DELETE": true, "POST": true, "PUT": true, "PATCH": true}[m]; ok {
			out = append(out, m)
		}
	}
	if len(out) == 0 {
		return []string{""}
	}
	return out
}

// discoveryItems are the route's entries in a facilitator's discovery
// list, at URL u, one per method it is listed under.
func (h *Handler) discoveryItems(u string, methods []string) []x402.DiscoveryItem {
	if h.mcp != nil {
		return toolDiscoveryItems(h.mcp.Listings(), u, h.disc.at) // one per priced tool
	}
	accepts, dynamic := h.discoveryAccepts()
	if len(accepts) == 0 {
		return nil
	}
	var out []x402.DiscoveryItem
	for _, m := range listedMethods(methods) {
		out = append(out, x402.DiscoveryItem{
			Resource: u, Type: "http", X402Version: x402.Version2, Accepts: accepts,
			LastUpdated: h.disc.at.UTC().Format(time.RFC3339), Description: h.Description, MimeType: h.MimeType,
			DynamicPrice: dynamic, Extensions: map[string]any{x402.ExtBazaar: h.disc.decls[m]},
		})
	}
	return out
}

// toolDiscoveryItems are an MCP route's entries in a facilitator's
// discovery list, at its URL u: one per priced tool (ls), of type mcp,
// with its bazaar declaration.
func toolDiscoveryItems(ls []mcp.Listing, u string, at time.Time) []x402.DiscoveryItem {
	var out []x402.DiscoveryItem
	for _, l := range ls {
		out = append(out, x402.DiscoveryItem{
			Resource: u, Type: "mcp", X402Version: x402.Version2, Accepts: l.Accepts,
			LastUpdated: at.UTC().Format(time.RFC3339), Description: l.Description, MimeType: "application/json",
			Extensions: map[string]any{x402.ExtBazaar: l.Bazaar},
		})
	}
	return out
}

// unmarshalDiscoveryOption reads a discovery option of the x402
// directive.
func (h *Handler) unmarshalDiscoveryOption(d *caddyfile.Dispenser, opt, v string) error {
	var err error
	switch opt {
	case "input_schema":
		h.InputSchema, err = httpx.JSONArg(d, opt, v)
	case "input_example":
		h.InputExample, err = httpx.JSONArg(d, opt, v)
	case "output_schema":
		h.OutputSchema, err = httpx.JSONArg(d, opt, v)
	case "output_example":
		h.OutputExample, err = httpx.JSONArg(d, opt, v)
	case "body_type":
		h.BodyType = v
	case "discovery":
		switch v {
		case "on":
			h.NoDiscovery, h.DiscoveryAlways = false, false
		case "off":
			h.NoDiscovery, h.DiscoveryAlways = true, false
		case "always":
			h.NoDiscovery, h.DiscoveryAlways = false, true
		default:
			return d.Errf("x402: discovery must be on, off or always, got %q", v)
		}
	}
	return err
}
