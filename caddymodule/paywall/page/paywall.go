// Package page is the x402 payment page for people: an HTML page, its
// script and its style sheet, embedded in the binary, that a browser gets
// instead of the JSON 402 answer. The script connects an injected EIP-1193
// wallet (window.ethereum), switches it to the payment's chain, has it sign
// the EIP-3009 authorization (eth_signTypedData_v4), retries the request
// with the X-PAYMENT header and shows the paid content and the transaction.
// A route that moves the token through Permit2 (scheme upto, or exact
// with asset_transfer permit2) is paid with x402 version 2: the wallet
// approves Permit2 once (eth_sendTransaction) or signs an EIP-2612 permit
// when the route sponsors it, then signs Permit2's
// PermitWitnessTransferFrom, and the page shows the charge from
// PAYMENT-RESPONSE.
//
// Nothing is loaded from elsewhere: the script and the style sheet are
// inlined with a per-response nonce that the page's Content-Security-Policy
// names, so the page works offline and under a strict policy.
//
// The script finds wallets by EIP-6963 (eip6963:announceProvider events)
// and lets the person choose when several announce; with none it uses
// window.ethereum.
package page

import (
	"bytes"
	"crypto/rand"
	"embed"
	"encoding/base64"
	"fmt"
	"html/template"
	"io"
	"net/http"
	"os"
	"strings"
)

//go:embed index.html.tmpl app.js style.css
var files embed.FS

// Data is what a page template receives. Every field is filled for the
// built-in template and for a seller's own (paywall_template).
type Data struct {
	// Description is the route's description, or "" when none is set.
	Description string
	// Resource is the full URL that was asked for.
	Resource string
	// MimeType is the paid resource's media type, or "".
	MimeType string
	// Price is the price in whole tokens without trailing zeros, such
	// as "0.01".
	Price string
	// Amount is the price in the token's smallest units, such as "10000".
	Amount string
	// Decimals is the token's number of decimals.
	Decimals uint8
	// Symbol is the token's symbol when known (such as "USDC.e"), else
	// "tokens".
	Symbol string
	// TokenName is the token's EIP-712 domain name, or "".
	TokenName string
	// Asset is the token contract address.
	Asset string
	// Network is the network name of the requirements, such as
	// "cronos-testnet".
	Network string
	// ChainID is the network's EVM chain ID, or 0 when unknown (the page
	// then cannot ask the wallet to switch chains).
	ChainID int64
	// PayTo is the seller's address.
	PayTo string
	// Explorer is the block explorer's base URL (a transaction is at
	// Explorer + "/tx/" + hash), or "".
	Explorer string
	// Scheme is the route's x402 scheme: "exact", or "upto" (the price is
	// a maximum; the charge is what the answer used).
	Scheme string
	// Permit2 is true when a payment moves the token through Permit2
	// (scheme upto, or exact with asset_transfer permit2): the buyer's
	// wallet approves Permit2 once, or signs an EIP-2612 permit when the
	// route sponsors it, and signs a Permit2 witness transfer.
	Permit2 bool
	// Unpayable, when set, says why this page cannot pay the route (a
	// Permit2 route whose 402 lacks its x402 version 2 requirements): the
	// built-in page shows it instead of its pay button.
	Unpayable string
	// Error is the 402 answer's error: "X-PAYMENT header is required" for
	// a first visit, or why a payment was refused.
	Error string
	// Nonce is this response's Content-Security-Policy nonce; every
	// <script> and <style> element of the page needs nonce="{{.Nonce}}".
	Nonce string
	// FrameNonce is a second nonce of this response that the policy
	// allows for style sheets only (style-src, never script-src). The
	// script gives it to the <style> elements of paid HTML, which it shows
	// in a sandboxed frame whose document inherits the page's policy, so
	// that the content keeps its styles. It reads it from the script
	// element's data-frame-nonce attribute:
	// <script nonce="{{.Nonce}}" data-frame-nonce="{{.FrameNonce}}">.
	FrameNonce string
	// Script is the page's script (app.js), for
	// <script nonce="{{.Nonce}}" data-frame-nonce="{{.FrameNonce}}">{{.Script}}</script>.
	Script template.JS
	// Style is the page's style sheet (style.css), for
	// <style nonce="{{.Nonce}}">{{.Style}}</style>.
	Style template.CSS
	// PaymentRequired is the 402 JSON body (x402Version, error,
	// paymentRequirements, accepts), for a
	// <script type="application/json" id="x402-payment-required"> element.
	PaymentRequired template.JS
	// PaymentRequiredV2 is the 402's x402 version 2 PaymentRequired (the
	// PAYMENT-REQUIRED header decoded: accepts with the v2 requirements,
	// resource, extensions), or {} when the route has none, for a
	// <script type="application/json" id="x402-payment-required-v2">
	// element. The script pays Permit2 routes with it.
	PaymentRequiredV2 template.JS
	// Options are the ways to pay, one per network, in the order of the
	// 402's accepts; the fields above are the first's. The built-in page
	// offers a choice when there are several.
	Options []Option
	// Config is the script's settings as JSON (chain ID, chain name, RPC
	// URLs for adding the chain to a wallet, explorer, decimals, symbol),
	// for a <script type="application/json" id="x402-config"> element.
	Config template.JS
}

