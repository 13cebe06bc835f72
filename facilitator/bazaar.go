package facilitator

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// Checks of a bazaar declaration (x402 specs/extensions/bazaar.md) before
// it is cataloged: a paying client echoes it, so it is untrusted input.

// MaxBazaarBytes bounds a bazaar declaration (its JSON).
const MaxBazaarBytes = 16 << 10

// maxBazaarDepth bounds the nesting of a bazaar declaration's JSON.
const maxBazaarDepth = 32

// maxResourceURLBytes bounds a cataloged resource URL.
const maxResourceURLBytes = 2048

// BazaarInput is what a valid declaration says about calling its
// resource.
type BazaarInput struct {
	// Type is "http" or "mcp".
	Type string
	// Method is the HTTP method, when declared.
	Method string
	// Tool is the MCP tool's name.
	Tool string
}

var (
	bazaarQueryMethods = []string{"GET", "HEAD", "DELETE"}
	bazaarBodyMethods  = []string{"POST", "PUT", "PATCH"}
	bazaarBodyTypes    = []string{"json", "form-data", "text"}
	bazaarTransports   = []string{"streamable-http", "sse"}
)

// ValidateBazaar checks a bazaar declaration as a facilitator must before
// cataloging it: at most MaxBazaarBytes, an object with info and schema,
// no reference to a document outside the schema, info.input shaped as the
// spec says (type http with a valid method and bodyType, or type mcp
// with its tool and input schema), and info valid against schema (JSON
// Schema draft 2020-12). Its error says what is wrong, for the
// EXTENSION-RESPONSES header.
func ValidateBazaar(raw []byte) (*x402.BazaarDeclaration, BazaarInput, error) {
	var in BazaarInput
	if len(raw) > MaxBazaarBytes {
		return nil, in, fmt.Errorf("the bazaar declaration is %d bytes, over the %d KiB this facilitator catalogs", len(raw), MaxBazaarBytes>>10)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, in, errors.New("the bazaar declaration is not valid JSON")
	}
	if d := jsonDepth(doc, 0); d > maxBazaarDepth {
		return nil, in, fmt.Errorf("the bazaar declaration nests deeper than %d levels", maxBazaarDepth)
	}
	obj, _ := doc.(map[string]any)
	info, _ := obj["info"].(map[string]any)
	schema, _ := obj["schema"].(map[string]any)
	if info == nil || schema == nil {
		return nil, in, errors.New("the bazaar declaration must be an object with info and schema objects")
	}
	if ref := externalRef(schema); ref != "" {
		return nil, in, fmt.Errorf("the bazaar schema must not refer to other documents (%s)", x402.Clip(ref, 64))
	}
	if in, err = bazaarInput(info); err != nil {
		return nil, in, err
	}
	if err := validateInfo(schema, info); err != nil {
		return nil, in, err
	}
	var d x402.BazaarDeclaration
	if err := json.Unmarshal(raw, &d); err != nil {
		return nil, in, errors.New("the bazaar declaration's routeTemplate must be a string")
	}
	if d.RouteTemplate != "" && !ValidRouteTemplate(d.RouteTemplate) {
		// As the spec says: an invalid template is dropped, and the
		// concrete URL path is cataloged.
		d.RouteTemplate = ""
	}
	return &d, in, nil
}

// bazaarInput checks info.input as the spec's tables say.
func bazaarInput(info map[string]any) (BazaarInput, error) {
	var in BazaarInput
	input, _ := info["input"].(map[string]any)
	if input == nil {
		return in, errors.New("the bazaar declaration's info.input must be an object")
	}
	in.Type, _ = input["type"].(string)
	switch in.Type {
	case "http":
		if m, ok := input["method"]; ok {
			in.Method, _ = m.(string)
			if !oneOf(in.Method, bazaarQueryMethods) && !oneOf(in.Method, bazaarBodyMethods) {
				return in, fmt.Errorf("info.input.method must be one of GET, HEAD, DELETE, POST, PUT, PATCH, got %q", x402.Clip(in.Method, 16))
			}
		}
		if bt, ok := input["bodyType"]; ok {
			s, _ := bt.(string)
			if !oneOf(s, bazaarBodyTypes) {
				return in, fmt.Errorf("info.input.bodyType must be one of json, form-data, text, got %q", x402.Clip(s, 16))
			}
			if in.Method != "" && !oneOf(in.Method, bazaarBodyMethods) {
				return in, fmt.Errorf("info.input.bodyType is set but method %s is not a body method (POST, PUT, PATCH)", in.Method)
			}
		}
	case "mcp":
		// @x402/extensions 2.27 writes toolName; the spec's text, tool.
		for _, k := range []string{"toolName", "tool"} {
			if s, ok := input[k].(string); ok && s != "" {
				in.Tool = s
				break
			}
		}
		if in.Tool == "" || len(in.Tool) > 128 {
			return in, errors.New("info.input.toolName must be the MCP tool's name (1 to 128 characters)")
		}
		if _, ok := input["inputSchema"].(map[string]any); !ok {
			return in, errors.New("info.input.inputSchema must be an object (the tool's JSON Schema)")
		}
		if tr, ok := input["transport"]; ok {
			if s, _ := tr.(string); !oneOf(s, bazaarTransports) {
				return in, errors.New("info.input.transport must be streamable-http or sse")
			}
		}
	default:
		return in, fmt.Errorf("info.input.type must be \"http\" or \"mcp\", got %q", x402.Clip(fmt.Sprint(input["type"]), 16))
	}
	return in, nil
}

