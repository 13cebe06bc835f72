package page

import (
	"bytes"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func TestWantsPage(t *testing.T) {
	const chrome = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0 Safari/537.36"
	const navAccept = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8"
	tests := []struct {
		name, ua, accept, payment string
		want                      bool
	}{
		{"browser navigation", chrome, navAccept, "", true},
		{"Firefox", "Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0", "text/html,*/*;q=0.8", "", true},
		{"upper-case media type", chrome, "TEXT/HTML", "", true},
		{"curl", "curl/8.5.0", "*/*", "", false},
		{"curl asking for HTML", "curl/8.5.0", "text/html", "", false},
		{"browser fetch of JSON", chrome, "application/json", "", false},
		{"browser fetch of anything", chrome, "*/*", "", false},
		{"no headers", "", "", "", false},
		{"HTML refused with q=0", chrome, "text/html;q=0, application/json", "", false},
		{"HTML refused with q=0.0", chrome, "text/html; q=0.0", "", false},
		{"HTML at low weight", chrome, "application/json, text/html;q=0.1", "", true},
		{"a payment attempt is a script", chrome, navAccept, "eyJ4NDAyVmVyc2lvbiI6MX0=", false},
		{"a v2 payment attempt is a script", chrome, navAccept, "v2:eyJ4NDAyVmVyc2lvbiI6Mn0=", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest("GET", "/api", nil)
			if tt.ua != "" {
				r.Header.Set("User-Agent", tt.ua)
			}
			if tt.accept != "" {
				r.Header.Set("Accept", tt.accept)
			}
			if v, ok := strings.CutPrefix(tt.payment, "v2:"); ok {
				r.Header.Set("Payment-Signature", v)
			} else if tt.payment != "" {
				r.Header.Set("X-Payment", tt.payment)
			}
			if got := WantsPage(r); got != tt.want {
				t.Errorf("WantsPage = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestJSONForScript(t *testing.T) {
	in := []byte(`{"description":"</script><script>alert(1)</script> & more"}`)
	out := JSONForScript(in)
	if strings.ContainsAny(string(out), "<>&") {
		t.Fatalf("JSONForScript left a <, > or &: %s", out)
	}
	var a, b any
	if err := json.Unmarshal(in, &a); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(out), &b); err != nil {
		t.Fatalf("JSONForScript output is not JSON: %v", err)
	}
	if a.(map[string]any)["description"] != b.(map[string]any)["description"] {
		t.Errorf("the JSON means something else after escaping: %v vs %v", a, b)
	}
}

func TestCSP(t *testing.T) {
	n, f := NewNonce(), NewNonce()
	if !regexp.MustCompile(`^[A-Za-z0-9_-]{22}$`).MatchString(n) {
		t.Fatalf("nonce %q is not 128 bits of URL-safe Base64", n)
	}
	if n == f {
		t.Fatal("two nonces are equal")
	}
	csp := CSP(n, f)
	for _, want := range []string{"default-src 'none'", "script-src 'nonce-" + n + "';", "style-src 'nonce-" + n + "' 'nonce-" + f + "';",
		"img-src data: blob:;", "connect-src 'self'", "frame-ancestors 'none'", "base-uri 'none'"} {
		if !strings.Contains(csp, want) {
			t.Errorf("CSP %q lacks %q", csp, want)
		}
	}
	// The frame's nonce allows style sheets, never a script.
	if d := directive(csp, "script-src"); d != "script-src 'nonce-"+n+"'" {
		t.Errorf("script-src is %q", d)
	}
	for _, bad := range []string{"unsafe-inline", "unsafe-eval", "unsafe-hashes", "*", "http:", "https:", "style-src-attr", "frame-src", "child-src"} {
		if strings.Contains(csp, bad) {
			t.Errorf("CSP %q allows %q", csp, bad)
		}
	}
}

// directive returns the directive of csp that starts with name.
func directive(csp, name string) string {
	for _, d := range strings.Split(csp, ";") {
		if d = strings.TrimSpace(d); strings.HasPrefix(d, name+" ") {
			return d
		}
	}
	return ""
}

// nonces returns the script nonce and the frame's style nonce of a CSP
// made by Render.
func nonces(t *testing.T, csp string) (string, string) {
	t.Helper()
	m := regexp.MustCompile(`script-src 'nonce-([^']+)'; style-src 'nonce-([^']+)' 'nonce-([^']+)'`).FindStringSubmatch(csp)
	if m == nil || m[1] != m[2] {
		t.Fatalf("CSP %q does not name a script nonce, the same for styles, and a frame nonce", csp)
	}
	return m[1], m[3]
}

// TestBuiltinRenderOptions: with several options the built-in page has
// the network choice, one entry per option in order; with one it has none.
func TestBuiltinRenderOptions(t *testing.T) {
	d := Data{Price: "0.01", Amount: "10000", Decimals: 6, Symbol: "devUSDC.e", Network: "cronos-testnet", ChainID: 338,
		Options: []Option{{Network: "cronos-testnet", Price: "0.01", Symbol: "devUSDC.e"}, {Network: "base-sepolia", Price: "0.01", Symbol: "USDC"}}}
	var buf bytes.Buffer
	if _, err := Render(Builtin(), &buf, d); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`<select id="x402-network">`, `<option value="0">cronos-testnet · 0.01 devUSDC.e</option>`, `<option value="1">base-sepolia · 0.01 USDC</option>`} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("page lacks %s", want)
		}
	}
	d.Options = d.Options[:1]
	buf.Reset()
	if _, err := Render(Builtin(), &buf, d); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), `<select id="x402-network">`) {
		t.Error("a page of one option offers a network choice")
	}
}

