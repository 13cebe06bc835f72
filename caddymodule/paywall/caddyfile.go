package paywall

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/caddy-x402/caddy-x402/caddymodule/app"
	"github.com/caddy-x402/caddy-x402/caddymodule/internal/httpx"
	"github.com/caddy-x402/caddy-x402/facilitator/offerreceipt"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

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
	var app app.App
	if opt, ok := h.Option("x402").(httpcaddyfile.App); ok {
		if err := json.Unmarshal(opt.Value, &app); err != nil {
			return nil, err
		}
	}
	for _, network := range m.networkNames() {
		if names := app.ConfiguredNames(); !httpx.ContainsFold(names, network) && !httpx.ContainsFold(app.ConfiguredIDs(), network) {
			return nil, h.Errf("x402: network %q is not configured in the x402 global option (configured: %s); add network %s { ... } to it, or set facilitator to a remote one",
				network, strings.Join(names, ", "), network)
		}
		if m.Price != "" && !httpx.HasPlaceholder(m.Price) {
			if dec, ok := app.ConfiguredDecimals(network); ok {
				if _, err := x402.ParsePrice(m.Price, dec); err != nil {
					return nil, h.Errf("x402: network %s: %v", network, err)
				}
			}
		}
	}
	return m, nil
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
//		scheme exact|upto|batch-settlement
//		claim_every <duration>
//		refund_idle <duration>|off
//		refund_window <duration>
//		refund_min <price>
//		meter json <dotted path> <unit price>
//		meter_max_bytes <size>
//		gas_sponsoring eip2612|off
//		asset_transfer eip3009|permit2
//		asset <address>
//		decimals <n>
//		eip712_name <name>
//		eip712_version <version>
//		attempt_limit <attempts> <window> | off
//		refusal_cache <duration> | off
//		forward_payment_header
//		allow_encoded_percent
//		label <name>
//		payment_identifier [optional|required|off]
//		offer_receipt eip712|jws
//		receipt_transaction on|off
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
//		mcp_tool <name> <price> [{ description <text>; input_schema <JSON or file> }]
//		mcp_max_body <size>
//		mcp_max_answer <size>
//		mcp_call_timeout <duration>
//	}
//
// pay_to and exactly one of price or amount (or mcp_tool lines) are required; price and
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
			dur, err := httpx.DurationArg(d)
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
				h.AttemptLimit = &httpx.RateLimit{Requests: n, Window: caddy.Duration(w)}
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
		case "allow_encoded_percent":
			if d.NextArg() {
				return d.Err("x402: allow_encoded_percent takes no argument")
			}
			h.AllowEncodedPercent = true
			continue
		case "mcp_tool", "mcp_max_body", "mcp_max_answer", "mcp_call_timeout":
			if err := h.Config.UnmarshalOption(d, opt); err != nil {
				return err
			}
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
		if handled, err := h.Metering.unmarshalOption(d, opt); handled {
			if err != nil {
				return err
			}
			continue
		}
		if !slices.Contains(options, opt) {
			return d.Err(unknownOption(opt).Error())
		}
		v, err := httpx.OneArg(d)
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
			if _, err := x402.ParsePrice(v, uint8(min(len(frac), 77))); err != nil && !httpx.HasPlaceholder(v) {
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
		case "offer_receipt":
			if _, ok := offerreceipt.ParseFormat(v); !ok {
				return d.Errf("x402: offer_receipt takes eip712 or jws, got %q", v)
			}
			h.OfferReceipt = v
		case "receipt_transaction":
			switch v {
			case "on":
				h.ReceiptNoTransaction = false
			case "off":
				h.ReceiptNoTransaction = true
			default:
				return d.Errf("x402: receipt_transaction takes on or off, got %q", v)
			}
		case "paywall", "paywall_template", "explorer":
			if err := h.unmarshalPageOption(d, opt, v); err != nil {
				return err
			}
		case "access", "access_cookie":
			if err := h.Window.UnmarshalOption(d, opt, v); err != nil {
				return err
			}
		case "input_schema", "input_example", "output_schema", "output_example", "body_type", "discovery":
			if err := h.Declaration.UnmarshalOption(d, opt, v); err != nil {
				return err
			}
		default:
			return d.Err(unknownOption(opt).Error())
		}
	}
	if err := h.Validate(); err != nil {
		return d.Err(err.Error())
	}
	return nil
}

// Interface guards.
var (
	_ caddyfile.Unmarshaler = (*Handler)(nil)
)
