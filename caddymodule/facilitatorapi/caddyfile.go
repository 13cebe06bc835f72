package facilitatorapi

import (
	"strconv"
	"strings"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"github.com/ethereum/go-ethereum/common"

	"github.com/caddy-x402/caddy-x402/caddymodule/internal/httpx"
)

func init() {
	httpcaddyfile.RegisterHandlerDirective("x402_facilitator", parseCaddyfile)
}

// Interface guard.
var _ caddyfile.Unmarshaler = (*Handler)(nil)

func parseCaddyfile(h httpcaddyfile.Helper) (caddyhttp.MiddlewareHandler, error) {
	fr := new(Handler)
	err := fr.UnmarshalCaddyfile(h.Dispenser)
	return fr, err
}

// UnmarshalCaddyfile sets up the x402_facilitator handler. Syntax:
//
//	x402_facilitator [<matcher>] {
//		rate_limit verify|settle|lookup <requests> <window>
//		rate_limit off
//		api_key {env.NAME} [receivers <address>...]
//		key_rate_limit verify|settle|lookup <requests> <window>
//	}
//
// The limits apply per client IP; the defaults are the specification's,
// verify 10 per 1m and settle 5 per 1m. A caller that sends one of the
// api_keys (Authorization: Bearer KEY) is limited per key instead, by
// default verify 600 per 1m and settle 300 per 1m. Batch-settlement
// claim, settle and refund settles are served only to a caller with a
// key; a key with receivers only for channels to those addresses.
func (fr *Handler) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	d.Next() // the directive name
	if d.NextArg() {
		return d.ArgErr()
	}
	for d.NextBlock(0) {
		opt := d.Val()
		switch opt {
		case "rate_limit", "key_rate_limit":
		case "api_key":
			if !d.NextArg() {
				return d.Err("x402_facilitator: api_key takes one placeholder, such as {env.X402_API_KEY}, then optionally receivers <address>...")
			}
			key := d.Val()
			if !httpx.KeyPlaceholder.MatchString(key) {
				return d.Err("x402_facilitator: api_key must be a placeholder, {env.NAME} or {file.PATH}, not the key itself: a key written in the config would be served by the admin API (GET /config/)")
			}
			fr.APIKeys = append(fr.APIKeys, key)
			if rest := d.RemainingArgs(); len(rest) > 0 {
				if rest[0] != "receivers" || len(rest) == 1 {
					return d.Errf("x402_facilitator: api_key %s: after the key, expected receivers <address>..., got %q", key, strings.Join(rest, " "))
				}
				for _, a := range rest[1:] {
					if !common.IsHexAddress(a) {
						return d.Errf("x402_facilitator: api_key %s receivers: %q is not an address (0x and 40 hex digits)", key, a)
					}
				}
				if fr.APIKeyReceivers == nil {
					fr.APIKeyReceivers = map[string][]string{}
				}
				fr.APIKeyReceivers[key] = append(fr.APIKeyReceivers[key], rest[1:]...)
			}
			continue
		default:
			return d.Errf("x402_facilitator: unrecognized option %q; expected rate_limit, api_key or key_rate_limit", opt)
		}
		args := d.RemainingArgs()
		switch {
		case opt == "rate_limit" && len(args) == 1 && args[0] == "off":
			fr.NoRateLimits = true
		case len(args) == 3 && (args[0] == "verify" || args[0] == "settle" || args[0] == "lookup"):
			n, err := strconv.Atoi(args[1])
			if err != nil || n <= 0 {
				return d.Errf("x402_facilitator: rate_limit %s: %q is not a positive number of requests", args[0], args[1])
			}
			w, err := caddy.ParseDuration(args[2])
			if err != nil || w <= 0 {
				return d.Errf("x402_facilitator: rate_limit %s: %q is not a positive duration such as 1m", args[0], args[2])
			}
			l := &httpx.RateLimit{Requests: n, Window: caddy.Duration(w)}
			switch {
			case opt == "key_rate_limit" && args[0] == "verify":
				fr.KeyVerifyLimit = l
			case opt == "key_rate_limit" && args[0] == "lookup":
				fr.KeyLookupLimit = l
			case opt == "key_rate_limit":
				fr.KeySettleLimit = l
			case args[0] == "verify":
				fr.VerifyLimit = l
			case args[0] == "lookup":
				fr.LookupLimit = l
			default:
				fr.SettleLimit = l
			}
		default:
			return d.Errf("x402_facilitator: %s takes verify|settle|lookup <requests> <window>%s", opt, map[bool]string{true: ", or off"}[opt == "rate_limit"])
		}
	}
	return nil
}
