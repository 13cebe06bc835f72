// handler.go is the x402 directive's handler: its config (the Handler's
// fields, the directive's JSON, each documented: most of this file's
// length), Provision, Validate, Cleanup and ServeHTTP. What a request goes
// through lives beside it: pricing.go, attempts.go, checkout.go,
// delivery.go, reply.go, handler_access.go (package access).

package paywall

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"github.com/ethereum/go-ethereum/common"
	"go.uber.org/zap"

	"github.com/caddy-x402/caddy-x402/caddymodule/access"
	"github.com/caddy-x402/caddy-x402/caddymodule/app"
	"github.com/caddy-x402/caddy-x402/caddymodule/internal/httpx"
	"github.com/caddy-x402/caddy-x402/caddymodule/paywall/discovery"
	"github.com/caddy-x402/caddy-x402/caddymodule/paywall/mcp"
	"github.com/caddy-x402/caddy-x402/facilitator"
	x402network "github.com/caddy-x402/caddy-x402/facilitator/network"
	"github.com/caddy-x402/caddy-x402/facilitator/offerreceipt"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

func init() {
	caddy.RegisterModule(Handler{})
}

// Interface guards.
var (
	_ caddy.Provisioner           = (*Handler)(nil)
	_ caddy.Validator             = (*Handler)(nil)
	_ caddy.CleanerUpper          = (*Handler)(nil)
	_ caddyhttp.MiddlewareHandler = (*Handler)(nil)
)

// upstreamHeaders are the request headers the upstream reads from the
// paywall alone (who paid, the settlement, the access window), and
// Settlement-Overrides, which an upstream that echoes request headers
// would answer as its charge: a buyer's own are removed from every
// request.
var upstreamHeaders = []string{httpx.HeaderTxHash, httpx.HeaderFrom, httpx.HeaderValue, httpx.HeaderNetwork, httpx.HeaderBlockNumber, httpx.HeaderAccessUntil, httpx.HeaderAccessVia,
	HeaderSettlementOverrides}

// paymentHeaders are the buyer's payment headers, which the next handler
// does not see unless forward_payment_header is set.
var paymentHeaders = []string{httpx.HeaderPayment, x402.HeaderPaymentSignature, x402.HeaderSignInWithX}

// Settlement orders.
const (
	SettleBefore = "before"
	SettleAfter  = "after"
)

// Defaults of the handler.
const (
	DefaultNetwork    = x402network.CronosTestnet
	DefaultMaxTimeout = 300 * time.Second
)

