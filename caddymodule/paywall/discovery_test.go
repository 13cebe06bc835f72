package paywall

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2/caddyconfig"

	"github.com/caddy-x402/caddy-x402/caddymodule/internal/testutil"
	"github.com/caddy-x402/caddy-x402/caddymodule/paywall/discovery"
	"github.com/caddy-x402/caddy-x402/facilitator/devnet"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// discoveryCaddyfile has a site with the facilitator routes and paid
// routes of every shape discovery lists (a declared GET, a POST priced per
// request, a wildcard under handle_path, a route with discovery off, one
// with a remote facilitator), and a site-wide paywall on another port.
func discoveryCaddyfile() string {
	return testutil.GlobalBlock("") + fmt.Sprintf(`
:%d {
	x402_facilitator
	x402 /weather {
		pay_to 0x1111111111111111111111111111111111111111
		amount 10000
		network eip155:338
		description "weather now"
		mime_type application/json
		input_schema `+"`"+`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`+"`"+`
		input_example `+"`"+`{"city":"Paris"}`+"`"+`
		output_example `+"`"+`{"temp":20}`+"`"+`
	}
	@translate {
		method POST
		path /translate
	}
	x402 @translate {
		pay_to 0x2222222222222222222222222222222222222222
		price {vars.price}
		network eip155:338
		input_schema `+"`"+`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`+"`"+`
		input_example `+"`"+`{"text":"hello"}`+"`"+`
		payment_identifier required
	}
	x402 /hidden {
		pay_to 0x2222222222222222222222222222222222222222
		amount 5
		network eip155:338
		discovery off
	}
	x402 /elsewhere {
		pay_to 0x2222222222222222222222222222222222222222
		amount 6
		network eip155:338
		facilitator http://127.0.0.1:1
	}
	handle_path /v1/* {
		x402 /files/*/raw {
			pay_to 0x3333333333333333333333333333333333333333
			amount 7
			network eip155:338
		}
		respond "file"
	}
	respond "ok"
}
:%d {
	x402 {
		pay_to 0x4444444444444444444444444444444444444444
		amount 8
		network eip155:338
	}
	respond "all paid"
}
`, testutil.SitePort, testutil.FacPort)
}

var lastUpdatedRE = regexp.MustCompile(`"lastUpdated":("[^"]*"|[0-9]+)`)

// normalizeUpdated replaces each lastUpdated after checking that it is the
// time the config was loaded (between since and now).
func normalizeUpdated(t *testing.T, b []byte, since time.Time) string {
	t.Helper()
	return lastUpdatedRE.ReplaceAllStringFunc(string(b), func(m string) string {
		v := m[len(`"lastUpdated":`):]
		var at time.Time
		if strings.HasPrefix(v, `"`) {
			at, _ = time.Parse(time.RFC3339, strings.Trim(v, `"`))
		} else {
			var sec int64
			fmt.Sscan(v, &sec)
			at = time.Unix(sec, 0)
		}
		if at.Before(since.Truncate(time.Second)) || at.After(time.Now()) {
			t.Errorf("%s is not when the config was loaded (%s to now)", m, since.Format(time.RFC3339))
		}
		return `"lastUpdated":"T"`
	})
}