// validateInfo checks info against schema (JSON Schema draft 2020-12 when
// the schema names no other draft), loading nothing from outside.
func validateInfo(schema, info map[string]any) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = errors.New("the bazaar schema could not be compiled")
		}
	}()
	const loc = "urn:x402:bazaar-schema"
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(noLoader{})
	if err := c.AddResource(loc, schema); err != nil {
		return fmt.Errorf("the bazaar schema is not a valid JSON Schema: %s", x402.Clip(err.Error(), 200))
	}
	sch, err := c.Compile(loc)
	if err != nil {
		return fmt.Errorf("the bazaar schema is not a valid JSON Schema: %s", x402.Clip(err.Error(), 200))
	}
	if err := sch.Validate(info); err != nil {
		return fmt.Errorf("the bazaar info does not match its schema: %s", x402.Clip(oneLine(err.Error()), 300))
	}
	return nil
}

// noLoader refuses every document a schema refers to: a declaration is
// checked against itself only (no network, no files).
type noLoader struct{}

func (noLoader) Load(u string) (any, error) {
	return nil, fmt.Errorf("the bazaar schema may not load %s", x402.Clip(u, 64))
}

// externalRef returns the first $ref, $dynamicRef or $id in a schema that
// does not point inside it (#...), or "".
func externalRef(v any) string {
	switch t := v.(type) {
	case map[string]any:
		for k, x := range t {
			if k == "$ref" || k == "$dynamicRef" || k == "$id" {
				if s, ok := x.(string); !ok || !strings.HasPrefix(s, "#") {
					return fmt.Sprint(x)
				}
			}
			if r := externalRef(x); r != "" {
				return r
			}
		}
	case []any:
		for _, x := range t {
			if r := externalRef(x); r != "" {
				return r
			}
		}
	}
	return ""
}

func jsonDepth(v any, d int) int {
	max := d
	switch t := v.(type) {
	case map[string]any:
		for _, x := range t {
			if n := jsonDepth(x, d+1); n > max {
				max = n
			}
		}
	case []any:
		for _, x := range t {
			if n := jsonDepth(x, d+1); n > max {
				max = n
			}
		}
	}
	return max
}

// routeTemplateRE is the spec's pattern of a route template.
var routeTemplateRE = regexp.MustCompile(`^/[a-zA-Z0-9_/:.\-~%]+$`)

// ValidRouteTemplate applies the bazaar spec's rules to a routeTemplate:
// a path of safe characters and :param names, with neither ".." nor "://"
// once percent-decoded.
func ValidRouteTemplate(s string) bool {
	if !routeTemplateRE.MatchString(s) {
		return false
	}
	dec := s
	for i := 0; i < 5; i++ {
		next, err := url.PathUnescape(dec)
		if err != nil {
			return false
		}
		if next == dec {
			return !strings.Contains(dec, "..") && !strings.Contains(dec, "://")
		}
		dec = next
	}
	return false
}

// CatalogURL is the URL a resource is cataloged under: the origin of the
// paid URL with the route template, or with its path (no query).
func CatalogURL(resource, routeTemplate string) (string, error) {
	if len(resource) > maxResourceURLBytes {
		return "", fmt.Errorf("the resource URL is over %d bytes", maxResourceURLBytes)
	}
	u, err := url.Parse(resource)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
		return "", errors.New("the payment's resource.url must be an absolute http or https URL")
	}
	path := u.EscapedPath()
	if routeTemplate != "" {
		path = routeTemplate
	}
	if path == "" {
		path = "/"
	}
	return u.Scheme + "://" + strings.ToLower(u.Host) + path, nil
}

func oneOf(s string, list []string) bool {
	for _, x := range list {
		if s == x {
			return true
		}
	}
	return false
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
