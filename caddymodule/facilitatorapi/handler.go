package facilitatorapi

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"github.com/ethereum/go-ethereum/common"

	"github.com/caddy-x402/caddy-x402/caddymodule/app"
	"github.com/caddy-x402/caddy-x402/caddymodule/internal/httpx"
	"github.com/caddy-x402/caddy-x402/facilitator/httpapi"
	"github.com/caddy-x402/caddy-x402/facilitator/limit"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

func init() {
	caddy.RegisterModule(Handler{})
}

// Interface guards.
var (
	_ caddy.Provisioner           = (*Handler)(nil)
	_ caddy.Validator             = (*Handler)(nil)
	_ caddyhttp.MiddlewareHandler = (*Handler)(nil)
)

// Handler (http.handlers.x402_facilitator) serves the facilitator
// API of the x402 app's embedded facilitator: GET /healthcheck,
// GET /v2/x402/supported, POST /v2/x402/verify, POST /v2/x402/settle and
// GET /v2/x402/settlements/{txHash} and
// GET /v2/x402/settlements?network=&from=&nonce= (a settlement's outcome
// from the journal, or from the chain once compacted, by transaction or by
// authorization), and GET /v2/x402/discovery/resources (the bazaar
// discovery list: this Caddy's x402 routes that use the embedded
// facilitator, then the resources cataloged from other sellers' settled
// payments).
// Other paths go to the next handler. Verify and settle are rate limited
// per client IP (Caddy's client IP, so trusted_proxies is honoured); the
// defaults are the specification's 10 and 5 requests per minute.
//
// A site with only this handler and the x402 app is a standalone
// facilitator for other sellers.
type Handler struct {
	// VerifyLimit limits verify requests per client IP. Default: 10 per
	// minute.
	VerifyLimit *httpx.RateLimit `json:"verify_limit,omitempty"`

	// SettleLimit limits settle requests per client IP. Default: 5 per
	// minute.
	SettleLimit *httpx.RateLimit `json:"settle_limit,omitempty"`

	// LookupLimit limits settlement look-ups (GET /v2/x402/settlements)
	// per client IP. Default: 60 per minute.
	LookupLimit *httpx.RateLimit `json:"lookup_limit,omitempty"`

	// NoRateLimits turns both limits off, for a facilitator behind a proxy
	// that limits on its own.
	NoRateLimits bool `json:"no_rate_limits,omitempty"`

	// APIKeys are keys callers may send as "Authorization: Bearer KEY",
	// as placeholders only ({env.NAME} or {file.PATH}), resolved at
	// provision time so no key is in the config the admin API serves. A
	// caller with a key is limited per key (KeyVerifyLimit,
	// KeySettleLimit) instead of per IP, so a seller's paywall does not
	// share one IP's limit among all its buyers; an unknown key is
	// answered 401, and a client IP that sends too many unknown keys gets
	// 429 for a while (httpapi.DefaultUnknownKeyLimit). Callers
	// without a key (the Cronos clients) are served as before, except
	// batch-settlement claim, settle and refund settles, which are
	// served to a caller with a key only (without api_keys, to nobody).
	APIKeys []string `json:"api_keys,omitempty"`

	// APIKeyReceivers restricts keys of APIKeys (by their placeholder, as
	// written there) to the receiver addresses whose batch-settlement
	// channels they may claim, settle and refund; a key not in it may act
	// for any receiver.
	APIKeyReceivers map[string][]string `json:"api_key_receivers,omitempty"`

	// KeyVerifyLimit limits verify requests per API key. Default: 600 per
	// minute.
	KeyVerifyLimit *httpx.RateLimit `json:"key_verify_limit,omitempty"`

	// KeySettleLimit limits settle requests per API key. Default: 300 per
	// minute.
	KeySettleLimit *httpx.RateLimit `json:"key_settle_limit,omitempty"`

	// KeyLookupLimit limits settlement look-ups per API key. Default: 600
	// per minute.
	KeyLookupLimit *httpx.RateLimit `json:"key_lookup_limit,omitempty"`

	api http.Handler
}

// CaddyModule returns the Caddy module information.
func (Handler) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "http.handlers.x402_facilitator",
		New: func() caddy.Module { return new(Handler) },
	}
}