func TestDiscovery(t *testing.T) {
	since := time.Now()
	tester := testutil.NewTester(t, discoveryCaddyfile())
	token := devnet.TokenAddress.Hex()
	accept := func(payTo, amount string) string {
		a := ""
		if amount != "" {
			a = `"amount":"` + amount + `",`
		}
		return `{"scheme":"exact","network":"eip155:338",` + a + `"asset":"` + token + `","payTo":"` + payTo + `","maxTimeoutSeconds":300,"extra":{"name":"` + devnet.TokenName + `","version":"` + devnet.TokenVersion + `"}}`
	}
	const (
		weatherSchema   = `{"properties":{"city":{"type":"string"}},"required":["city"],"type":"object"}`
		translateSchema = `{"properties":{"text":{"type":"string"}},"required":["text"],"type":"object"}`
	)

	// The site's manifest, free and generated from its routes.
	resp, b := testutil.Get(t, tester, testutil.SiteURL+"/.well-known/x402.json", nil)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/json" || resp.Header.Get("Access-Control-Allow-Origin") != "*" {
		t.Fatalf("GET /.well-known/x402.json = %d %v %s", resp.StatusCode, resp.Header, b)
	}
	want := `{"x402Version":2,"lastUpdated":"T","items":[` +
		`{"resource":{"url":"` + testutil.SiteURL + `/elsewhere"},"type":"http","accepts":[` + accept("0x2222222222222222222222222222222222222222", "6") + `],"input":{}},` +
		`{"resource":{"url":"` + testutil.SiteURL + `/translate"},"type":"http","accepts":[` + accept("0x2222222222222222222222222222222222222222", "") + `],"dynamicPrice":true,` +
		`"input":{"method":"POST","body":` + translateSchema + `,"bodyType":"json"},"requires":["payment-identifier"]},` +
		`{"resource":{"url":"` + testutil.SiteURL + `/weather","description":"weather now","mimeType":"application/json"},"type":"http","accepts":[` + accept("0x1111111111111111111111111111111111111111", "10000") + `],` +
		`"input":{"queryParams":` + weatherSchema + `},"output":{"mimeType":"application/json","example":{"temp":20}}},` +
		`{"resource":{"url":"` + testutil.SiteURL + `/v1/files/*/raw"},"type":"http","accepts":[` + accept("0x3333333333333333333333333333333333333333", "7") + `],"input":{"routeTemplate":"/v1/files/:var1/raw"}}]}`
	if got := strings.TrimSpace(normalizeUpdated(t, b, since)); got != want {
		t.Errorf("/.well-known/x402.json =\n%s\nwant\n%s", got, want)
	}

	// The facilitator's discovery list: the same routes (but the one with
	// a remote facilitator) and the other site's, with their bazaar
	// declarations, by server.
	resp, b = testutil.Get(t, tester, testutil.SiteURL+"/v2/x402/discovery/resources", nil)
	translateDecl := `{"info":{"input":{"body":{"text":"hello"},"bodyType":"json","method":"POST","type":"http"}},"schema":{"$schema":"https://json-schema.org/draft/2020-12/schema","properties":{"input":{"additionalProperties":false,"properties":{"body":` + translateSchema + `,"bodyType":{"enum":["json"],"type":"string"},"method":{"enum":["POST"],"type":"string"},"type":{"const":"http","type":"string"}},"required":["type","method","bodyType","body"],"type":"object"}},"required":["input"],"type":"object"}}`
	weatherDecl := `{"info":{"input":{"queryParams":{"city":"Paris"},"type":"http"},"output":{"example":{"temp":20},"type":"json"}},"schema":{"$schema":"https://json-schema.org/draft/2020-12/schema","properties":{"input":{"additionalProperties":false,"properties":{"method":{"enum":["GET","HEAD","DELETE","POST","PUT","PATCH"],"type":"string"},"queryParams":` + weatherSchema + `,"type":{"const":"http","type":"string"}},"required":["type"],"type":"object"},"output":{"properties":{"example":{},"type":{"type":"string"}},"required":["type"],"type":"object"}},"required":["input"],"type":"object"}}`
	bareDecl := `{"info":{"input":{"type":"http"}},"schema":{"$schema":"https://json-schema.org/draft/2020-12/schema","properties":{"input":{"additionalProperties":false,"properties":{"method":{"enum":["GET","HEAD","DELETE","POST","PUT","PATCH"],"type":"string"},"queryParams":{"type":"object"},"type":{"const":"http","type":"string"}},"required":["type"],"type":"object"}},"required":["input"],"type":"object"}}`
	facURL := fmt.Sprintf("http://localhost:%d", testutil.FacPort)
	items := []string{
		`{"resource":"` + facURL + `/*","type":"http","x402Version":2,"accepts":[` + accept("0x4444444444444444444444444444444444444444", "8") + `],"lastUpdated":"T","extensions":{"bazaar":` + bareDecl + `}}`,
		`{"resource":"` + testutil.SiteURL + `/translate","type":"http","x402Version":2,"accepts":[` + accept("0x2222222222222222222222222222222222222222", "") + `],"lastUpdated":"T","dynamicPrice":true,"extensions":{"bazaar":` + translateDecl + `}}`,
		`{"resource":"` + testutil.SiteURL + `/weather","type":"http","x402Version":2,"accepts":[` + accept("0x1111111111111111111111111111111111111111", "10000") + `],"lastUpdated":"T","description":"weather now","mimeType":"application/json","extensions":{"bazaar":` + weatherDecl + `}}`,
		`{"resource":"` + testutil.SiteURL + `/v1/files/*/raw","type":"http","x402Version":2,"accepts":[` + accept("0x3333333333333333333333333333333333333333", "7") + `],"lastUpdated":"T","extensions":{"bazaar":` + bareDecl + `}}`}
	sort.Slice(items, func(i, k int) bool { return items[i] < items[k] }) // by URL
	want = `{"x402Version":2,"items":[` + strings.Join(items, ",") + `],"pagination":{"limit":100,"offset":0,"total":4}}`
	if got := strings.TrimSpace(normalizeUpdated(t, b, since)); resp.StatusCode != 200 || got != want {
		t.Errorf("discovery list = %d\n%s\nwant\n%s", resp.StatusCode, got, want)
	}
	resp, b = testutil.Get(t, tester, testutil.SiteURL+"/v2/x402/discovery/resources?limit=2&offset=1&payTo=0x3333333333333333333333333333333333333333", nil)
	want = `{"x402Version":2,"items":[],"pagination":{"limit":2,"offset":1,"total":1}}`
	if got := strings.TrimSpace(string(b)); resp.StatusCode != 200 || got != want {
		t.Errorf("filtered list = %d %s, want %s", resp.StatusCode, got, want)
	}
	resp, b = testutil.Get(t, tester, testutil.SiteURL+"/v2/x402/discovery/resources?offset=x", nil)
	if got := strings.TrimSpace(string(b)); resp.StatusCode != 400 || got != `{"error":"offset must be a whole number from 0 to 1000000000, got \"x\""}` {
		t.Errorf("bad offset = %d %s", resp.StatusCode, got)
	}

	// The 402 declares the route for the request's method.
	resp, _ = testutil.Get(t, tester, testutil.SiteURL+"/weather", nil)
	var pr struct {
		Extensions map[string]any `json:"extensions"`
	}
	raw, _ := x402.DecodeBase64(resp.Header.Get("Payment-Required"))
	if err := jsonUnmarshal(raw, &pr); err != nil || resp.StatusCode != http.StatusPaymentRequired {
		t.Fatalf("402: %d %v", resp.StatusCode, err)
	}
	gotDecl := jsonString(pr.Extensions["bazaar"])
	wantDecl := strings.Replace(strings.Replace(weatherDecl, `"queryParams":{"city":"Paris"},"type":"http"`, `"method":"GET","queryParams":{"city":"Paris"},"type":"http"`, 1),
		`"method":{"enum":["GET","HEAD","DELETE","POST","PUT","PATCH"],"type":"string"}`, `"method":{"enum":["GET"],"type":"string"}`, 1)
	wantDecl = strings.Replace(wantDecl, `"required":["type"]`, `"required":["type","method"]`, 1)
	if gotDecl != wantDecl {
		t.Errorf("the 402's extensions.bazaar =\n%s\nwant\n%s", gotDecl, wantDecl)
	}
	// A route that declares nothing has no bazaar declaration in its 402.
	resp, _ = testutil.Get(t, tester, testutil.SiteURL+"/v1/files/a/raw", nil)
	raw, _ = x402.DecodeBase64(resp.Header.Get("Payment-Required"))
	pr.Extensions = nil
	if err := jsonUnmarshal(raw, &pr); err != nil || resp.StatusCode != 402 || pr.Extensions["bazaar"] != nil {
		t.Errorf("402 of an undeclared route: %d %v", resp.StatusCode, pr.Extensions)
	}

	// A site-wide paywall serves the manifest free, the rest paid.
	resp, b = testutil.Get(t, tester, facURL+"/.well-known/x402.json", nil)
	want = `{"x402Version":2,"lastUpdated":"T","items":[{"resource":{"url":"` + facURL + `/*"},"type":"http","accepts":[` + accept("0x4444444444444444444444444444444444444444", "8") + `],"input":{}}]}`
	if got := strings.TrimSpace(normalizeUpdated(t, b, since)); resp.StatusCode != 200 || got != want {
		t.Errorf("site-wide paywall's manifest = %d %s", resp.StatusCode, got)
	}
	if resp, _ = testutil.Get(t, tester, facURL+"/.well-known/other.json", nil); resp.StatusCode != 402 {
		t.Errorf("another well-known path on a paid site = %d, want 402", resp.StatusCode)
	}
}