// Handler is the x402 paywall (http.handlers.x402). It answers a request
// without an X-PAYMENT header with HTTP 402 and the payment requirements;
// with one, it verifies the payment against this route's own requirements,
// settles it on chain and lets the request through to the next handler with
// the settlement attached (request headers X-Payment-*, placeholders
// {http.x402.*}, and the X-PAYMENT-RESPONSE response header).
//
// It talks to the x402 app's embedded facilitator, or to a remote one when
// facilitator is set.
type Handler struct {
	// PayTo is the seller's wallet address (0x hex) that receives payments.
	PayTo string `json:"pay_to,omitempty"`

	// Price is the price in whole tokens, such as "0.01"; it is converted
	// to smallest units with each network's token decimals. Set price or
	// amount, not both. It may hold Caddy placeholders ({vars.price}, a
	// map's output, a header an earlier handler set), resolved for every
	// request: a value that is not a valid price answers 500 (logged),
	// never serves the request unpaid. Never take it from a header the
	// buyer sends.
	Price string `json:"price,omitempty"`

	// Amount is the price in the token's smallest units, such as "10000",
	// the same on every network. It may hold placeholders, as Price.
	Amount string `json:"amount,omitempty"`

	// Network is the network payments are taken on, by name or alias.
	// Default: cronos-testnet. Set Network or Networks, not both.
	Network string `json:"network,omitempty"`

	// Networks lists several networks a payment may be made on, in the
	// seller's order: the 402 offers one option per network (the first is
	// the Cronos-shaped paymentRequirements), each with its own token and
	// amount, and a payment is verified and settled on the network it
	// names. Each must be a network of the x402 app, or, with a remote
	// facilitator, built in or in the app (and listed in the remote's
	// /supported).
	Networks []string `json:"networks,omitempty"`

	// Description is free text for the buyer, in the payment requirements.
	Description string `json:"description,omitempty"`

	// MimeType is the media type of the paid resource, in the payment
	// requirements.
	MimeType string `json:"mime_type,omitempty"`

	// MaxTimeout is how long a payment may take (maxTimeoutSeconds).
	// Default 300s.
	MaxTimeout caddy.Duration `json:"max_timeout,omitempty"`

	// Facilitator is the base URL of a remote facilitator to verify and
	// settle with, instead of the x402 app's embedded one.
	Facilitator string `json:"facilitator,omitempty"`

	// FacilitatorDialect is the dialect the remote facilitator speaks:
	// "cronos" (paymentHeader bodies, the Cronos interface), "v1" (the
	// reference version 1, paymentPayload) or "v2". Default: learnt from
	// the facilitator's /supported, else cronos.
	FacilitatorDialect string `json:"facilitator_dialect,omitempty"`

	// FacilitatorHeaders are added to every request to the remote
	// facilitator, for one that needs an API key. Values may hold
	// placeholders ({env.FACILITATOR_KEY}), resolved at start, so that
	// the secret itself stays out of the config.
	FacilitatorHeaders map[string]string `json:"facilitator_headers,omitempty"`

	// Settle is when the payment is settled: "before" (default, but
	// "after" on a route with MCPTools, as x402's MCP transport settles a
	// tool call once it ran) settles and then runs the next handler; "after" verifies, runs the next
	// handler and settles only if it answers with a status below 400,
	// before any byte of its body goes out (a status of 400 or more goes
	// through untouched and no money moves). With "after", the upstream
	// gets X-Payment-From, -Value and -Network but no transaction hash,
	// which does not exist yet; the {http.x402.*} placeholders are set once
	// settled, for logs.
	Settle string `json:"settle,omitempty"`

	// Asset is the token contract address, for a remote facilitator and a
	// network the x402 app does not know. Default: the built-in network's.
	Asset string `json:"asset,omitempty"`

	// Decimals is the token's decimals, for a remote facilitator and a
	// network the x402 app does not know. Default: the built-in network's.
	Decimals *uint8 `json:"decimals,omitempty"`

	// EIP712Name is the token's EIP-712 domain name given to buyers in
	// the requirements' extra, for a remote facilitator. Default: the
	// built-in network's.
	EIP712Name string `json:"eip712_name,omitempty"`

	// EIP712Version is the token's EIP-712 domain version given to buyers
	// in the requirements' extra, for a remote facilitator. Default: the
	// built-in network's.
	EIP712Version string `json:"eip712_version,omitempty"`

	// AttemptLimit limits the payment attempts one client (Caddy's client
	// IP) may send on to the facilitator: every attempt costs RPC calls,
	// good payment or not. Over it, the answer is 429 with Retry-After.
	// Default: 60 per minute. At most limit.MaxKeys client
	// IPs are tracked per route; one idle for a whole window is forgotten.
	AttemptLimit *httpx.RateLimit `json:"attempt_limit,omitempty"`

	// NoAttemptLimit turns the attempt limit off.
	NoAttemptLimit bool `json:"no_attempt_limit,omitempty"`

	// RefusalTTL is how long a refused authorization (the same payer,
	// nonce, signature and requirements) is answered from memory, without
	// asking the facilitator or the chain again. Default: 30s. The cache
	// holds at most 10,000 refusals and 1 MiB per route, each reason cut
	// to 128 bytes; expired ones are swept every 5 s (every TTL, if
	// shorter, at least 1 s), with or without new requests.
	RefusalTTL caddy.Duration `json:"refusal_ttl,omitempty"`

	// NoRefusalCache turns the cache of refused authorizations off.
	NoRefusalCache bool `json:"no_refusal_cache,omitempty"`

	// ForwardPaymentHeader passes the buyer's payment header
	// (PAYMENT-SIGNATURE or X-PAYMENT) on to the next handler. By default
	// the paywall removes both before the next handler runs, so that the
	// signed authorization is neither sent to the upstream nor written to
	// its logs (reverse_proxy's debug log prints the request headers); the
	// X-Payment-* headers of the settlement are set either way.
	ForwardPaymentHeader bool `json:"forward_payment_header,omitempty"`

	// AllowEncodedPercent serves a request path holding an encoded
	// percent sign (%25), priced and passed on as decoded once. By default
	// such a path is refused (400): an upstream that decodes a path twice
	// reads /a%2541 as /aA, another resource than the one priced. Turn it
	// on only when every upstream of the route decodes once.
	AllowEncodedPercent bool `json:"allow_encoded_percent,omitempty"`

	// Label names the route in metrics (the route label of
	// x402_payments_total). Default: "<amount> to <pay_to>".
	Label string `json:"label,omitempty"`

	// PaymentIdentifier is the x402 version 2 payment-identifier
	// extension, an idempotency key a buyer may send with its payment:
	// "optional" (default) declares it in the 402 and honours an id a
	// buyer sends (the same id with the same payment again is that
	// payment, never a second charge; with another payment, 409);
	// "required" also refuses a version 2 payment without an id (400);
	// "off" neither declares nor reads ids. Version 1 payments carry no
	// extensions and are served as before.
	PaymentIdentifier string `json:"payment_identifier,omitempty"`

	// OfferReceipt signs the route's offers and receipts (the x402
	// offer-receipt extension) with the x402 app's receipt key: "eip712" or
	// "jws"; "" (default) signs nothing. Each 402 then carries one signed
	// offer per accepts entry, and each paid answer a signed receipt of
	// what was paid and charged (receipt.go).
	OfferReceipt string `json:"offer_receipt,omitempty"`

	// ReceiptNoTransaction leaves the transaction hash out of the route's
	// receipts (privacy); by default a receipt names it.
	ReceiptNoTransaction bool `json:"receipt_no_transaction,omitempty"`

	// PaywallPage is the payment page for browsers: paywall,
	// paywall_template and explorer.
	PaywallPage

	// Window is the access a payment buys: access and access_cookie
	// (package access).
	access.Window

	// Metering is the route's scheme (exact or upto) and, for upto, how
	// the charge is read from the answer: scheme, meter and
	// meter_max_bytes (metering.go).
	Metering

	// Declaration is what the route declares for discovery: input_schema,
	// input_example, body_type, output_schema, output_example and
	// discovery (package discovery).
	discovery.Declaration

	// Config is what the route sells over MCP: mcp_tool, mcp_max_body,
	// mcp_max_answer and mcp_call_timeout (package mcp).
	mcp.Config

	app      *app.App // the x402 app, when configured
	metrics  routeMetrics
	releases []func() error   // what the handler holds in usage pools, let go in Cleanup
	pricing  pricing          // the payment options and the offers of the route's prices
	core     *core            // the route's core at run time (core.go)
	reply    replies          // the route's answers (reply.go), built in Provision
	disc     *discovery.Route // the route's bazaar declarations (discovery.go)
	mcp      *mcp.Transport   // the MCP route's transport (transport.go); nil for other routes
	logger   *zap.Logger
}

