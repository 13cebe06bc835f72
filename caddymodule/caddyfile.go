package caddymodule

import (
	"encoding/json"
	"math/big"
	"strconv"
	"strings"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/caddy-x402/caddy-x402/facilitator"
	"github.com/caddy-x402/caddy-x402/facilitator/devnet"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

func init() {
	httpcaddyfile.RegisterGlobalOption("x402", parseGlobalOption)
	httpcaddyfile.RegisterDirective("x402", parseHandlerRoute)
	httpcaddyfile.RegisterHandlerDirective("x402_facilitator", parseFacilitatorRoutes)

	// Where the directives run when not inside a route block: after the
	// directives that rewrite the request (rewrite, uri, try_files), that
	// authenticate (basic_auth, forward_auth: nobody pays for a request
	// that would be refused anyway), that edit request headers
	// (request_header) and that wrap the response (encode, intercept,
	// templates); before the dispatching ones (invoke, handle, handle_path,
	// route), so that `x402 /api/*` charges before a `handle /api/*` block
	// runs, and so before every content handler (respond, reverse_proxy,
	// file_server, ...). Each insertion goes right after templates, so
	// registering x402 first and x402_facilitator second gives
	// templates, x402_facilitator, x402: the facilitator's own endpoints
	// are never behind a paywall on a site that has both.
	httpcaddyfile.RegisterDirectiveOrder("x402", httpcaddyfile.After, "templates")
	httpcaddyfile.RegisterDirectiveOrder("x402_facilitator", httpcaddyfile.After, "templates")
}

// parseGlobalOption sets up the x402 app from the x402 global option.
func parseGlobalOption(d *caddyfile.Dispenser, existing any) (any, error) {
	if existing != nil {
		return nil, d.Err("the x402 global option is given twice; put everything in one x402 block")
	}
	app := new(App)
	if err := app.UnmarshalCaddyfile(d); err != nil {
		return nil, err
	}
	return httpcaddyfile.App{Name: "x402", Value: caddyconfig.JSON(app, nil)}, nil
}

// UnmarshalCaddyfile sets up the x402 app from the x402 global option.
// Syntax:
//
//	x402 {
//		network <name> {
//			rpc <url> [<url>...]
//			signer_key {env.NAME} | {file./path/to/key}
//			chain_id <id>
//			token <address>
//			decimals <n>
//			eip712_name <name>
//			eip712_version <version>
//			alias <name> [<name>...]
//			skip_onchain_verify
//			explorer <url>
//			smart_wallet_factories <address> [<address>...]
//			smart_wallet_min_amount <units>
//		}
//		devnet {
//			listen <host:port>
//			block_time <duration>
//			buyers <n>
//			info_file <path>
//		}
//		settle_timeout <duration>
//		journal <path>
//		journal_retention <duration> | off
//		redemptions <path>
//		storage postgres <connection string> {
//			lease <duration>
//		}
//	}
//
// network may repeat, and signer_key and rpc within it. A built-in network
// name (cronos-testnet, cronos-mainnet, cronos) needs nothing else; any
// other needs chain_id, rpc and token. Signer keys must be {env.*} or
// {file.*} placeholders, resolved when the config is loaded, so that no key
// is in the JSON config.
func (a *App) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	d.Next() // the option name
	if d.NextArg() {
		return d.ArgErr()
	}
	for d.NextBlock(0) {
		switch d.Val() {
		case "network":
			n, err := parseNetwork(d)
			if err != nil {
				return err
			}
			a.Networks = append(a.Networks, n)
		case "devnet":
			if a.Devnet != nil {
				return d.Err("devnet is given twice")
			}
			dv, err := parseDevnet(d)
			if err != nil {
				return err
			}
			a.Devnet = dv
		case "settle_timeout":
			dur, err := durationArg(d)
			if err != nil {
				return err
			}
			a.SettleTimeout = dur
		case "journal":
			v, err := oneArg(d)
			if err != nil {
				return err
			}
			a.Journal = v
		case "journal_retention":
			v, err := oneArg(d)
			if err != nil {
				return err
			}
			if v == "off" {
				a.JournalRetention = -1
				continue
			}
			dur, err := caddy.ParseDuration(v)
			if err != nil || dur <= 0 {
				return d.Errf("journal_retention %q is not a positive duration such as 720h, or off", v)
			}
			a.JournalRetention = caddy.Duration(dur)
		case "redemptions":
			v, err := oneArg(d)
			if err != nil {
				return err
			}
			a.Redemptions = v
		case "storage":
			if a.Storage != nil {
				return d.Err("storage is given twice")
			}
			if !d.NextArg() || d.Val() != "postgres" {
				return d.Err("storage needs a backend: storage postgres <connection string>, for example storage postgres {env.X402_DATABASE_URL}")
			}
			v, err := oneArg(d)
			if err != nil {
				return err
			}
			a.Storage = &StorageConfig{Postgres: v}
			for nesting := d.Nesting(); d.NextBlock(nesting); {
				switch d.Val() {
				case "lease":
					dur, err := durationArg(d)
					if err != nil {
						return err
					}
					a.Storage.Lease = dur
				default:
					return d.Errf("unrecognized storage postgres option %q; expected lease", d.Val())
				}
			}
		default:
			return d.Errf("unrecognized x402 option %q; expected network, devnet, settle_timeout, journal, journal_retention, redemptions or storage", d.Val())
		}
	}
	if err := a.validate(); err != nil {
		return d.Errf("x402: %v", err)
	}
	return nil
}

