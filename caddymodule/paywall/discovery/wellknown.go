package discovery

import (
	"encoding/json"
	"net"
	"net/http"
	"strings"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/caddy-x402/caddy-x402/caddymodule/paywall/mcp"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// GET /.well-known/x402.json on every site with discoverable paid routes
// (x402 PR #2646, a draft): the site's x402 routes as its configuration
// charges them, answered by the x402 handler of a site-wide paywall or by
// the x402_path_guard every scoped x402 directive adds to its block (and
// that a site with the paywall inside handle blocks has at its top). A
// site whose routes are all discovery off passes the request on.

// wellKnownPath is the origin's discovery manifest.
const wellKnownPath = "/.well-known/x402.json"

// wellKnownManifest is the manifest, as PR #2646 shapes it.
type wellKnownManifest struct {
	// X402Version is 2.
	X402Version int `json:"x402Version"`
	// LastUpdated is when the configuration was loaded (Unix seconds).
	LastUpdated int64 `json:"lastUpdated"`
	// Items are the site's paid routes.
	Items []wellKnownItem `json:"items"`
}

// wellKnownItem is one paid route of the manifest.
type wellKnownItem struct {
	// Resource is the route's URL (the site's origin and the route's path
	// pattern) with its description and media type.
	Resource x402.ResourceInfo `json:"resource"`
	// Type is "http", or "mcp" for a tool of an MCP route.
	Type string `json:"type"`
	// Accepts are the ways to pay it, as its 402 lists them.
	Accepts []x402.DiscoveryAccept `json:"accepts"`
	// DynamicPrice says that the price is set per request (the accepts
	// carry no amount; the 402 of each request states it).
	DynamicPrice bool `json:"dynamicPrice,omitempty"`
	// Input is how to call it.
	Input wellKnownInput `json:"input"`
	// Output is what it answers, when declared.
	Output *wellKnownOutput `json:"output,omitempty"`
	// Requires names the extensions a buyer must use to pay it.
	Requires []string `json:"requires,omitempty"`
}

// wellKnownInput is how to call a route.
type wellKnownInput struct {
	// Method is the HTTP method, when the route's matcher restricts them.
	Method string `json:"method,omitempty"`
	// RouteTemplate is the route's template when its path pattern has
	// wildcard segments (/users/*/posts gives /users/:var1/posts).
	RouteTemplate string `json:"routeTemplate,omitempty"`
	// QueryParams is the JSON Schema of the query parameters.
	QueryParams json.RawMessage `json:"queryParams,omitempty"`
	// Body is the JSON Schema of the body.
	Body json.RawMessage `json:"body,omitempty"`
	// BodyType is the body's encoding.
	BodyType string `json:"bodyType,omitempty"`
	// ToolName is an MCP tool's name (type mcp).
	ToolName string `json:"toolName,omitempty"`
	// Transport is how an MCP tool is called: streamable-http.
	Transport string `json:"transport,omitempty"`
	// InputSchema is the JSON Schema of an MCP tool's arguments, when
	// known.
	InputSchema json.RawMessage `json:"inputSchema,omitempty"`
}

// wellKnownOutput is what a route answers.
type wellKnownOutput struct {
	MimeType string          `json:"mimeType,omitempty"`
	Example  json.RawMessage `json:"example,omitempty"`
	Schema   json.RawMessage `json:"schema,omitempty"`
}

// ServeWellKnown answers GET /.well-known/x402.json when the site that
// serves r has discoverable paid routes (another method: answerMethod);
// false when r is another request.
func ServeWellKnown(w http.ResponseWriter, r *http.Request) (bool, error) {
	if r.URL.Path != wellKnownPath {
		return false, nil
	}
	routes := siteRoutes(r)
	if len(routes) == 0 {
		return false, nil
	}
	if !readOnly(r) {
		return true, answerMethod(w, r)
	}
	m := wellKnownManifest{X402Version: x402.Version2, Items: []wellKnownItem{}}
	srv, _ := r.Context().Value(caddyhttp.ServerCtxKey).(*caddyhttp.Server)
	for _, p := range routes {
		if t := p.l.Route.at.Unix(); t > m.LastUpdated {
			m.LastUpdated = t
		}
		origin := serverOrigin(srv, siteHost(srv, p.hosts, r))
		m.Items = append(m.Items, p.l.wellKnownItems(origin+routePattern(p.path), routeTemplate(p.path), p.methods)...)
	}
	body, err := json.Marshal(&m)
	if err != nil {
		return true, err
	}
	body = append(body, '\n')
	return true, writeAnswer(w, r, http.StatusOK, "application/json", "max-age=60", body)
}

// siteHost is the host a site's route is listed under in its manifest,
// from the configuration: the host of its host matcher that r was sent
// to (the name as configured; for a wildcard, the name it matched), or for
// a site without a host name its server's bind address, else localhost.
// A Host header naming no configured host is never listed.
func siteHost(srv *caddyhttp.Server, hosts []string, r *http.Request) string {
	if hosts == nil {
		return hostlessHost(srv)
	}
	name, _, err := net.SplitHostPort(r.Host)
	if err != nil {
		name = strings.Trim(r.Host, "[]")
	}
	name = strings.ToLower(name)
	for _, h := range hosts {
		if strings.EqualFold(h, name) {
			return strings.ToLower(h)
		}
	}
	return name // matched a wildcard of the host matcher (siteRoutes)
}

// wellKnownItems are the route's manifest items at URL u, one per method
// it is listed under.
func (l *Listing) wellKnownItems(u, template string, methods []string) []wellKnownItem {
	if l.MCP {
		return toolWellKnownItems(l.Tools, u, l.IDRequired) // one per priced tool
	}
	accepts, dynamic := l.Accepts, l.Dynamic
	if len(accepts) == 0 {
		return nil
	}
	d := &l.Route.d
	var out []wellKnownItem
	for _, m := range listedMethods(methods) {
		it := wellKnownItem{
			Resource: x402.ResourceInfo{URL: u, Description: l.Description, MimeType: l.MimeType},
			Type:     "http", Accepts: accepts, DynamicPrice: dynamic,
			Input: wellKnownInput{Method: m, RouteTemplate: template},
		}
		if bodyMethod(m) || (m == "" && d.BodyType != "") {
			it.Input.Body, it.Input.BodyType = d.InputSchema, d.BodyType
			if it.Input.BodyType == "" {
				it.Input.BodyType = "json"
			}
		} else {
			it.Input.QueryParams = d.InputSchema
		}
		if len(d.OutputSchema) > 0 || len(d.OutputExample) > 0 {
			it.Output = &wellKnownOutput{MimeType: l.MimeType, Example: d.OutputExample, Schema: d.OutputSchema}
		}
		if l.IDRequired {
			it.Requires = []string{x402.ExtPaymentIdentifier}
		}
		out = append(out, it)
	}
	return out
}

// toolWellKnownItems are an MCP route's items of /.well-known/x402.json
// at its URL u: one per priced tool (ts), called over streamable HTTP;
// idRequired when the route requires a payment identifier.
func toolWellKnownItems(ts []mcp.Listing, u string, idRequired bool) []wellKnownItem {
	var out []wellKnownItem
	for _, l := range ts {
		it := wellKnownItem{
			Resource: x402.ResourceInfo{URL: u, Description: l.Description, MimeType: "application/json"},
			Type:     "mcp", Accepts: l.Accepts,
			Input: wellKnownInput{ToolName: l.Name, Transport: "streamable-http", InputSchema: l.InputSchema},
		}
		if idRequired {
			it.Requires = []string{x402.ExtPaymentIdentifier}
		}
		out = append(out, it)
	}
	return out
}
