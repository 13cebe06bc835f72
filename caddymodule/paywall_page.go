package caddymodule

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"math/big"
	"net/http"
	"strconv"
	"strings"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"go.uber.org/zap"

	paywallpage "github.com/caddy-x402/caddy-x402/caddymodule/paywall"
	"github.com/caddy-x402/caddy-x402/facilitator"
	"github.com/caddy-x402/caddy-x402/facilitator/devnet"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// PaywallPage configures the payment page that people's browsers get in
// place of the JSON 402 answer (package paywall). It is part of the x402
// handler's configuration.
type PaywallPage struct {
	// Paywall is "off" to answer browsers with the JSON 402 like every
	// other client; by default ("" or "on") a request whose Accept
	// includes text/html and whose User-Agent is a browser's gets an HTML
	// page that pays from the browser's wallet.
	Paywall string `json:"paywall,omitempty"`

	// PaywallTemplate is the path of a Go html/template file used instead
	// of the built-in page, read when the config loads. It receives
	// paywallpage.Data and can call {{template "x402_style" .}} and
	// {{template "x402_scripts" .}} for the built-in style sheet and script.
	PaywallTemplate string `json:"paywall_template,omitempty"`

	// Explorer is the base URL of the network's block explorer, such as
	// https://explorer.cronos.org/testnet; the page links a settled
	// transaction as Explorer/tx/<hash>. Default: the network's explorer
	// in the x402 app, else none.
	Explorer string `json:"explorer,omitempty"`

	page *pageState
}

// pageState is the page's template and the parts of its data that do not
// change between requests.
type pageState struct {
	tmpl   *template.Template
	data   paywallpage.Data
	logger *zap.Logger
}

// Paywall settings.
const (
	PaywallOn  = "on"
	PaywallOff = "off"
)

// unmarshalPageOption reads one of the page's Caddyfile options.
func (p *PaywallPage) unmarshalPageOption(d *caddyfile.Dispenser, opt, v string) error {
	switch opt {
	case "paywall":
		p.Paywall = v
	case "paywall_template":
		p.PaywallTemplate = v
	case "explorer":
		p.Explorer = v
	}
	if err := p.validatePage(); err != nil {
		return d.Err(err.Error())
	}
	return nil
}

func isPageOption(opt string) bool {
	return opt == "paywall" || opt == "paywall_template" || opt == "explorer"
}

func (p *PaywallPage) validatePage() error {
	if p.Paywall != "" && p.Paywall != PaywallOn && p.Paywall != PaywallOff {
		return fmt.Errorf("x402: paywall must be %q or %q, got %q", PaywallOn, PaywallOff, p.Paywall)
	}
	if p.Paywall == PaywallOff && p.PaywallTemplate != "" {
		return errors.New("x402: paywall_template has no use with paywall off")
	}
	if err := checkExplorer(p.Explorer); err != nil {
		return fmt.Errorf("x402: %w", err)
	}
	return nil
}

func checkExplorer(u string) error {
	if u != "" && !strings.HasPrefix(u, "https://") && !strings.HasPrefix(u, "http://") {
		return fmt.Errorf("explorer %q must be an http:// or https:// URL", u)
	}
	return nil
}

// provisionPage prepares the page for the route's requirements, unless it
// is off.
func (p *PaywallPage) provisionPage(ctx caddy.Context, reqs facilitator.PaymentRequirements, decimals uint8) error {
	if p.Paywall == PaywallOff {
		return p.validatePage()
	}
	return p.buildPage(ctx.Logger(), reqs, decimals, pageChainFacts(ctx, reqs.Network))
}

// buildPage prepares the page from the requirements and the chain's facts.
func (p *PaywallPage) buildPage(logger *zap.Logger, reqs facilitator.PaymentRequirements, decimals uint8, chain chainFacts) error {
	if err := p.validatePage(); err != nil {
		return err
	}
	if p.Paywall == PaywallOff {
		p.page = nil
		return nil
	}
	st := &pageState{tmpl: paywallpage.Builtin(), logger: logger}
	if p.PaywallTemplate != "" {
		t, err := paywallpage.ParseFile(p.PaywallTemplate)
		if err != nil {
			return fmt.Errorf("x402: %w", err)
		}
		st.tmpl = t
	}
	amount, err := facilitator.ParseAmount(reqs.MaxAmountRequired)
	if err != nil {
		return fmt.Errorf("x402: %w", err)
	}
	if p.Explorer != "" {
		chain.Explorer = p.Explorer
	}
	sym := tokenSymbol(reqs.Asset)
	d := paywallpage.Data{
		Description: reqs.Description,
		MimeType:    reqs.MimeType,
		Price:       wholeTokens(amount, decimals),
		Amount:      amount.String(),
		Decimals:    decimals,
		Symbol:      sym,
		Asset:       reqs.Asset,
		Network:     reqs.Network,
		ChainID:     chain.ChainID,
		PayTo:       reqs.PayTo,
		Explorer:    strings.TrimRight(chain.Explorer, "/"),
	}
	if reqs.Extra != nil {
		d.TokenName = reqs.Extra.Name
	}
	cfg, err := json.Marshal(pageConfig{
		ChainID:        chain.ChainID,
		ChainName:      chain.Name,
		RPCURLs:        chain.RPCURLs,
		NativeCurrency: chain.NativeCurrency,
		Explorer:       d.Explorer,
		Decimals:       decimals,
		Symbol:         sym,
	})
	if err != nil {
		return err
	}
	d.Config = paywallpage.JSONForScript(cfg)
	st.data = d
	p.page = st
	return nil
}