// CaddyModule returns the Caddy module information.
func (Handler) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "http.handlers.x402",
		New: func() caddy.Module { return new(Handler) },
	}
}

// Provision finds the facilitator and builds the route's payment
// options and the static parts of its 402 answer.
func (h *Handler) Provision(ctx caddy.Context) error {
	h.logger = ctx.Logger()
	h.core = new(core) // filled as provisioning goes (fillCore at the end); the scheme's seller keeps its pointer
	if err := h.Validate(); err != nil {
		return err
	}
	// x402's MCP transport runs the tool first and settles only a result
	// that is not isError: an MCP route settles after unless told before.
	h.core.settleAfter = h.Settle == SettleAfter || (h.Settle == "" && len(h.MCPTools) > 0)
	if err := h.provisionClient(ctx); err != nil {
		return err
	}
	if err := h.checkReceiptKey(); err != nil {
		return err
	}
	timeout := time.Duration(h.MaxTimeout)
	if timeout == 0 {
		timeout = DefaultMaxTimeout
	}
	var fac *facilitator.Facilitator
	if h.app != nil {
		fac = h.app.Facilitator()
	}
	h.pricing = newPricing(h.routePrice(), h.Amount, fac)
	seen := map[string]string{}
	for _, network := range h.networkNames() {
		info, err := h.networkInfo(ctx, network)
		if err != nil {
			return err
		}
		if h.Price != "" && !info.DecimalsKnown {
			return fmt.Errorf("x402: price %q is in whole tokens, but the decimals of network %q's token are unknown with a remote facilitator: set decimals, or give amount in smallest units", h.Price, info.Name)
		}
		opt := payOption{
			reqs: x402.PaymentRequirements{
				Scheme:            h.scheme(),
				Network:           info.Name,
				PayTo:             h.PayTo,
				Asset:             info.Token,
				MaxTimeoutSeconds: int64(timeout / time.Second),
				Description:       h.Description,
				MimeType:          h.MimeType,
			},
			decimals: info.Decimals, decimalsKnown: info.DecimalsKnown, chainID: info.ChainID,
		}
		opt.canon = h.pricing.canonNetwork(info.Name)
		if first, dup := seen[opt.canon]; dup {
			return fmt.Errorf("x402: network %q is listed twice (as %q and %q): list each network once", info.Name, first, network)
		}
		seen[opt.canon] = network
		if info.Domain.Name != "" && info.Domain.Version != "" {
			d := info.Domain
			opt.reqs.Extra = &d
		} else {
			h.logger.Warn("the token's EIP-712 name and version are unknown, so the 402 answer has no extra for x402 reference clients; set eip712_name and eip712_version",
				zap.String("network", info.Name))
		}
		if info.ChainID > 0 {
			opt.caip2 = x402.CAIP2(info.ChainID)
		} else {
			h.logger.Warn("the network's chain id is unknown, so buyers can pay on it only with x402 version 1; name the network eip155:<chainId>",
				zap.String("network", info.Name))
		}
		h.pricing.options = append(h.pricing.options, opt)
	}
	// The attempt limit before the scheme's seller side: a channel route reads it (channel.go).
	h.core.attempts = newAttempts(h)
	if err := h.loadSeller(ctx); err != nil { // the route's scheme (seller.go)
		return err
	}
	if h.Facilitator != "" && !app.Validating() {
		h.checkRemoteNetworks()
	}
	if h.pricing.perRequest() {
		h.pricing.dynamic = &offerCache{m: map[string]*offer{}}
	} else {
		o, err := h.pricing.priceOffer(h.pricing.expr)
		if err != nil {
			return fmt.Errorf("x402: %w", err)
		}
		h.pricing.static = o
	}
	h.metrics.label = h.Label
	if h.metrics.label == "" {
		amount := h.pricing.expr
		if h.pricing.static != nil {
			amount = h.pricing.static.parts[0].reqs.MaxAmountRequired
		}
		h.metrics.label = amount + " to " + strings.ToLower(h.PayTo)
	}
	if err := initMetrics(ctx.GetMetricsRegistry()); err != nil {
		return err
	}
	if err := initMeterMetrics(ctx.GetMetricsRegistry()); err != nil {
		return err
	}
	if err := initChannelMetrics(ctx.GetMetricsRegistry()); err != nil {
		return err
	}
	if err := h.provisionAccess(ctx); err != nil {
		return err
	}
	if err := h.provisionDiscovery(); err != nil {
		return err
	}
	h.reply = newReplies(h)
	h.checkPathGuards(ctx) // pathguard_check.go
	h.fillCore()
	if err := h.provisionMCP(ctx); err != nil {
		return err
	}
	return h.provisionPage(ctx)
}