func TestBuiltinRender(t *testing.T) {
	var buf bytes.Buffer
	d := Data{Description: `Weather <b>API</b>`, Price: "0.01", Amount: "10000", Decimals: 6, Symbol: "devUSDC.e",
		Network: "cronos-testnet", ChainID: 338, PayTo: "0x5e11e5e11e5e11e5e11e5e11e5e11e5e11e5e11e",
		Asset: "0xc01efAaF7C5C61bEbFAeb358E1161b537b8bC0e0", PaymentRequired: JSONForScript([]byte(`{"x402Version":1}`))}
	csp, err := Render(Builtin(), &buf, d)
	if err != nil {
		t.Fatal(err)
	}
	nonce, frameNonce := nonces(t, csp)
	page := buf.String()
	for _, want := range []string{
		`<h1>Weather &lt;b&gt;API&lt;/b&gt;</h1>`,
		`<span id="x402-price">0.01</span> <span class="symbol" id="x402-symbol">devUSDC.e</span>`,
		`10000 smallest units`,
		`chain ID 338`,
		`<script nonce="` + nonce + `" data-frame-nonce="` + frameNonce + `">`,
		`<style nonce="` + nonce + `">`,
		`<script type="application/json" id="x402-payment-required">{"x402Version":1}</script>`,
		`id="x402-pay"`,
		`<div id="x402-wallets" class="wallets" role="group" aria-label="Choose a wallet" hidden></div>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %s", want)
		}
	}
	// Every script and style element carries the nonce, or is data (the
	// script's own text, which writes tags for the paid content's frame,
	// is left out).
	if strings.Count(page, string(script)) != 1 {
		t.Fatal("the page does not hold the script once")
	}
	tags := strings.Replace(page, string(script), "", 1)
	for _, m := range regexp.MustCompile(`<(script|style)([^>]*)>`).FindAllStringSubmatch(tags, -1) {
		if !strings.Contains(m[2], `nonce="`+nonce+`"`) && !strings.Contains(m[2], `type="application/json"`) {
			t.Errorf("element %s would be blocked by the CSP", m[0])
		}
	}
	for _, ext := range []string{`src="http`, `href="http`, `@import`, `url(http`} {
		if strings.Contains(page, ext) {
			t.Errorf("page refers to something elsewhere: %s", ext)
		}
	}
}

func TestParseFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("good.html", `<!DOCTYPE html><html><head>{{template "x402_style" .}}</head><body>
<p>Buy for {{.Price}} {{.Symbol}} ({{.Amount}}) on {{.Network}} to {{.PayTo}}</p><button id="x402-pay">Pay</button>
{{template "x402_scripts" .}}</body></html>`)
	tmpl, err := ParseFile(good)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	csp, err := Render(tmpl, &buf, Data{Price: "2", Symbol: "USDC.e", Amount: "2000000", Network: "cronos", PayTo: "0xabc"})
	if err != nil {
		t.Fatal(err)
	}
	nonce, frameNonce := nonces(t, csp)
	for _, want := range []string{"Buy for 2 USDC.e (2000000) on cronos to 0xabc", `<script nonce="` + nonce + `" data-frame-nonce="` + frameNonce + `">`, `id="x402-config">{}</script>`} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("rendered seller template lacks %q", want)
		}
	}

	for _, tt := range []struct{ name, path, want string }{
		{"missing file", filepath.Join(dir, "nope.html"), "no such file"},
		{"syntax error", write("bad.html", `{{if}}`), "missing value for if"},
		{"unknown field", write("field.html", `{{.Colour}}`), "can't evaluate field Colour"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseFile(tt.path)
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "paywall_template") {
				t.Errorf("ParseFile error %v, want one naming paywall_template and containing %q", err, tt.want)
			}
		})
	}
}