func parseNetwork(d *caddyfile.Dispenser) (*NetworkConfig, error) {
	if !d.NextArg() {
		return nil, d.Errf("network needs a name, such as network %s", facilitator.NetworkCronosTestnet)
	}
	n := &NetworkConfig{Name: d.Val()}
	if d.NextArg() {
		return nil, d.ArgErr()
	}
	for nesting := d.Nesting(); d.NextBlock(nesting); {
		switch d.Val() {
		case "rpc":
			urls := d.RemainingArgs()
			if len(urls) == 0 {
				return nil, d.ArgErr()
			}
			for _, u := range urls {
				placeholder := strings.HasPrefix(u, "{") && strings.HasSuffix(u, "}")
				if !placeholder && !strings.Contains(u, "://") {
					return nil, d.Errf("network %s: rpc %q is not a URL (want http://, https://, ws:// or wss://)", n.Name, u)
				}
			}
			n.RPC = append(n.RPC, urls...)
		case "signer_key":
			if !d.NextArg() {
				return nil, d.ArgErr()
			}
			k := d.Val()
			if d.NextArg() {
				return nil, d.ArgErr()
			}
			if err := checkKeyPlaceholder(n.Name, k); err != nil {
				return nil, d.Err(err.Error())
			}
			n.SignerKeys = append(n.SignerKeys, k)
		case "chain_id":
			v, err := oneArg(d)
			if err != nil {
				return nil, err
			}
			id, err := strconv.ParseInt(v, 10, 64)
			if err != nil || id <= 0 {
				return nil, d.Errf("network %s: chain_id %q is not a positive integer", n.Name, v)
			}
			n.ChainID = id
		case "token":
			v, err := oneArg(d)
			if err != nil {
				return nil, err
			}
			if !facilitator.IsAddress(v) {
				return nil, d.Errf("network %s: token %q is not an address: want 0x followed by 40 hex digits", n.Name, v)
			}
			n.Token = v
		case "decimals":
			v, err := oneArg(d)
			if err != nil {
				return nil, err
			}
			dec, err := strconv.ParseUint(v, 10, 8)
			if err != nil || dec > 77 {
				return nil, d.Errf("network %s: decimals %q is not an integer from 0 to 77", n.Name, v)
			}
			u := uint8(dec)
			n.Decimals = &u
		case "eip712_name":
			v, err := oneArg(d)
			if err != nil {
				return nil, err
			}
			n.EIP712Name = v
		case "eip712_version":
			v, err := oneArg(d)
			if err != nil {
				return nil, err
			}
			n.EIP712Version = v
		case "alias":
			names := d.RemainingArgs()
			if len(names) == 0 {
				return nil, d.ArgErr()
			}
			n.Aliases = append(n.Aliases, names...)
		case "skip_onchain_verify":
			if d.NextArg() {
				return nil, d.ArgErr()
			}
			n.SkipOnchainVerify = true
		case "explorer":
			v, err := oneArg(d)
			if err != nil {
				return nil, err
			}
			if err := checkExplorer(v); err != nil {
				return nil, d.Errf("network %s: %v", n.Name, err)
			}
			n.Explorer = v
		case "smart_wallet_factories":
			addrs := d.RemainingArgs()
			if len(addrs) == 0 {
				return nil, d.ArgErr()
			}
			for _, a := range addrs {
				if !facilitator.IsAddress(a) {
					return nil, d.Errf("network %s: smart_wallet_factories: %q is not an address: want 0x followed by 40 hex digits", n.Name, a)
				}
			}
			n.SmartWalletFactories = append(n.SmartWalletFactories, addrs...)
		case "smart_wallet_min_amount":
			v, err := oneArg(d)
			if err != nil {
				return nil, err
			}
			if _, err := parseUnits(v); err != nil {
				return nil, d.Errf("network %s: smart_wallet_min_amount %q is not a whole number of the token's smallest unit", n.Name, v)
			}
			n.SmartWalletMinAmount = v
		default:
			return nil, d.Errf("network %s: unrecognized option %q", n.Name, d.Val())
		}
	}
	return n, nil
}