// networkNames are the route's networks in the seller's order.
func (h *Handler) networkNames() []string {
	switch {
	case len(h.Networks) > 0:
		return h.Networks
	case h.Network != "":
		return []string{h.Network}
	}
	return []string{DefaultNetwork}
}

// Cleanup releases the redemption store a remote-mode paywall opened
// itself (with no x402 app configured).
func (h *Handler) Cleanup() error {
	var errs []error
	if s, ok := h.core.seller.(stopper); ok {
		if err := s.stop(); err != nil { // batch-settlement: a last claim round
			errs = append(errs, err)
		}
	}
	if err := h.core.gate.Cleanup(); err != nil {
		errs = append(errs, err)
	}
	for _, release := range h.releases {
		if err := release(); err != nil {
			errs = append(errs, err)
		}
	}
	h.releases = nil
	return errors.Join(errs...)
}

// provisionClient picks the facilitator client (the x402 app's embedded
// facilitator, or the remote one), the outcome lookups and the
// redemption store.
func (h *Handler) provisionClient(ctx caddy.Context) error {
	h.app = nil
	if h.Facilitator == "" {
		appIface, err := ctx.App("x402")
		if err != nil {
			return fmt.Errorf("x402: getting the x402 app: %w", err)
		}
		app := appIface.(*app.App)
		h.app = app
		h.core.client, h.core.outcomes, h.core.redeem, h.core.settleWait = app.Facilitator(), localLookup{app.Facilitator()}, app.Deliveries(), app.SettleWait()
		return nil
	}
	remote, err := h.remoteClient()
	if err != nil {
		return err
	}
	h.core.client = remote
	h.core.outcomes = newRemoteLookup(h.Facilitator)
	// A configured x402 app knows its networks best (their domains may
	// have been read on chain); a remote facilitator does not tell.
	if appIface, err := ctx.AppIfConfigured("x402"); err == nil {
		h.app = appIface.(*app.App)
		h.core.redeem = h.app.Deliveries()
	} else if !errors.Is(err, caddy.ErrNotConfigured) {
		return fmt.Errorf("x402: getting the x402 app: %w", err)
	}
	if h.core.redeem == nil {
		rd, release, err := app.OpenDeliveries(app.DefaultRedemptionsPath(), "")
		if err != nil {
			return fmt.Errorf("x402: %w", err)
		}
		h.core.redeem, h.releases = rd, append(h.releases, release)
	}
	return nil
}

