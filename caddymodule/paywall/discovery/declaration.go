// Package discovery is what an x402 route declares so that agents find it before they hit
// a 402. The same configuration that makes the route's 402 makes three
// views of it, so that none can drift from what is charged:
//
//   - the 402's v2 extensions.bazaar (when the route declares an input or
//     an output), which paying clients echo to their facilitator for its
//     catalog (x402 specs/extensions/bazaar.md);
//   - GET /.well-known/x402.json on the route's site (x402 PR #2646):
//     wellknown.go (ServeWellKnown);
//   - the embedded facilitator's GET /v2/x402/discovery/resources:
//     facilitatorapi/handler.go (this Caddy's own routes: ownResources,
//     routes.go).
//
// The paywall embeds a Declaration in its handler, builds its Route (New)
// and is found in Caddy's route tree as a Paid, which gives its Listing.
package discovery

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"

	"github.com/caddy-x402/caddy-x402/caddymodule/internal/httpx"
	"github.com/caddy-x402/caddy-x402/facilitator"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// Declaration is what an x402 route declares for discovery (the x402
// directive's input_schema, input_example, body_type, output_schema,
// output_example and discovery options; embedded in the paywall's
// Handler, so these are fields of http.handlers.x402).
type Declaration struct {
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

// Route is a route's discovery at run time, built by New.
type Route struct {
	d        Declaration
	mimeType string
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

// Validate checks the discovery settings' shapes.
func (d *Declaration) Validate() error {
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

// New builds a route's bazaar declarations, from its settings d and the
// media type of its answer, and checks each as a facilitator will
// (facilitator.ValidateBazaar): an example that does not satisfy its
// schema, or a declaration too large to be cataloged, is a configuration
// error.
func New(d Declaration, mimeType string) (*Route, error) {
	r := &Route{d: d, mimeType: mimeType, at: time.Now(), decls: map[string]map[string]any{}}
	if err := d.Validate(); err != nil {
		return nil, err
	}
	r.declare = !d.NoDiscovery && (len(d.InputSchema) > 0 || len(d.InputExample) > 0 || len(d.OutputSchema) > 0 ||
		len(d.OutputExample) > 0 || d.BodyType != "")
	for _, m := range append(append([]string{""}, queryMethods...), bodyMethods...) {
		decl := r.bazaarDeclaration(m)
		b, err := json.Marshal(decl)
		if err != nil {
			return nil, fmt.Errorf("x402: the route's bazaar declaration: %w", err)
		}
		if _, _, err := facilitator.ValidateBazaar(b); err != nil {
			return nil, fmt.Errorf("x402: the route's discovery settings (input_schema, input_example, output_schema, output_example) do not make a valid bazaar declaration: %v; an example must satisfy its schema, and a body schema with required fields needs an input_example", err)
		}
		r.decls[m] = decl
	}
	return r, nil
}

// At is when the route was provisioned: its entries' lastUpdated.
func (r *Route) At() time.Time { return r.at }

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
func (r *Route) bazaarDeclaration(m string) map[string]any {
	d := &r.d
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
		output := map[string]any{"type": r.outputType()}
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
func (r *Route) outputType() string {
	mt := strings.ToLower(r.mimeType)
	switch {
	case mt == "" || strings.Contains(mt, "json"):
		return "json"
	case strings.HasPrefix(mt, "text/"):
		return "text"
	}
	return mt
}

// WithBazaar adds the route's bazaar declaration for the request's method
// to a 402's extensions (a copy: ext is shared between requests). A nil
// Route (a handler built without New) declares nothing.
func (r *Route) WithBazaar(ext map[string]any, method string) map[string]any {
	if r == nil {
		return ext
	}
	decl, ok := r.decls[method]
	if !r.declare || !ok {
		return ext
	}
	out := make(map[string]any, len(ext)+1)
	for k, v := range ext {
		out[k] = v
	}
	out[x402.ExtBazaar] = decl
	return out
}

// UnmarshalOption reads the discovery option opt of the x402 directive,
// whose argument is v.
func (c *Declaration) UnmarshalOption(d *caddyfile.Dispenser, opt, v string) error {
	var err error
	switch opt {
	case "input_schema":
		c.InputSchema, err = httpx.JSONArg(d, opt, v)
	case "input_example":
		c.InputExample, err = httpx.JSONArg(d, opt, v)
	case "output_schema":
		c.OutputSchema, err = httpx.JSONArg(d, opt, v)
	case "output_example":
		c.OutputExample, err = httpx.JSONArg(d, opt, v)
	case "body_type":
		c.BodyType = v
	case "discovery":
		switch v {
		case "on":
			c.NoDiscovery, c.DiscoveryAlways = false, false
		case "off":
			c.NoDiscovery, c.DiscoveryAlways = true, false
		case "always":
			c.NoDiscovery, c.DiscoveryAlways = false, true
		default:
			return d.Errf("x402: discovery must be on, off or always, got %q", v)
		}
	}
	return err
}
