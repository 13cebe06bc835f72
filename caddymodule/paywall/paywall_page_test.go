package paywall

import (
	"context"
	"encoding/json"
	"html"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2"
	"go.uber.org/zap"

	paywallpage "github.com/caddy-x402/caddy-x402/caddymodule/paywall/page"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

const (
	chromeUA     = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/156.0 Safari/537.36"
	browserAccpt = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
)

var testChain = chainFacts{ChainID: 338, Name: "Cronos testnet", RPCURLs: []string{"https://evm-t3.cronos.org"},
	NativeCurrency: &nativeCurrency{Name: "Test CRO", Symbol: "TCRO", Decimals: 18}, Explorer: "https://explorer.cronos.org/testnet/"}

// pageHandler is a paywall handler with its page built as Provision
// builds it.
func pageHandler(t *testing.T, page PaywallPage, description string) *Handler {
	t.Helper()
	h, _ := testHandler(t, &fakeClient{}, false)
	h.Description, h.MimeType = description, "application/json"
	opt := h.pricing.options[0]
	opt.reqs.Description, opt.reqs.MimeType, opt.caip2 = description, "application/json", "eip155:338"
	h.setTestOptions(t, opt)
	h.PaywallPage = page
	if err := h.buildPage(zap.NewNop(), testPageOptions(h), h.pricing.static); err != nil {
		t.Fatal(err)
	}
	return h
}

// testPageOptions are the page's options of a hand-built handler, on
// testChain.
func testPageOptions(h *Handler) []pageOption {
	var opts []pageOption
	for _, o := range h.pricing.options {
		opts = append(opts, pageOption{reqs: o.reqs, decimals: o.decimals, chain: testChain})
	}
	return opts
}

func unpaid(t *testing.T, h *Handler, hdr map[string]string) *httptest.ResponseRecorder {
	t.Helper()
	r := httptest.NewRequest("GET", "http://shop.example/api/weather?city=sg", nil)
	for k, v := range hdr {
		r.Header.Set(k, v)
	}
	w := httptest.NewRecorder()
	if err := h.ServeHTTP(w, r, nil); err != nil {
		t.Fatal(err)
	}
	if w.Code != http.StatusPaymentRequired {
		t.Fatalf("status %d, want 402", w.Code)
	}
	return w
}

var paymentRequiredBlock = regexp.MustCompile(`<script type="application/json" id="x402-payment-required">([^<]*)</script>`)
var configBlock = regexp.MustCompile(`<script type="application/json" id="x402-config">([^<]*)</script>`)

// TestPaywallPageOrJSON: browsers get the page, everyone else (and every
// browser when the page is off) the JSON answer, byte for byte as before.
func TestPaywallPageOrJSON(t *testing.T) {
	browser := map[string]string{"User-Agent": chromeUA, "Accept": browserAccpt}
	tests := []struct {
		name     string
		page     PaywallPage
		hdr      map[string]string
		wantHTML bool
	}{
		{"browser", PaywallPage{}, browser, true},
		{"browser, paywall on", PaywallPage{Paywall: PaywallOn}, browser, true},
		{"browser, paywall off", PaywallPage{Paywall: PaywallOff}, browser, false},
		{"curl", PaywallPage{}, map[string]string{"User-Agent": "curl/8.5.0", "Accept": "*/*"}, false},
		{"script in a browser", PaywallPage{}, map[string]string{"User-Agent": chromeUA, "Accept": "application/json"}, false},
		{"SDK without headers", PaywallPage{}, nil, false},
	}
	jsonAnswer := unpaid(t, pageHandler(t, PaywallPage{Paywall: PaywallOff}, "Weather"), nil)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := unpaid(t, pageHandler(t, tt.page, "Weather"), tt.hdr)
			ct := w.Header().Get("Content-Type")
			// The v2 header is on every 402, page or JSON.
			if got, want := w.Header().Get(x402.HeaderPaymentRequired), jsonAnswer.Header().Get(x402.HeaderPaymentRequired); got == "" || got != want {
				t.Errorf("PAYMENT-REQUIRED %q, want %q", got, want)
			}
			if !tt.wantHTML {
				if ct != "application/json" || w.Body.String() != jsonAnswer.Body.String() {
					t.Fatalf("got %s %q, want the JSON answer", ct, w.Body.String())
				}
				if w.Header().Get("Content-Security-Policy") != "" {
					t.Error("a JSON answer carries the page's CSP")
				}
				return
			}
			if ct != "text/html; charset=utf-8" {
				t.Fatalf("Content-Type %q, want HTML", ct)
			}
			if got := w.Header().Get("Cache-Control"); got != "no-store" {
				t.Errorf("Cache-Control %q", got)
			}
			// The v1 JSON answer rides along in the page, unchanged in meaning.
			m := paymentRequiredBlock.FindStringSubmatch(w.Body.String())
			if m == nil {
				t.Fatal("the page has no x402-payment-required block")
			}
			var inPage, answer x402.PaymentRequired
			if err := json.Unmarshal([]byte(m[1]), &inPage); err != nil {
				t.Fatalf("embedded 402 body: %v", err)
			}
			if err := json.Unmarshal(jsonAnswer.Body.Bytes(), &answer); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(inPage, answer) {
				t.Errorf("embedded 402 body %+v\ndiffers from the JSON answer %+v", inPage, answer)
			}
			if answer.Accepts[0].Resource != "http://shop.example/api/weather?city=sg" {
				t.Errorf("resource %q", answer.Accepts[0].Resource)
			}
		})
	}
}

