package paywall

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

	"github.com/caddy-x402/caddy-x402/caddymodule/app"
	paywallpage "github.com/caddy-x402/caddy-x402/caddymodule/paywall/page"
	"github.com/caddy-x402/caddy-x402/facilitator/devnet"
	x402network "github.com/caddy-x402/caddy-x402/facilitator/network"
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

// pageState is the page's template and the facts of the route's options
// that do not change between requests.
type pageState struct {
	tmpl   *template.Template
	opts   []pageOption
	logger *zap.Logger
	// fixed is the data of a route whose price is fixed, built once.
	fixed *paywallpage.Data
}

// pageOption is what the page shows and tells a wallet about one payment
// option besides its amount.
type pageOption struct {
	reqs     x402.PaymentRequirements
	decimals uint8
	chain    chainFacts
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
	if err := app.CheckExplorer(p.Explorer); err != nil {
		return fmt.Errorf("x402: %w", err)
	}
	return nil
}

// provisionPage prepares the page for the route's options, unless it is
// off.
func (h *Handler) provisionPage(ctx caddy.Context) error {
	if h.Paywall == PaywallOff {
		return h.validatePage()
	}
	opts := make([]pageOption, len(h.pricing.options))
	for i, o := range h.pricing.options {
		opts[i] = pageOption{reqs: o.reqs, decimals: o.decimals, chain: pageChainFacts(ctx, o.reqs.Network)}
	}
	return h.buildPage(ctx.Logger(), opts, h.pricing.static)
}

// buildPage prepares the page from the options and their chains' facts;
// fixed is the route's offer when its price is fixed (nil when priced per
// request), whose data is built once here.
func (p *PaywallPage) buildPage(logger *zap.Logger, opts []pageOption, fixed *offer) error {
	if err := p.validatePage(); err != nil {
		return err
	}
	if p.Paywall == PaywallOff {
		p.page = nil
		return nil
	}
	st := &pageState{tmpl: paywallpage.Builtin(), logger: logger, opts: opts}
	if p.PaywallTemplate != "" {
		t, err := paywallpage.ParseFile(p.PaywallTemplate)
		if err != nil {
			return fmt.Errorf("x402: %w", err)
		}
		st.tmpl = t
	}
	for i := range st.opts {
		if p.Explorer != "" {
			st.opts[i].chain.Explorer = p.Explorer
		}
	}
	if fixed != nil {
		d, err := st.dataFor(fixed)
		if err != nil {
			return err
		}
		st.fixed = &d
	}
	p.page = st
	return nil
}

// dataFor is the page's data for an offer: the first option in the
// top-level fields, every option in Options and in the script's config.
func (st *pageState) dataFor(o *offer) (paywallpage.Data, error) {
	var d paywallpage.Data
	cfg := pageConfig{}
	for i := range st.opts {
		po := &st.opts[i]
		reqs := &o.parts[i].reqs
		amount, err := x402.ParseAmount(reqs.MaxAmountRequired)
		if err != nil {
			return d, fmt.Errorf("x402: %w", err)
		}
		sym := tokenSymbol(reqs.Asset)
		od := paywallpage.Option{
			Network:  reqs.Network,
			ChainID:  po.chain.ChainID,
			Price:    wholeTokens(amount, po.decimals),
			Amount:   amount.String(),
			Decimals: po.decimals,
			Symbol:   sym,
			Asset:    reqs.Asset,
			Explorer: strings.TrimRight(po.chain.Explorer, "/"),
		}
		if reqs.Extra != nil {
			od.TokenName = reqs.Extra.Name
		}
		d.Options = append(d.Options, od)
		cfg.Options = append(cfg.Options, pageChainConfig{
			Network:        reqs.Network,
			ChainID:        po.chain.ChainID,
			ChainName:      po.chain.Name,
			RPCURLs:        po.chain.RPCURLs,
			NativeCurrency: po.chain.NativeCurrency,
			Explorer:       od.Explorer,
			Decimals:       po.decimals,
			Symbol:         sym,
		})
	}
	first := d.Options[0]
	reqs := &o.parts[0].reqs
	d.Description, d.MimeType, d.PayTo = reqs.Description, reqs.MimeType, reqs.PayTo
	d.Price, d.Amount, d.Decimals, d.Symbol, d.TokenName = first.Price, first.Amount, first.Decimals, first.Symbol, first.TokenName
	d.Asset, d.Network, d.ChainID, d.Explorer = first.Asset, first.Network, first.ChainID, first.Explorer
	d.Scheme = reqs.Scheme
	if d.Scheme == "" {
		d.Scheme = SchemeExact
	}
	if v2 := o.parts[0].v2; d.Scheme == SchemeUpto || (v2 != nil && v2.Extra["assetTransferMethod"] == AssetTransferPermit2) {
		d.Permit2 = true
	}
	cfg.pageChainConfig = cfg.Options[0]
	b, err := json.Marshal(cfg)
	if err != nil {
		return d, err
	}
	d.Config = paywallpage.JSONForScript(b)
	return d, nil
}