func parseDevnet(d *caddyfile.Dispenser) (*DevnetConfig, error) {
	dv := new(DevnetConfig)
	if d.NextArg() {
		return nil, d.ArgErr()
	}
	for nesting := d.Nesting(); d.NextBlock(nesting); {
		switch d.Val() {
		case "listen":
			v, err := oneArg(d)
			if err != nil {
				return nil, err
			}
			dv.Listen = v
		case "block_time":
			dur, err := durationArg(d)
			if err != nil {
				return nil, err
			}
			dv.BlockTime = dur
		case "buyers":
			v, err := oneArg(d)
			if err != nil {
				return nil, err
			}
			b, err := strconv.Atoi(v)
			if err != nil || b < 1 || b > devnet.MaxBuyers {
				return nil, d.Errf("devnet: buyers %q is not an integer from 1 to %d", v, devnet.MaxBuyers)
			}
			dv.Buyers = b
		case "info_file":
			v, err := oneArg(d)
			if err != nil {
				return nil, err
			}
			dv.InfoFile = v
		case "chain_id":
			v, err := oneArg(d)
			if err != nil {
				return nil, err
			}
			id, err := strconv.ParseInt(v, 10, 64)
			if err != nil || id <= 0 {
				return nil, d.Errf("devnet: chain_id %q is not a positive integer", v)
			}
			dv.ChainID = id
		case "network":
			v, err := oneArg(d)
			if err != nil {
				return nil, err
			}
			dv.Network = v
		case "token":
			v, err := oneArg(d)
			if err != nil {
				return nil, err
			}
			if !facilitator.IsAddress(v) {
				return nil, d.Errf("devnet: token %q is not an address: want 0x followed by 40 hex digits", v)
			}
			dv.Token = v
		default:
			return nil, d.Errf("devnet: unrecognized option %q; expected listen, block_time, buyers, info_file, chain_id, network or token", d.Val())
		}
	}
	return dv, nil
}

func oneArg(d *caddyfile.Dispenser) (string, error) {
	if !d.NextArg() {
		return "", d.ArgErr()
	}
	v := d.Val()
	if d.NextArg() {
		return "", d.ArgErr()
	}
	return v, nil
}

func durationArg(d *caddyfile.Dispenser) (caddy.Duration, error) {
	name := d.Val()
	v, err := oneArg(d)
	if err != nil {
		return 0, err
	}
	dur, err := caddy.ParseDuration(v)
	if err != nil || dur <= 0 {
		return 0, d.Errf("%s %q is not a positive duration such as 30s", name, v)
	}
	return caddy.Duration(dur), nil
}