// TestPaywallPageContent checks what a person sees and what the script
// gets, and that the page's CSP names the nonce of its elements.
func TestPaywallPageContent(t *testing.T) {
	h := pageHandler(t, PaywallPage{}, "Weather API, one call")
	h.Amount = "1234500"
	h.setTestOptions(t, h.pricing.options...)
	if err := h.buildPage(zap.NewNop(), testPageOptions(h), h.pricing.static); err != nil {
		t.Fatal(err)
	}
	w := unpaid(t, h, map[string]string{"User-Agent": chromeUA, "Accept": browserAccpt})
	body := w.Body.String()
	for _, want := range []string{
		"<h1>Weather API, one call</h1>",
		`<span id="x402-price">1.2345</span> <span class="symbol" id="x402-symbol">devUSDC.e</span>`,
		"1234500 smallest units · 6 decimals",
		`<span id="x402-network-name">cronos-testnet</span> <span class="muted" id="x402-chain">· chain ID 338</span>`,
		"Bridged USDC (Stargate)",
		`<code id="x402-asset">0xc01efAaF7C5C61bEbFAeb358E1161b537b8bC0e0</code>`,
		"<code>0x1111111111111111111111111111111111111111</code>",
		"http://shop.example/api/weather?city=sg",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("page lacks %s", want)
		}
	}
	csp := w.Header().Get("Content-Security-Policy")
	nonce := regexp.MustCompile(`script-src 'nonce-([^']+)'; style-src 'nonce-([^']+)' 'nonce-([^']+)';`).FindStringSubmatch(csp)
	if nonce == nil || nonce[1] != nonce[2] || nonce[1] == nonce[3] {
		t.Fatalf("CSP %q has no script nonce (the same for styles) and another frame nonce for styles only", csp)
	}
	if !strings.Contains(body, `<script nonce="`+nonce[1]+`" data-frame-nonce="`+nonce[3]+`">`) || !strings.Contains(body, `<style nonce="`+nonce[1]+`">`) {
		t.Error("the page's script and style do not carry the CSP's nonces")
	}
	w2 := unpaid(t, h, map[string]string{"User-Agent": chromeUA, "Accept": browserAccpt})
	if w2.Header().Get("Content-Security-Policy") == csp {
		t.Error("two responses share a nonce")
	}

	m := configBlock.FindStringSubmatch(body)
	if m == nil {
		t.Fatal("no x402-config block")
	}
	var cfg pageConfig
	if err := json.Unmarshal([]byte(m[1]), &cfg); err != nil {
		t.Fatal(err)
	}
	chain := pageChainConfig{Network: "cronos-testnet", ChainID: 338, ChainName: "Cronos testnet", RPCURLs: []string{"https://evm-t3.cronos.org"},
		NativeCurrency: testChain.NativeCurrency, Explorer: "https://explorer.cronos.org/testnet", Decimals: 6, Symbol: "devUSDC.e"}
	want := pageConfig{pageChainConfig: chain, Options: []pageChainConfig{chain}}
	if !reflect.DeepEqual(cfg, want) {
		t.Errorf("config %+v, want %+v", cfg, want)
	}
}