// Validate checks the rate limits.
func (fr *Handler) Validate() error {
	for _, k := range fr.APIKeys {
		if !httpx.KeyPlaceholder.MatchString(strings.TrimSpace(k)) {
			return errors.New("x402_facilitator: api_key must be a placeholder, {env.NAME} or {file.PATH}, not the key itself: a key written in the config would be served by the admin API (GET /config/)")
		}
	}
	for k, addrs := range fr.APIKeyReceivers {
		if !slices.Contains(fr.APIKeys, k) {
			return fmt.Errorf("x402_facilitator: api_key_receivers names %s, which is not one of api_keys", k)
		}
		for _, a := range addrs {
			if !common.IsHexAddress(strings.TrimSpace(a)) {
				return fmt.Errorf("x402_facilitator: api_key %s receivers: %q is not an address (0x and 40 hex digits)", k, a)
			}
		}
	}
	for name, l := range map[string]*httpx.RateLimit{"verify": fr.VerifyLimit, "settle": fr.SettleLimit, "lookup": fr.LookupLimit,
		"key verify": fr.KeyVerifyLimit, "key settle": fr.KeySettleLimit, "key lookup": fr.KeyLookupLimit} {
		if l != nil && (l.Requests <= 0 || l.Window <= 0) {
			return fmt.Errorf("x402_facilitator: %s rate limit needs a positive number of requests and window, got %d per %s",
				name, l.Requests, time.Duration(l.Window))
		}
	}
	return nil
}

// Provision gets the x402 app's facilitator and builds its HTTP API.
func (fr *Handler) Provision(ctx caddy.Context) error {
	appIface, err := ctx.App("x402")
	if err != nil {
		return fmt.Errorf("x402_facilitator: getting the x402 app: %w", err)
	}
	f := appIface.(*app.App).Facilitator()
	if f == nil {
		return errors.New("x402_facilitator: the x402 app has no facilitator")
	}
	cfg := httpapi.Config{NoRateLimits: fr.NoRateLimits, ClientIP: httpx.ClientIP, Resources: ownResources, OwnOrigin: ownOrigin}
	for _, l := range []struct {
		from *httpx.RateLimit
		to   *limit.RateLimit
	}{
		{fr.VerifyLimit, &cfg.VerifyLimit}, {fr.SettleLimit, &cfg.SettleLimit}, {fr.LookupLimit, &cfg.LookupLimit},
		{fr.KeyVerifyLimit, &cfg.KeyVerifyLimit}, {fr.KeySettleLimit, &cfg.KeySettleLimit}, {fr.KeyLookupLimit, &cfg.KeyLookupLimit},
	} {
		if l.from != nil {
			*l.to = limit.RateLimit{Requests: l.from.Requests, Window: time.Duration(l.from.Window)}
		}
	}
	repl := caddy.NewReplacer()
	for _, k := range fr.APIKeys {
		v, err := repl.ReplaceOrErr(strings.TrimSpace(k), true, true)
		if err != nil || strings.TrimSpace(v) == "" {
			return fmt.Errorf("x402_facilitator: api_key %s is empty or cannot be resolved", k)
		}
		cfg.APIKeys = append(cfg.APIKeys, v)
		if addrs, ok := fr.APIKeyReceivers[k]; ok {
			if cfg.KeyReceivers == nil {
				cfg.KeyReceivers = map[string][]string{}
			}
			cfg.KeyReceivers[v] = append(cfg.KeyReceivers[v], addrs...)
		}
	}
	fr.api = httpapi.New(f, cfg)
	return initMetrics(ctx.GetMetricsRegistry())
}

// ownResources lists this Caddy's own discoverable x402 routes for GET
// /v2/x402/discovery/resources; the paywall, which this package does not
// import, sets it (ListResources).
var ownResources func(*http.Request) []x402.DiscoveryItem

// ListResources sets where the discovery list gets this Caddy's own
// routes. The paywall calls it from its init.
func ListResources(f func(*http.Request) []x402.DiscoveryItem) { ownResources = f }

// ownOrigin tells whether a resource URL's origin is one this Caddy
// serves, so that the discovery catalog takes no entry for it from a
// payment; the paywall sets it (OwnsOrigins).
var ownOrigin func(string) bool

// OwnsOrigins sets how the discovery catalog tells this Caddy's own
// origins. The paywall calls it from its init.
func OwnsOrigins(f func(resourceURL string) bool) { ownOrigin = f }

// ServeHTTP implements caddyhttp.MiddlewareHandler.
func (fr *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler) error {
	switch r.URL.Path {
	case x402.PathHealth, x402.PathSupported, x402.PathVerify, x402.PathSettle, x402.PathSettlementLookup,
		x402.PathDiscoveryResources, x402.PathDiscoverySearch:
		serveCounted(fr.api, w, r)
		return nil
	}
	if strings.HasPrefix(r.URL.Path, x402.PathSettlements) {
		serveCounted(fr.api, w, r)
		return nil
	}
	return next.ServeHTTP(w, r)
}