// Option is one way to pay: a network with its token and price.
type Option struct {
	// Network is the network name, such as "cronos-testnet".
	Network string
	// ChainID is the network's EVM chain ID, or 0 when unknown.
	ChainID int64
	// Price is the price in whole tokens without trailing zeros.
	Price string
	// Amount is the price in the token's smallest units.
	Amount string
	// Decimals is the token's number of decimals.
	Decimals uint8
	// Symbol is the token's symbol when known, else "tokens".
	Symbol string
	// TokenName is the token's EIP-712 domain name, or "".
	TokenName string
	// Asset is the token contract address.
	Asset string
	// Explorer is the network's block explorer base URL, or "".
	Explorer string
}

// Templates a seller's template can call: {{template "x402_style" .}}
// inside <head> and {{template "x402_scripts" .}} at the end of <body>
// give the built-in style sheet and everything the script needs.
const base = `{{define "x402_style"}}<style nonce="{{.Nonce}}">{{.Style}}</style>{{end}}` +
	`{{define "x402_scripts"}}<script type="application/json" id="x402-payment-required">{{.PaymentRequired}}</script>` +
	`<script type="application/json" id="x402-payment-required-v2">{{.PaymentRequiredV2}}</script>` +
	`<script type="application/json" id="x402-config">{{.Config}}</script>` +
	`<script nonce="{{.Nonce}}" data-frame-nonce="{{.FrameNonce}}">{{.Script}}</script>{{end}}`

var (
	script       template.JS
	style        template.CSS
	builtin      *template.Template
	builtinError error
)

func init() {
	js, _ := files.ReadFile("app.js")
	css, _ := files.ReadFile("style.css")
	script, style = template.JS(js), template.CSS(css)
	page, _ := files.ReadFile("index.html.tmpl")
	builtin, builtinError = parse("index.html.tmpl", string(page))
}

func parse(name, text string) (*template.Template, error) {
	t, err := template.New(name).Parse(base)
	if err != nil {
		return nil, err
	}
	return t.Parse(text)
}

// Builtin returns the built-in page template.
func Builtin() *template.Template {
	if builtinError != nil {
		panic("paywall: the embedded template does not parse: " + builtinError.Error())
	}
	return builtin
}

// ParseFile reads and parses a seller's page template (Go html/template).
// It can call the "x402_style" and "x402_scripts" templates.
func ParseFile(path string) (*template.Template, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("paywall_template: %w", err)
	}
	t, err := parse(path, string(b))
	if err != nil {
		return nil, fmt.Errorf("paywall_template %s: %w", path, err)
	}
	// Render once with sample data, so that a template that fails on
	// every request (a missing field) is refused when the config loads.
	if err := t.Execute(io.Discard, sample()); err != nil {
		return nil, fmt.Errorf("paywall_template %s: %w", path, err)
	}
	return t, nil
}