// pageConfig is the script's settings (#x402-config).
type pageConfig struct {
	ChainID        int64           `json:"chainId"`
	ChainName      string          `json:"chainName"`
	RPCURLs        []string        `json:"rpcUrls"`
	NativeCurrency *nativeCurrency `json:"nativeCurrency,omitempty"`
	Explorer       string          `json:"explorer"`
	Decimals       uint8           `json:"decimals"`
	Symbol         string          `json:"symbol"`
}

// nativeCurrency is wallet_addEthereumChain's nativeCurrency.
type nativeCurrency struct {
	Name     string `json:"name"`
	Symbol   string `json:"symbol"`
	Decimals int    `json:"decimals"`
}

// chainFacts is what the page tells a wallet about the chain.
type chainFacts struct {
	ChainID        int64
	Name           string
	RPCURLs        []string
	NativeCurrency *nativeCurrency
	Explorer       string
}

// pageChainFacts learns the network's chain ID, a name and public RPC URLs
// for wallet_addEthereumChain, and the explorer, from the x402 app when it
// is configured, else from the built-in networks. The RPC URLs offered to
// wallets are only the built-in public ones or the devnet's: a configured
// rpc may carry credentials.
func pageChainFacts(ctx caddy.Context, network string) chainFacts {
	var f chainFacts
	f.Name = network
	// A CAIP-2 name (eip155:<chain ID>) or a known v1 name says its chain.
	if id, ok := x402.ChainIDOf(network); ok {
		f.ChainID = id
	}
	if b, ok := facilitator.BuiltinNetwork(network); ok {
		f.ChainID = b.ChainID
		f.RPCURLs = b.RPCURLs
		switch b.Name {
		case facilitator.NetworkCronosTestnet:
			f.Name = "Cronos testnet"
			f.NativeCurrency = &nativeCurrency{Name: "Test CRO", Symbol: "TCRO", Decimals: 18}
		case facilitator.NetworkCronosMainnet:
			f.Name = "Cronos"
			f.NativeCurrency = &nativeCurrency{Name: "Cronos", Symbol: "CRO", Decimals: 18}
		}
	}
	appIface, err := ctx.AppIfConfigured("x402")
	if err != nil {
		return f
	}
	app, ok := appIface.(*App)
	if !ok || app.fac == nil {
		return f
	}
	info, ok := app.fac.NetworkInfo(network)
	if !ok {
		return f
	}
	if info.ChainID != nil && info.ChainID.IsInt64() {
		f.ChainID = info.ChainID.Int64()
	}
	if app.chain != nil && strings.EqualFold(info.Name, devnet.Network) {
		f.Name = "Cronos devnet"
		f.RPCURLs = []string{app.chain.RPCURL()}
	}
	for _, n := range app.Networks {
		if n == nil {
			continue
		}
		name := n.Name
		if b, ok := facilitator.BuiltinNetwork(n.Name); ok {
			name = b.Name
		}
		if strings.EqualFold(name, info.Name) {
			f.Explorer = n.Explorer
			break
		}
	}
	return f
}

// knownSymbols are the symbols of the built-in networks' tokens, by
// lower-case address.
var knownSymbols = map[string]string{
	strings.ToLower(devnet.TokenAddress.Hex()):   "devUSDC.e",
	"0xf951ec28187d9e5ca673da8fe6757e6f0be5f77c": "USDC.e",
}

func tokenSymbol(asset string) string {
	if s, ok := knownSymbols[strings.ToLower(asset)]; ok {
		return s
	}
	return "tokens"
}

// wholeTokens renders smallest units as whole tokens without trailing
// zeros: 10000 with 6 decimals is "0.01".
func wholeTokens(v *big.Int, decimals uint8) string {
	s := facilitator.FormatAmount(v, decimals)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

// servePage answers a person's browser with the payment page instead of
// the JSON 402 body; it reports false (and writes nothing) when the page
// is off, the client is not a browser or the page cannot be rendered, so
// that the caller writes the JSON answer. Headers already set on w (such
// as a v2 PAYMENT-REQUIRED) stay.
func (p *PaywallPage) servePage(w http.ResponseWriter, r *http.Request, body []byte) (bool, error) {
	st := p.page
	if st == nil || !paywallpage.WantsPage(r) {
		return false, nil
	}
	var pr facilitator.PaymentRequired
	_ = json.Unmarshal(body, &pr)
	d := st.data
	d.Error = pr.Error
	if reqs, err := pr.Requirements(); err == nil {
		d.Resource = reqs.Resource
	}
	d.PaymentRequired = paywallpage.JSONForScript(bytes.TrimSpace(body))
	var buf bytes.Buffer
	csp, err := paywallpage.Render(st.tmpl, &buf, d)
	if err != nil {
		st.logger.Error("rendering the payment page failed; answering with JSON; fix paywall_template", zap.Error(err))
		return false, nil
	}
	hdr := w.Header()
	hdr.Set("Content-Type", "text/html; charset=utf-8")
	hdr.Set("Cache-Control", "no-store")
	hdr.Set("Content-Security-Policy", csp)
	hdr.Set("X-Content-Type-Options", "nosniff")
	hdr.Set("Referrer-Policy", "no-referrer")
	hdr.Add("Vary", "Accept, User-Agent")
	hdr.Set("Content-Length", strconv.Itoa(buf.Len()))
	w.WriteHeader(http.StatusPaymentRequired)
	_, err = w.Write(buf.Bytes())
	return true, err
}