// parseHandler sets up the x402 handler and, when the network is known at
// adapt time, checks it exists.
func parseHandler(h httpcaddyfile.Helper) (caddyhttp.MiddlewareHandler, error) {
	m := new(Handler)
	if err := m.UnmarshalCaddyfile(h.Dispenser); err != nil {
		return nil, err
	}
	if m.Facilitator != "" {
		return m, nil
	}
	var app App
	if opt, ok := h.Option("x402").(httpcaddyfile.App); ok {
		if err := json.Unmarshal(opt.Value, &app); err != nil {
			return nil, err
		}
	}
	for _, network := range m.networkNames() {
		if names := app.networkNames(); !containsFold(names, network) && !containsFold(app.networkIDs(), network) {
			return nil, h.Errf("x402: network %q is not configured in the x402 global option (configured: %s); add network %s { ... } to it, or set facilitator to a remote one",
				network, strings.Join(names, ", "), network)
		}
		if m.Price != "" && !hasPlaceholder(m.Price) {
			if dec, ok := app.decimalsOf(network); ok {
				if _, err := facilitator.ParsePrice(m.Price, dec); err != nil {
					return nil, h.Errf("x402: network %s: %v", network, err)
				}
			}
		}
	}
	return m, nil
}

// networkNames lists the names and aliases the app will serve, from its
// configuration alone.
func (a *App) networkNames() []string {
	confs := a.Networks
	if len(confs) == 0 {
		confs = []*NetworkConfig{{Name: a.defaultNetwork()}}
	}
	var names []string
	add := func(n ...string) {
		for _, v := range n {
			if !containsFold(names, v) {
				names = append(names, v)
			}
		}
	}
	for _, c := range confs {
		add(c.Name)
		add(c.Aliases...)
		if b, ok := facilitator.BuiltinNetwork(c.Name); ok {
			add(b.Name)
			add(b.Aliases...)
		}
	}
	if a.Devnet != nil {
		add(a.Devnet.network())
	}
	return names
}

// networkIDs lists the CAIP-2 ids (eip155:<chainId>) of the configured
// networks whose chain id the configuration tells.
func (a *App) networkIDs() []string {
	confs := a.Networks
	if len(confs) == 0 {
		confs = []*NetworkConfig{{Name: a.defaultNetwork()}}
	}
	var ids []string
	for _, c := range confs {
		if c.ChainID > 0 {
			ids = append(ids, x402.CAIP2(c.ChainID))
		}
		if b, ok := facilitator.BuiltinNetwork(c.Name); ok {
			ids = append(ids, x402.CAIP2(b.ChainID))
		}
	}
	if a.Devnet != nil {
		ids = append(ids, x402.CAIP2(a.Devnet.chainID()))
	}
	return ids
}

// decimalsOf returns a network's token decimals when the configuration
// alone tells them.
func (a *App) decimalsOf(network string) (uint8, bool) {
	for _, c := range a.Networks {
		names := append([]string{c.Name}, c.Aliases...)
		b, builtin := facilitator.BuiltinNetwork(c.Name)
		if builtin {
			names = append(names, b.Name)
			names = append(names, b.Aliases...)
		}
		if !containsFold(names, network) {
			continue
		}
		if c.Decimals != nil {
			return *c.Decimals, true
		}
		return 6, true
	}
	if b, ok := facilitator.BuiltinNetwork(network); ok {
		return b.Decimals, true
	}
	return 0, false
}

func containsFold(list []string, s string) bool {
	for _, v := range list {
		if strings.EqualFold(v, s) {
			return true
		}
	}
	return false
}