// TestDiscoveryConfigErrors: discovery settings that would make a
// declaration facilitators refuse are configuration errors.
func TestDiscoveryConfigErrors(t *testing.T) {
	const payTo = "0x1111111111111111111111111111111111111111"
	site := func(body string) string {
		return ":8080 {\nx402 {\n pay_to " + payTo + "\n price 1\n" + body + "\n}\n}\n"
	}
	for _, tc := range []struct{ name, caddyfile, want string }{
		{"bad inline JSON", site("input_schema `{\"type\":`"), "x402: input_schema is not valid JSON"},
		{"missing file", site("input_schema /nonexistent/schema.json"), `x402: input_schema: "/nonexistent/schema.json" is neither inline JSON nor a readable file`},
		{"schema not an object", site("output_schema `[1]`"), "x402: output_schema must be a JSON Schema (a JSON object)"},
		{"bad body type", site("body_type xml"), `x402: body_type must be json, form-data or text, got "xml"`},
		{"bad discovery", site("discovery maybe"), `x402: discovery must be on, off or always, got "maybe"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := caddyconfig.GetAdapter("caddyfile").Adapt([]byte(tc.caddyfile), nil)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Adapt = %v, want %q", err, tc.want)
			}
		})
	}
	h := &Handler{Declaration: discovery.Declaration{InputSchema: []byte(`{"type":"object","required":["city"]}`), InputExample: []byte(`{"town":"Oslo"}`)}}
	err := h.provisionDiscovery()
	if want := "x402: the route's discovery settings (input_schema, input_example, output_schema, output_example) do not make a valid bazaar declaration: the bazaar info does not match its schema: jsonschema validation failed with 'urn:x402:bazaar-schema#' - at '/input/queryParams': missing property 'city'; an example must satisfy its schema, and a body schema with required fields needs an input_example"; err == nil || err.Error() != want {
		t.Errorf("provisionDiscovery = %v\nwant %s", err, want)
	}
}

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }

func jsonString(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