func sample() Data {
	d := Data{Scheme: "exact", Price: "0.01", Amount: "10000", Decimals: 6, Symbol: "tokens", Network: "example",
		Asset: "0x0000000000000000000000000000000000000000", PayTo: "0x0000000000000000000000000000000000000000"}
	d.Options = []Option{{Network: d.Network, Price: d.Price, Amount: d.Amount, Decimals: d.Decimals, Symbol: d.Symbol, Asset: d.Asset}}
	d.finish()
	return d
}

// Render writes the page for d with template t; the script, the style
// sheet and fresh nonces are filled in. It returns the response's
// Content-Security-Policy, which names the nonces.
func Render(t *template.Template, w io.Writer, d Data) (csp string, err error) {
	d.finish()
	return CSP(d.Nonce, d.FrameNonce), t.Execute(w, d)
}

func (d *Data) finish() {
	d.Nonce, d.FrameNonce = NewNonce(), NewNonce()
	d.Script, d.Style = script, style
	if d.PaymentRequired == "" {
		d.PaymentRequired = "{}"
	}
	if d.Config == "" {
		d.Config = "{}"
	}
	if d.PaymentRequiredV2 == "" {
		d.PaymentRequiredV2 = "{}"
	}
}

// JSONForScript makes a JSON text safe inside a <script> element: '<', '>'
// and '&' can only occur in JSON strings, where their \u escapes mean the
// same, so "</script>" cannot close the element early.
func JSONForScript(b []byte) template.JS {
	b = bytes.ReplaceAll(b, []byte("<"), []byte(`\u003c`))
	b = bytes.ReplaceAll(b, []byte(">"), []byte(`\u003e`))
	b = bytes.ReplaceAll(b, []byte("&"), []byte(`\u0026`))
	return template.JS(b)
}

// NewNonce returns a fresh random CSP nonce (128 bits, Base64).
func NewNonce() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// CSP is the page's Content-Security-Policy: nothing may load from
// anywhere; the inline script and style sheet run by nonce; the script may
// fetch only this origin (the paid retry); images come only from data:
// URIs (the wallets' EIP-6963 icons) and blob: URLs (a paid image). Paid HTML is shown in a sandboxed frame
// (no scripts, an opaque origin) from srcdoc, whose document inherits
// this policy: its <style> elements get frameNonce, which allows style
// sheets and nothing else, and its style attributes become rules in such
// an element.
func CSP(nonce, frameNonce string) string {
	return "default-src 'none'; script-src 'nonce-" + nonce + "'; " +
		"style-src 'nonce-" + nonce + "' 'nonce-" + frameNonce + "'; " +
		"img-src data: blob:; connect-src 'self'; " +
		"base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
}

// WantsPage tells whether a request comes from a person's browser: it
// accepts text/html and its User-Agent is a browser's ("Mozilla/...").
// Programs (curl, SDKs, fetch from scripts) get the JSON answer, and so
// does a request that carries a payment (X-PAYMENT, or v2's
// PAYMENT-SIGNATURE): that is the page's
// own script, or another program, reading why it was refused.
func WantsPage(r *http.Request) bool {
	return r.Header.Get("X-Payment") == "" && r.Header.Get("Payment-Signature") == "" &&
		strings.Contains(r.Header.Get("User-Agent"), "Mozilla") &&
		acceptsHTML(r.Header.Values("Accept"))
}

func acceptsHTML(values []string) bool {
	for _, v := range values {
		for _, part := range strings.Split(v, ",") {
			mt, params, _ := strings.Cut(part, ";")
			if !strings.EqualFold(strings.TrimSpace(mt), "text/html") {
				continue
			}
			// text/html;q=0 says "not HTML".
			q := strings.ReplaceAll(strings.ToLower(params), " ", "")
			if strings.HasPrefix(q, "q=0") && strings.Trim(strings.TrimPrefix(q, "q=0"), ".0") == "" {
				continue
			}
			return true
		}
	}
	return false
}