// badChecksum tells whether an address (IsAddress) is written in mixed case
// that is not its EIP-55 checksum, and gives the checksummed form. All lower
// or all upper case carries no checksum and is accepted as written.
func badChecksum(addr string) (string, bool) {
	digits := addr[2:]
	if digits == strings.ToLower(digits) || digits == strings.ToUpper(digits) {
		return "", false
	}
	want := common.HexToAddress(addr).Hex()
	return want, addr != want
}

// Validate checks the handler's own settings.
func (h *Handler) Validate() error {
	if h.PayTo == "" {
		return errors.New("x402: pay_to is required: the seller's wallet address (0x followed by 40 hex digits)")
	}
	if !x402.IsAddress(h.PayTo) {
		return fmt.Errorf("x402: pay_to %q is not an address: want 0x followed by 40 hex digits", h.PayTo)
	}
	if want, ok := badChecksum(h.PayTo); ok {
		return fmt.Errorf("x402: pay_to %q has a bad EIP-55 checksum (its mix of upper and lower case is not the address's), and wallets and clients such as viem refuse it: "+
			"check that it is the address you mean, then write it as %s (its checksum) or all in lower case", h.PayTo, want)
	}
	switch {
	case h.Price != "" && h.Amount != "":
		return errors.New("x402: set either price (whole tokens) or amount (smallest units), not both")
	case h.Price == "" && h.Amount == "" && len(h.MCPTools) == 0:
		return errors.New("x402: a price is required: set price (whole tokens, such as 0.01) or amount (smallest units, such as 10000)")
	case h.Amount != "" && !httpx.HasPlaceholder(h.Amount):
		if _, err := x402.ParseAmount(h.Amount); err != nil {
			return fmt.Errorf("x402: amount %q: %w", h.Amount, err)
		}
	}
	if h.Network != "" && len(h.Networks) > 0 {
		return errors.New("x402: set either network or networks, not both")
	}
	if len(h.Networks) > 1 && (h.Asset != "" || h.Decimals != nil || h.EIP712Name != "" || h.EIP712Version != "") {
		return errors.New("x402: asset, decimals, eip712_name and eip712_version describe the token of one network; with several networks, each must be built in or configured in the x402 app")
	}
	for _, n := range h.Networks {
		if strings.TrimSpace(n) == "" {
			return errors.New("x402: networks holds an empty name")
		}
	}
	switch h.PaymentIdentifier {
	case "", PaymentIDOptional, PaymentIDRequired, PaymentIDOff:
	default:
		return fmt.Errorf("x402: payment_identifier must be %q, %q or %q, got %q", PaymentIDOptional, PaymentIDRequired, PaymentIDOff, h.PaymentIdentifier)
	}
	if _, ok := offerreceipt.ParseFormat(h.OfferReceipt); h.OfferReceipt != "" && !ok {
		return fmt.Errorf("x402: offer_receipt must be %q or %q, got %q", offerreceipt.EIP712, offerreceipt.JWS, h.OfferReceipt)
	}
	if h.ReceiptNoTransaction && h.OfferReceipt == "" {
		return errors.New("x402: receipt_transaction off is set but the route signs no receipts: add offer_receipt eip712 (or jws)")
	}
	if err := h.checkReceiptKey(); err != nil {
		return err
	}
	if h.Settle != "" && h.Settle != SettleBefore && h.Settle != SettleAfter {
		return fmt.Errorf("x402: settle must be %q or %q, got %q", SettleBefore, SettleAfter, h.Settle)
	}
	if h.MaxTimeout < 0 || (h.MaxTimeout > 0 && time.Duration(h.MaxTimeout) < time.Second) {
		return fmt.Errorf("x402: max_timeout must be at least 1s, got %s", time.Duration(h.MaxTimeout))
	}
	if h.Asset != "" && !x402.IsAddress(h.Asset) {
		return fmt.Errorf("x402: asset %q is not an address: want 0x followed by 40 hex digits", h.Asset)
	}
	for k, v := range h.FacilitatorHeaders {
		if strings.EqualFold(k, "Authorization") && !strings.Contains(v, "{env.") && !strings.Contains(v, "{file.") {
			return errors.New(`x402: facilitator_header Authorization must hold a placeholder, such as "Bearer {env.X402_FACILITATOR_KEY}": a key written in the config would be served by the admin API (GET /config/)`)
		}
	}
	if l := h.AttemptLimit; l != nil && (l.Requests <= 0 || l.Window <= 0) {
		return fmt.Errorf("x402: attempt_limit needs a positive number of attempts and window, got %d per %s", l.Requests, time.Duration(l.Window))
	}
	if h.RefusalTTL < 0 {
		return fmt.Errorf("x402: refusal_ttl must not be negative")
	}
	if h.FacilitatorDialect != "" {
		if _, err := x402.ParseDialect(h.FacilitatorDialect); err != nil {
			return fmt.Errorf("x402: facilitator_dialect: %w", err)
		}
	}
	if h.Facilitator != "" && !strings.HasPrefix(h.Facilitator, "http://") && !strings.HasPrefix(h.Facilitator, "https://") {
		return fmt.Errorf("x402: facilitator %q must be an http:// or https:// URL", h.Facilitator)
	}
	if err := knownScheme(h.scheme()); err != nil { // seller.go
		return err
	}
	if err := h.Metering.validate(h.Window.Access); err != nil {
		return err
	}
	if h.channel() {
		if err := h.Metering.validateChannel(h.Settle, h.Window.Access, h.MCPTools); err != nil { // channel.go
			return err
		}
	}
	if err := h.Declaration.Validate(); err != nil {
		return err
	}
	if err := h.validateMCP(); err != nil {
		return err
	}
	return h.Window.Validate()
}

// withoutPaymentHeaders runs the next handler with a copy of the request
// that lacks the buyer's payment headers. The paywall keeps reading them
// from its own request while the next handler runs (settle after answers
// in the header matching the payment's), and the copy shares everything
// else, the X-Payment-* headers set so far included.
type withoutPaymentHeaders struct{ next caddyhttp.Handler }

func (n withoutPaymentHeaders) ServeHTTP(w http.ResponseWriter, r *http.Request) error {
	found := false
	for _, k := range paymentHeaders {
		if _, ok := r.Header[http.CanonicalHeaderKey(k)]; ok {
			found = true
		}
	}
	if !found {
		return n.next.ServeHTTP(w, r)
	}
	up := r.WithContext(r.Context())
	up.Header = r.Header.Clone()
	for _, k := range paymentHeaders {
		up.Header.Del(k)
	}
	return n.next.ServeHTTP(w, up)
}