// TestPaywallPageEscapes: a description cannot break out of the page.
func TestPaywallPageEscapes(t *testing.T) {
	const evil = `</script><script>alert(1)</script><img src=x onerror=alert(2)> & "quoted"`
	h := pageHandler(t, PaywallPage{}, evil)
	body := unpaid(t, h, map[string]string{"User-Agent": chromeUA, "Accept": browserAccpt}).Body.String()
	if strings.Contains(body, "<script>alert") || strings.Contains(body, "<img src=x") {
		t.Fatal("the description was written into the page unescaped")
	}
	if !strings.Contains(body, "<h1>"+html.EscapeString(evil)+"</h1>") {
		t.Error("the heading does not show the description escaped")
	}
	m := paymentRequiredBlock.FindStringSubmatch(body)
	if m == nil {
		t.Fatal("the JSON block was cut short")
	}
	var pr x402.PaymentRequired
	if err := json.Unmarshal([]byte(m[1]), &pr); err != nil {
		t.Fatal(err)
	}
	if pr.Accepts[0].Description != evil {
		t.Errorf("description in the JSON block %q, want %q", pr.Accepts[0].Description, evil)
	}
}

// TestPaywallPageSellerTemplate: paywall_template replaces the page; one
// that cannot render is refused when the config loads.
func TestPaywallPageSellerTemplate(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "page.html")
	if err := os.WriteFile(file, []byte(`<!DOCTYPE html><title>{{.Description}}</title>{{template "x402_style" .}}
<p class="seller">Only {{.Price}} {{.Symbol}} ({{.Amount}} units) to {{.PayTo}} on chain {{.ChainID}}; explorer {{.Explorer}}; {{.Error}}</p>
<button id="x402-pay">Buy</button>{{template "x402_scripts" .}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	h := pageHandler(t, PaywallPage{PaywallTemplate: file, Explorer: "https://scan.example/"}, "Seller page")
	w := unpaid(t, h, map[string]string{"User-Agent": chromeUA, "Accept": browserAccpt})
	body := w.Body.String()
	want := `<p class="seller">Only 0.01 devUSDC.e (10000 units) to 0x1111111111111111111111111111111111111111 on chain 338; explorer https://scan.example; X-PAYMENT header is required</p>`
	if !strings.Contains(body, want) {
		t.Errorf("seller page lacks\n%s\ngot\n%s", want, body[:min(len(body), 600)])
	}
	if !paymentRequiredBlock.MatchString(body) || !strings.Contains(body, `id="x402-config"`) {
		t.Error("x402_scripts did not bring the data blocks")
	}

	bad := filepath.Join(dir, "bad.html")
	if err := os.WriteFile(bad, []byte(`{{.Price.Nope}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	h2, _ := testHandler(t, &fakeClient{}, false)
	h2.PaywallTemplate = bad
	if err := h2.buildPage(zap.NewNop(), testPageOptions(h2), h2.pricing.static); err == nil || !strings.Contains(err.Error(), "paywall_template") {
		t.Errorf("a template that cannot render was accepted: %v", err)
	}
}

func TestPaywallPageSettings(t *testing.T) {
	tests := []struct {
		page PaywallPage
		want string
	}{
		{PaywallPage{Paywall: "maybe"}, `paywall must be "on" or "off", got "maybe"`},
		{PaywallPage{Paywall: PaywallOff, PaywallTemplate: "x.html"}, "paywall_template has no use with paywall off"},
		{PaywallPage{Explorer: "explorer.cronos.org"}, `explorer "explorer.cronos.org" must be an http:// or https:// URL`},
		{PaywallPage{PaywallTemplate: "/nonexistent/page.html"}, "paywall_template"},
	}
	for _, tt := range tests {
		h, _ := testHandler(t, &fakeClient{}, false)
		h.PaywallPage = tt.page
		err := h.buildPage(zap.NewNop(), testPageOptions(h), h.pricing.static)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: error %v, want %q", tt.page, err, tt.want)
		}
	}
}

func TestWholeTokens(t *testing.T) {
	for _, tt := range []struct {
		units    int64
		decimals uint8
		want     string
	}{
		{10000, 6, "0.01"}, {1, 6, "0.000001"}, {1000000, 6, "1"}, {1500000, 6, "1.5"}, {0, 6, "0"}, {42, 0, "42"}, {120, 2, "1.2"},
	} {
		if got := wholeTokens(big.NewInt(tt.units), tt.decimals); got != tt.want {
			t.Errorf("wholeTokens(%d, %d) = %q, want %q", tt.units, tt.decimals, got, tt.want)
		}
	}
}

func TestPageChainFactsWithoutApp(t *testing.T) {
	ctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
	defer cancel()
	for _, tt := range []struct {
		network string
		chainID int64
		name    string
		rpc     int
	}{
		{"cronos-testnet", 338, "Cronos testnet", 1},
		{"cronos", 25, "Cronos", 1},
		{"eip155:8453", 8453, "eip155:8453", 0},
		{"moon", 0, "moon", 0},
	} {
		f := pageChainFacts(ctx, tt.network)
		if f.ChainID != tt.chainID || f.Name != tt.name || len(f.RPCURLs) != tt.rpc || f.Explorer != "" {
			t.Errorf("%s: %+v, want chain %d, name %q, %d RPC URLs, no explorer", tt.network, f, tt.chainID, tt.name, tt.rpc)
		}
	}
}

// TestPageV2: the page carries the 402's version 2 PaymentRequired for
// the script, made safe inside <script>; a Permit2 route without it is
// unpayable from the page and says why; an EIP-3009 route without it is
// paid by version 1 as before.
func TestPageV2(t *testing.T) {
	header, err := x402.EncodeBase64JSON(map[string]any{"x402Version": 2, "error": "</script><b>"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name      string
		permit2   bool
		header    string
		wantV2    string
		unpayable bool
	}{
		{"permit2 with v2", true, header, `{"error":"\u003c/script\u003e\u003cb\u003e","x402Version":2}`, false},
		{"permit2 without v2", true, "", "", true},
		{"permit2 with a bad header", true, "!!", "", true},
		{"eip3009 without v2", false, "", "", false},
	} {
		d := paywallpageData(tc.permit2)
		pageV2(&d, tc.header)
		if string(d.PaymentRequiredV2) != tc.wantV2 || (d.Unpayable != "") != tc.unpayable {
			t.Errorf("%s: v2 %q unpayable %q", tc.name, d.PaymentRequiredV2, d.Unpayable)
		}
		if tc.unpayable && !strings.Contains(d.Unpayable, "This route is paid through Permit2 with x402 version 2 (at most 0.01 devUSDC.e)") {
			t.Errorf("%s: %q", tc.name, d.Unpayable)
		}
	}
}

func paywallpageData(permit2 bool) paywallpage.Data {
	return paywallpage.Data{Price: "0.01", Symbol: "devUSDC.e", Permit2: permit2}
}