// pageConfig is the script's settings (#x402-config): the first option's
// chain at the top level, and every option's, in the order of the 402's
// accepts, in options.
type pageConfig struct {
	pageChainConfig
	Options []pageChainConfig `json:"options"`
}

// pageChainConfig is what the script needs to pay one option: its chain
// (to switch the wallet to it, or add it) and its token's units.
type pageChainConfig struct {
	Network        string          `json:"network"`
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
	if b, ok := x402network.Builtin(network); ok {
		f.ChainID = b.ChainID
		f.RPCURLs = b.RPCURLs
		switch b.Name {
		case x402network.CronosTestnet:
			f.Name = "Cronos testnet"
			f.NativeCurrency = &nativeCurrency{Name: "Test CRO", Symbol: "TCRO", Decimals: 18}
		case x402network.CronosMainnet:
			f.Name = "Cronos"
			f.NativeCurrency = &nativeCurrency{Name: "Cronos", Symbol: "CRO", Decimals: 18}
		}
	}
	appIface, err := ctx.AppIfConfigured("x402")
	if err != nil {
		return f
	}
	app, ok := appIface.(*app.App)
	if !ok || app.Facilitator() == nil {
		return f
	}
	info, ok := app.Facilitator().NetworkInfo(network)
	if !ok {
		return f
	}
	if info.ChainID != nil && info.ChainID.IsInt64() {
		f.ChainID = info.ChainID.Int64()
	}
	if app.Chain() != nil && strings.EqualFold(info.Name, devnet.Network) {
		f.Name = "Cronos devnet"
		f.RPCURLs = []string{app.Chain().RPCURL()}
	}
	for _, n := range app.Networks {
		if n == nil {
			continue
		}
		name := n.Name
		if b, ok := x402network.Builtin(n.Name); ok {
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
	s := x402.FormatAmount(v, decimals)
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
// The offer o is the request's when the route is priced per request, nil
// for a fixed price.
func (p *PaywallPage) servePage(w http.ResponseWriter, r *http.Request, o *offer, body []byte) (bool, error) {
	st := p.page
	if st == nil || !paywallpage.WantsPage(r) {
		return false, nil
	}
	var pr x402.PaymentRequired
	_ = json.Unmarshal(body, &pr)
	var d paywallpage.Data
	if st.fixed != nil && o == nil {
		d = *st.fixed
	} else {
		var err error
		if d, err = st.dataFor(o); err != nil {
			st.logger.Error("building the payment page failed; answering with JSON", zap.Error(err))
			return false, nil
		}
	}
	d.Error = pr.Error
	if reqs, err := pr.Requirements(); err == nil {
		d.Resource = reqs.Resource
	}
	d.PaymentRequired = paywallpage.JSONForScript(bytes.TrimSpace(body))
	pageV2(&d, w.Header().Get(x402.HeaderPaymentRequired))
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

// pageV2 gives the page the 402's version 2 PaymentRequired (the
// PAYMENT-REQUIRED header already set), which a Permit2 route is paid
// with; without it such a route is unpayable from the page, and says so.
func pageV2(d *paywallpage.Data, header string) {
	var v2 json.RawMessage
	if header != "" && x402.DecodeBase64JSON(header, &v2) == nil && len(v2) > 0 && v2[0] == '{' {
		d.PaymentRequiredV2 = paywallpage.JSONForScript(v2)
		return
	}
	if d.Permit2 {
		d.Unpayable = fmt.Sprintf("This route is paid through Permit2 with x402 version 2 (at most %s %s), and its answer carries no version 2 requirements for this page to sign. "+
			"Pay with an x402 version 2 client: @x402/fetch with @x402/evm, or caddy x402 pay --approve-permit2 <RPC URL>.", d.Price, d.Symbol)
	}
}
