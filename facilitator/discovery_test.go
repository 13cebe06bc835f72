package facilitator_test

import (
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/caddy-x402/caddy-x402/facilitator"
	"github.com/caddy-x402/caddy-x402/facilitator/exact"
	"github.com/caddy-x402/caddy-x402/facilitator/httpapi"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// weatherBazaar is the declaration @x402/extensions 2.27's
// declareDiscoveryExtension makes for a GET route with a query schema and
// an output example, as the server enriches it with the method.
const weatherBazaar = `{"info":{"input":{"type":"http","method":"GET","queryParams":{"city":"Paris"}},"output":{"type":"json","example":{"temp":20}}},
"schema":{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{"input":{"type":"object","properties":{"type":{"type":"string","const":"http"},"method":{"type":"string","enum":["GET"]},"queryParams":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}},"required":["type","method"],"additionalProperties":false},"output":{"type":"object","properties":{"type":{"type":"string"},"example":{"type":"object"}},"required":["type"]}},"required":["input"]}}`

const toolBazaar = `{"info":{"input":{"type":"mcp","toolName":"forecast","inputSchema":{"type":"object","properties":{"city":{"type":"string"}}}}},
"schema":{"type":"object","properties":{"input":{"type":"object","properties":{"type":{"const":"mcp"},"toolName":{"type":"string"},"inputSchema":{"type":"object"}},"required":["type","toolName","inputSchema"]}},"required":["input"]}}`

var stamp = regexp.MustCompile(`"lastUpdated":"20[2-9][^"]*"`)

func TestValidateBazaar(t *testing.T) {
	for _, tc := range []struct {
		name, decl, want string
	}{
		{"http", weatherBazaar, ""},
		{"mcp", toolBazaar, ""},
		{"too large", `{"info":{},"schema":{},"x":"` + strings.Repeat("a", facilitator.MaxBazaarBytes) + `"}`, "the bazaar declaration is 16414 bytes, over the 16 KiB this facilitator catalogs"},
		{"not JSON", `{"info":`, "the bazaar declaration is not valid JSON"},
		{"no schema", `{"info":{"input":{"type":"http"}}}`, "the bazaar declaration must be an object with info and schema objects"},
		{"deep", `{"info":{"input":{"type":"http"}},"schema":` + strings.Repeat(`{"not":`, 40) + `{}` + strings.Repeat(`}`, 40) + `}`, "the bazaar declaration nests deeper than 32 levels"},
		{"remote ref", `{"info":{"input":{"type":"http"}},"schema":{"$ref":"https://evil.example/s.json"}}`, "the bazaar schema must not refer to other documents (https://evil.example/s.json)"},
		{"file ref", `{"info":{"input":{"type":"http"}},"schema":{"properties":{"input":{"$ref":"file:///etc/passwd"}}}}`, "the bazaar schema must not refer to other documents (file:///etc/passwd)"},
		{"bad type", `{"info":{"input":{"type":"ftp"}},"schema":{}}`, `info.input.type must be "http" or "mcp", got "ftp"`},
		{"bad method", `{"info":{"input":{"type":"http","method":"TRACE"}},"schema":{}}`, `info.input.method must be one of GET, HEAD, DELETE, POST, PUT, PATCH, got "TRACE"`},
		{"body on GET", `{"info":{"input":{"type":"http","method":"GET","bodyType":"json","body":{}}},"schema":{}}`, "info.input.bodyType is set but method GET is not a body method (POST, PUT, PATCH)"},
		{"mcp without tool", `{"info":{"input":{"type":"mcp","inputSchema":{}}},"schema":{}}`, "info.input.toolName must be the MCP tool's name (1 to 128 characters)"},
		{"info against schema", strings.Replace(weatherBazaar, `"method":"GET","queryParams"`, `"method":"GET","extra":1,"queryParams"`, 1),
			"the bazaar info does not match its schema: jsonschema validation failed with 'urn:x402:bazaar-schema#' - at '/input': additional properties 'extra' not allowed"},
		{"bad schema", `{"info":{"input":{"type":"http"}},"schema":{"type":"no-such-type"}}`, "the bazaar schema is not a valid JSON Schema: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := facilitator.ValidateBazaar([]byte(tc.decl))
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("ValidateBazaar = %v, want valid", err)
			case tc.want != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.want)):
				t.Fatalf("ValidateBazaar = %v, want %q", err, tc.want)
			}
		})
	}
	for tmpl, ok := range map[string]bool{"/users/:id": true, "/a/%2e%2e/b": false, "/x://y": false, "users": false, "/a b": false, "/a/%252e%252e": false} {
		if facilitator.ValidRouteTemplate(tmpl) != ok {
			t.Errorf("ValidRouteTemplate(%q) = %v", tmpl, !ok)
		}
	}
}