// UnmarshalCaddyfile sets up the x402 handler. Syntax:
//
//	x402 [<matcher>] {
//		pay_to <address>
//		price <whole tokens> | amount <smallest units>
//		network <name> [<name>...]
//		description <text>
//		mime_type <media type>
//		max_timeout <duration>
//		facilitator <url>
//		facilitator_dialect cronos|v1|v2
//		facilitator_header <name> <value>
//		settle before|after
//		asset <address>
//		decimals <n>
//		eip712_name <name>
//		eip712_version <version>
//		attempt_limit <attempts> <window> | off
//		refusal_cache <duration> | off
//		forward_payment_header
//		label <name>
//		payment_identifier [optional|required|off]
//		paywall on|off
//		paywall_template <file>
//		explorer <url>
//		access <duration>
//		access_cookie on|off
//		input_schema <file or JSON>
//		input_example <file or JSON>
//		body_type json|form-data|text
//		output_schema <file or JSON>
//		output_example <file or JSON>
//		discovery on|off
//	}
//
// pay_to and exactly one of price or amount are required; price and
// amount may hold placeholders ({vars.price}, a map's output), resolved
// per request. network defaults to cronos-testnet; several networks
// offer one payment option each, in the order given; max_timeout to 300s, settle to before. asset,
// decimals, eip712_name and eip712_version are for a remote facilitator
// and a network this Caddy does not know. payment_identifier defaults to
// optional (declared in the 402, honoured when a buyer sends an id); alone
// it means optional. forward_payment_header passes the buyer's
// PAYMENT-SIGNATURE or X-PAYMENT on to the next handler, which by default
// does not see them. The matcher chooses the paid requests, so several
// x402 directives can charge different prices. access makes a payment buy
// its payer the route for that long (Sign-In-With-X and a browser cookie,
// which access_cookie off turns off). input_schema (of the query
// parameters, or of the body of POST, PUT and PATCH), output_schema and
// their examples describe the route for discovery: its 402's bazaar
// declaration, /.well-known/x402.json and the facilitator's discovery
// list; discovery off leaves the route out of all three.
func (h *Handler) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	d.Next() // the directive name
	if d.NextArg() {
		return d.Errf("x402 takes its settings in a block, not as arguments: x402 { pay_to ...; price ... }")
	}
	for d.NextBlock(0) {
		opt := d.Val()
		switch opt {
		case "max_timeout":
			dur, err := durationArg(d)
			if err != nil {
				return err
			}
			h.MaxTimeout = dur
			continue
		case "attempt_limit":
			args := d.RemainingArgs()
			switch {
			case len(args) == 1 && args[0] == "off":
				h.NoAttemptLimit = true
			case len(args) == 2:
				n, err := strconv.Atoi(args[0])
				if err != nil || n <= 0 {
					return d.Errf("x402: attempt_limit: %q is not a positive number of attempts", args[0])
				}
				w, err := caddy.ParseDuration(args[1])
				if err != nil || w <= 0 {
					return d.Errf("x402: attempt_limit: %q is not a positive duration such as 1m", args[1])
				}
				h.AttemptLimit = &RateLimit{Requests: n, Window: caddy.Duration(w)}
			default:
				return d.Err("x402: attempt_limit takes <attempts> <window> (such as 60 1m), or off")
			}
			continue
		case "network":
			args := d.RemainingArgs()
			switch {
			case len(args) == 0:
				return d.Err("x402: network takes one or more network names")
			case h.Network != "" || len(h.Networks) > 0:
				return d.Err("x402: network is given twice: list every network in one network line")
			case len(args) == 1:
				h.Network = args[0]
			default:
				h.Networks = args
			}
			continue
		case "facilitator_header":
			args := d.RemainingArgs()
			if len(args) != 2 {
				return d.Err(`x402: facilitator_header takes a name and a value, such as Authorization "Bearer {env.FACILITATOR_KEY}"`)
			}
			if h.FacilitatorHeaders == nil {
				h.FacilitatorHeaders = map[string]string{}
			}
			h.FacilitatorHeaders[args[0]] = args[1]
			continue
		case "payment_identifier":
			args := d.RemainingArgs()
			switch {
			case len(args) == 0:
				h.PaymentIdentifier = PaymentIDOptional
			case len(args) == 1 && (args[0] == PaymentIDOptional || args[0] == PaymentIDRequired || args[0] == PaymentIDOff):
				h.PaymentIdentifier = args[0]
			default:
				return d.Err("x402: payment_identifier takes one of optional, required or off (or nothing: optional)")
			}
			continue
		case "forward_payment_header":
			if d.NextArg() {
				return d.Err("x402: forward_payment_header takes no argument")
			}
			h.ForwardPaymentHeader = true
			continue
		case "refusal_cache":
			if !d.NextArg() || d.CountRemainingArgs() > 0 {
				return d.Err("x402: refusal_cache takes one duration (such as 30s), or off")
			}
			if d.Val() == "off" {
				h.NoRefusalCache = true
				continue
			}
			ttl, err := caddy.ParseDuration(d.Val())
			if err != nil || ttl <= 0 {
				return d.Errf("x402: refusal_cache: %q is not a positive duration such as 30s", d.Val())
			}
			h.RefusalTTL = caddy.Duration(ttl)
			continue
		}
		v, err := oneArg(d)
		if err != nil {
			return err
		}
		switch opt {
		case "pay_to":
			h.PayTo = v
		case "price":
			h.Price = v
			// The syntax only: the network's decimals are checked below
			// (parseHandler) or at provision time. A price with
			// placeholders is checked for every request.
			_, frac, _ := strings.Cut(v, ".")
			if _, err := facilitator.ParsePrice(v, uint8(min(len(frac), 77))); err != nil && !hasPlaceholder(v) {
				return d.Errf("x402: %v; write the price in whole tokens, such as 0.01", err)
			}
		case "amount":
			h.Amount = v
		case "description":
			h.Description = v
		case "mime_type":
			h.MimeType = v
		case "facilitator":
			h.Facilitator = v
		case "facilitator_dialect":
			h.FacilitatorDialect = v
		case "settle":
			h.Settle = v
		case "asset":
			h.Asset = v
		case "decimals":
			dec, err := strconv.ParseUint(v, 10, 8)
			if err != nil || dec > 77 {
				return d.Errf("x402: decimals %q is not an integer from 0 to 77", v)
			}
			u := uint8(dec)
			h.Decimals = &u
		case "eip712_name":
			h.EIP712Name = v
		case "eip712_version":
			h.EIP712Version = v
		case "label":
			h.Label = v
		case "paywall", "paywall_template", "explorer":
			if err := h.unmarshalPageOption(d, opt, v); err != nil {
				return err
			}
		case "access", "access_cookie":
			if err := h.unmarshalAccessOption(d, opt, v); err != nil {
				return err
			}
		case "input_schema", "input_example", "output_schema", "output_example", "body_type", "discovery":
			if err := h.unmarshalDiscoveryOption(d, opt, v); err != nil {
				return err
			}
		default:
			return d.Errf("x402: unrecognized option %q", opt)
		}
	}
	if err := h.Validate(); err != nil {
		return d.Err(err.Error())
	}
	return nil
}