// TestDiscoveryCatalog settles payments whose clients echoed bazaar
// declarations and lists them, after the facilitator's own resources,
// page by page, as @x402/extensions' listResources reads them.
func TestDiscoveryCatalog(t *testing.T) {
	tf := newTestFacilitator(t, nil, nil)
	start := time.Now().Add(-time.Second)
	own := x402.DiscoveryItem{Resource: "https://own.example/paid", Type: "http", X402Version: 2, LastUpdated: "1999-01-01T00:00:00Z",
		Accepts: []x402.DiscoveryAccept{{Scheme: "exact", Network: "eip155:338", Amount: "5", Asset: "0xA", PayTo: "0x00000000000000000000000000000000000000aa", MaxTimeoutSeconds: 60}}}
	srv := httptest.NewServer(httpapi.New(tf.f, httpapi.Config{NoRateLimits: true,
		Resources: func(*http.Request) []x402.DiscoveryItem { return []x402.DiscoveryItem{own} }}))
	defer srv.Close()

	seller := newSeller(t)
	settle := func(t *testing.T, resource, decl string) (map[string]any, string) {
		t.Helper()
		r := requirements(seller, "1234")
		r.Extra = &x402.DomainInfo{Name: "Bridged USDC (Stargate)", Version: "1"}
		acc := r.V2("eip155:338")
		h, _, err := exact.CreatePaymentV2(newBuyer(t, chain, 10_000).Key, acc, &x402.ResourceInfo{URL: resource, Description: "weather"}, exact.PaymentOptions{ValidFor: time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := x402.DecodeBase64(h)
		var payload map[string]any
		_ = json.Unmarshal(raw, &payload)
		if decl != "" {
			payload["extensions"] = map[string]any{"bazaar": json.RawMessage(decl)}
		}
		b, _ := json.Marshal(map[string]any{"x402Version": 2, "paymentPayload": payload, "paymentRequirements": acc})
		resp, err := http.Post(srv.URL+x402.PathSettle, "application/json", strings.NewReader(string(b)))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var s map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&s)
		ext := ""
		if v := resp.Header.Get("EXTENSION-RESPONSES"); v != "" {
			d, _ := x402.DecodeBase64(v)
			ext = string(d)
		}
		return s, ext
	}
	before := balance(t, seller)
	s, ext := settle(t, "https://weather.example/now?city=Paris", weatherBazaar)
	if s["success"] != true || ext != `{"bazaar":{"status":"success"}}` {
		t.Fatalf("settle = %+v, EXTENSION-RESPONSES %s", s, ext)
	}
	// A declaration that fails its schema is not cataloged; the payment
	// settles all the same.
	bad := strings.Replace(weatherBazaar, `"method":"GET","queryParams"`, `"method":"GET","extra":1,"queryParams"`, 1)
	s, ext = settle(t, "https://weather.example/other", bad)
	if s["success"] != true || ext != `{"bazaar":{"status":"rejected","rejectedReason":"the bazaar info does not match its schema: jsonschema validation failed with 'urn:x402:bazaar-schema#' - at '/input': additional properties 'extra' not allowed"}}` {
		t.Fatalf("settle = %+v, EXTENSION-RESPONSES %s", s, ext)
	}
	// Without a declaration nothing is said; an MCP tool is cataloged.
	if s, ext = settle(t, "https://weather.example/none", ""); s["success"] != true || ext != "" {
		t.Fatalf("settle = %+v, EXTENSION-RESPONSES %s", s, ext)
	}
	if s, ext = settle(t, "https://tools.example/mcp", toolBazaar); s["success"] != true || ext != `{"bazaar":{"status":"success"}}` {
		t.Fatalf("settle = %+v, EXTENSION-RESPONSES %s", s, ext)
	}
	if got := new(big.Int).Sub(balance(t, seller), before); got.Int64() != 4*1234 {
		t.Fatalf("seller received %s, want 4 x 1234", got)
	}

	get := func(query string) (int, string) {
		resp, err := http.Get(srv.URL + x402.PathDiscoveryResources + query)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		// The cataloged entries' lastUpdated is when they were written.
		got := stamp.ReplaceAllStringFunc(string(b), func(m string) string {
			at, err := time.Parse(time.RFC3339, m[len(`"lastUpdated":"`):len(m)-1])
			if err != nil || at.Before(start.Truncate(time.Second)) || at.After(time.Now()) {
				t.Errorf("lastUpdated %s is not when the entry was written", m)
			}
			return `"lastUpdated":"T"`
		})
		return resp.StatusCode, strings.TrimSpace(got)
	}
	ownJSON := `{"resource":"https://own.example/paid","type":"http","x402Version":2,"accepts":[{"scheme":"exact","network":"eip155:338","amount":"5","asset":"0xA","payTo":"0x00000000000000000000000000000000000000aa","maxTimeoutSeconds":60}],"lastUpdated":"1999-01-01T00:00:00Z"}`
	acceptJSON := fmt.Sprintf(`[{"scheme":"exact","network":"eip155:338","amount":"1234","asset":"%s","payTo":"%s","maxTimeoutSeconds":300,"extra":{"name":"Bridged USDC (Stargate)","version":"1"}}]`,
		requirements(seller, "1").Asset, seller.Hex())
	var decl map[string]any
	_ = json.Unmarshal([]byte(weatherBazaar), &decl)
	declJSON, _ := json.Marshal(map[string]any{"info": decl["info"], "schema": decl["schema"]})
	var tool map[string]any
	_ = json.Unmarshal([]byte(toolBazaar), &tool)
	toolJSON, _ := json.Marshal(map[string]any{"info": tool["info"], "schema": tool["schema"]})
	toolItem := `{"resource":"https://tools.example/mcp","type":"mcp","x402Version":2,"accepts":` + acceptJSON + `,"lastUpdated":"T","description":"weather","extensions":{"bazaar":` + string(toolJSON) + `}}`
	weatherItem := `{"resource":"https://weather.example/now","type":"http","x402Version":2,"accepts":` + acceptJSON + `,"lastUpdated":"T","description":"weather","extensions":{"bazaar":` + string(declJSON) + `}}`
	for _, tc := range []struct {
		query string
		want  string
	}{
		{"", `{"x402Version":2,"items":[` + ownJSON + `,` + toolItem + `,` + weatherItem + `],"pagination":{"limit":100,"offset":0,"total":3}}`},
		{"?limit=1&offset=1", `{"x402Version":2,"items":[` + toolItem + `],"pagination":{"limit":1,"offset":1,"total":3}}`},
		{"?limit=2&offset=0", `{"x402Version":2,"items":[` + ownJSON + `,` + toolItem + `],"pagination":{"limit":2,"offset":0,"total":3}}`},
		{"?type=http", `{"x402Version":2,"items":[` + ownJSON + `,` + weatherItem + `],"pagination":{"limit":100,"offset":0,"total":2}}`},
		{"?type=mcp&limit=500", `{"x402Version":2,"items":[` + toolItem + `],"pagination":{"limit":100,"offset":0,"total":1}}`},
		{"?payTo=" + strings.ToLower(seller.Hex()) + "&network=eip155:338&scheme=exact", `{"x402Version":2,"items":[` + toolItem + `,` + weatherItem + `],"pagination":{"limit":100,"offset":0,"total":2}}`},
		{"?offset=7", `{"x402Version":2,"items":[],"pagination":{"limit":100,"offset":7,"total":3}}`},
	} {
		if st, got := get(tc.query); st != 200 || got != tc.want {
			t.Errorf("GET %s = %d\n%s\nwant\n%s", tc.query, st, got, tc.want)
		}
	}
	for query, want := range map[string]string{
		"?limit=0":                             `{"error":"limit must be a whole number from 1 (at most 100 are answered), got \"0\""}`,
		"?limit=ten":                           `{"error":"limit must be a whole number from 1 (at most 100 are answered), got \"ten\""}`,
		"?offset=-1":                           `{"error":"offset must be a whole number from 0 to 1000000000, got \"-1\""}`,
		"?offset=99999999999":                  `{"error":"offset must be a whole number from 0 to 1000000000, got \"99999999999\""}`,
		"?type=grpc":                           `{"error":"type must be http or mcp, got \"grpc\""}`,
		"?payTo=bob":                           `{"error":"payTo must be an address (0x followed by 40 hex digits), got \"bob\""}`,
		"?extensions=bazaar":                   `{"error":"the extensions filter is not supported here: filter by type, payTo, network or scheme"}`,
		"?network=" + strings.Repeat("n", 200): `{"error":"network and scheme must be at most 128 and 64 characters"}`,
	} {
		if st, got := get(query); st != 400 || got != want {
			t.Errorf("GET %.40s = %d %s, want 400 %s", query, st, got, want)
		}
	}
}