func parseFacilitatorRoutes(h httpcaddyfile.Helper) (caddyhttp.MiddlewareHandler, error) {
	fr := new(FacilitatorRoutes)
	err := fr.UnmarshalCaddyfile(h.Dispenser)
	return fr, err
}

// UnmarshalCaddyfile sets up the x402_facilitator handler. Syntax:
//
//	x402_facilitator [<matcher>] {
//		rate_limit verify|settle|lookup <requests> <window>
//		rate_limit off
//		api_key {env.NAME}
//		key_rate_limit verify|settle|lookup <requests> <window>
//	}
//
// The limits apply per client IP; the defaults are the specification's,
// verify 10 per 1m and settle 5 per 1m. A caller that sends one of the
// api_keys (Authorization: Bearer KEY) is limited per key instead, by
// default verify 600 per 1m and settle 300 per 1m.
func (fr *FacilitatorRoutes) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	d.Next() // the directive name
	if d.NextArg() {
		return d.ArgErr()
	}
	for d.NextBlock(0) {
		opt := d.Val()
		switch opt {
		case "rate_limit", "key_rate_limit":
		case "api_key":
			if !d.NextArg() || d.CountRemainingArgs() > 0 {
				return d.Err("x402_facilitator: api_key takes one placeholder, such as {env.X402_API_KEY}")
			}
			if !keyPlaceholder.MatchString(d.Val()) {
				return d.Err("x402_facilitator: api_key must be a placeholder, {env.NAME} or {file.PATH}, not the key itself: a key written in the config would be served by the admin API (GET /config/)")
			}
			fr.APIKeys = append(fr.APIKeys, d.Val())
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
			l := &RateLimit{Requests: n, Window: caddy.Duration(w)}
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

// Interface guards.
var (
	_ caddyfile.Unmarshaler = (*App)(nil)
	_ caddyfile.Unmarshaler = (*Handler)(nil)
	_ caddyfile.Unmarshaler = (*FacilitatorRoutes)(nil)
)

// parseUnits parses a non-negative whole number of a token's smallest
// unit, zero included, within uint256.
func parseUnits(s string) (*big.Int, error) {
	if s == "0" {
		return new(big.Int), nil
	}
	return facilitator.ParseAmount(s)
}
