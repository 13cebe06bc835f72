package app

import (
	"strconv"
	"strings"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"

	"github.com/caddy-x402/caddy-x402/caddymodule/internal/httpx"
	"github.com/caddy-x402/caddy-x402/facilitator/devnet"
	x402network "github.com/caddy-x402/caddy-x402/facilitator/network"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

func init() {
	httpcaddyfile.RegisterGlobalOption("x402", parseGlobalOption)
}

// Interface guard.
var _ caddyfile.Unmarshaler = (*App)(nil)

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
//		share_ports
//		receipt_key {env.NAME} | {file./path/to/key}
//		receipt_did did:web:<host>
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
			dur, err := httpx.DurationArg(d)
			if err != nil {
				return err
			}
			a.SettleTimeout = dur
		case "journal":
			v, err := httpx.OneArg(d)
			if err != nil {
				return err
			}
			a.Journal = v
		case "journal_retention":
			v, err := httpx.OneArg(d)
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
			v, err := httpx.OneArg(d)
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
			v, err := httpx.OneArg(d)
			if err != nil {
				return err
			}
			a.Storage = &StorageConfig{Postgres: v}
			for nesting := d.Nesting(); d.NextBlock(nesting); {
				switch d.Val() {
				case "lease":
					dur, err := httpx.DurationArg(d)
					if err != nil {
						return err
					}
					a.Storage.Lease = dur
				default:
					return d.Errf("unrecognized storage postgres option %q; expected lease", d.Val())
				}
			}
		case "share_ports":
			if d.NextArg() {
				return d.Err("share_ports takes no argument")
			}
			a.SharePorts = true
		case "receipt_key":
			v, err := httpx.OneArg(d)
			if err != nil {
				return err
			}
			if err := checkReceiptKey(v); err != nil {
				return d.Err(err.Error())
			}
			a.ReceiptKeys = append(a.ReceiptKeys, v)
		case "receipt_did":
			v, err := httpx.OneArg(d)
			if err != nil {
				return err
			}
			a.ReceiptDID = v
		default:
			return d.Errf("unrecognized x402 option %q; expected network, devnet, settle_timeout, journal, journal_retention, redemptions, storage, share_ports, receipt_key or receipt_did", d.Val())
		}
	}
	if err := a.validate(); err != nil {
		return d.Errf("x402: %v", err)
	}
	return nil
}

func parseNetwork(d *caddyfile.Dispenser) (*NetworkConfig, error) {
	if !d.NextArg() {
		return nil, d.Errf("network needs a name, such as network %s", x402network.CronosTestnet)
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
			v, err := httpx.OneArg(d)
			if err != nil {
				return nil, err
			}
			id, err := strconv.ParseInt(v, 10, 64)
			if err != nil || id <= 0 {
				return nil, d.Errf("network %s: chain_id %q is not a positive integer", n.Name, v)
			}
			n.ChainID = id
		case "token":
			v, err := httpx.OneArg(d)
			if err != nil {
				return nil, err
			}
			if !x402.IsAddress(v) {
				return nil, d.Errf("network %s: token %q is not an address: want 0x followed by 40 hex digits", n.Name, v)
			}
			n.Token = v
		case "decimals":
			v, err := httpx.OneArg(d)
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
			v, err := httpx.OneArg(d)
			if err != nil {
				return nil, err
			}
			n.EIP712Name = v
		case "eip712_version":
			v, err := httpx.OneArg(d)
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
			v, err := httpx.OneArg(d)
			if err != nil {
				return nil, err
			}
			if err := CheckExplorer(v); err != nil {
				return nil, d.Errf("network %s: %v", n.Name, err)
			}
			n.Explorer = v
		case "smart_wallet_factories":
			addrs := d.RemainingArgs()
			if len(addrs) == 0 {
				return nil, d.ArgErr()
			}
			for _, a := range addrs {
				if !x402.IsAddress(a) {
					return nil, d.Errf("network %s: smart_wallet_factories: %q is not an address: want 0x followed by 40 hex digits", n.Name, a)
				}
			}
			n.SmartWalletFactories = append(n.SmartWalletFactories, addrs...)
		case "smart_wallet_min_amount":
			v, err := httpx.OneArg(d)
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
			v, err := httpx.OneArg(d)
			if err != nil {
				return nil, err
			}
			dv.Listen = v
		case "block_time":
			dur, err := httpx.DurationArg(d)
			if err != nil {
				return nil, err
			}
			dv.BlockTime = dur
		case "buyers":
			v, err := httpx.OneArg(d)
			if err != nil {
				return nil, err
			}
			b, err := strconv.Atoi(v)
			if err != nil || b < 1 || b > devnet.MaxBuyers {
				return nil, d.Errf("devnet: buyers %q is not an integer from 1 to %d", v, devnet.MaxBuyers)
			}
			dv.Buyers = b
		case "info_file":
			v, err := httpx.OneArg(d)
			if err != nil {
				return nil, err
			}
			dv.InfoFile = v
		case "chain_id":
			v, err := httpx.OneArg(d)
			if err != nil {
				return nil, err
			}
			id, err := strconv.ParseInt(v, 10, 64)
			if err != nil || id <= 0 {
				return nil, d.Errf("devnet: chain_id %q is not a positive integer", v)
			}
			dv.ChainID = id
		case "network":
			v, err := httpx.OneArg(d)
			if err != nil {
				return nil, err
			}
			dv.Network = v
		case "token":
			v, err := httpx.OneArg(d)
			if err != nil {
				return nil, err
			}
			if !x402.IsAddress(v) {
				return nil, d.Errf("devnet: token %q is not an address: want 0x followed by 40 hex digits", v)
			}
			dv.Token = v
		default:
			return nil, d.Errf("devnet: unrecognized option %q; expected listen, block_time, buyers, info_file, chain_id, network or token", d.Val())
		}
	}
	return dv, nil
}

// ConfiguredNames lists the names and aliases the app will serve, from its
// configuration alone.
func (a *App) ConfiguredNames() []string {
	confs := a.Networks
	if len(confs) == 0 {
		confs = []*NetworkConfig{{Name: a.defaultNetwork()}}
	}
	var names []string
	add := func(n ...string) {
		for _, v := range n {
			if !httpx.ContainsFold(names, v) {
				names = append(names, v)
			}
		}
	}
	for _, c := range confs {
		add(c.Name)
		add(c.Aliases...)
		if b, ok := x402network.Builtin(c.Name); ok {
			add(b.Name)
			add(b.Aliases...)
		}
	}
	if a.Devnet != nil {
		add(a.Devnet.network())
	}
	return names
}

// ConfiguredIDs lists the CAIP-2 ids (eip155:<chainId>) of the configured
// networks whose chain id the configuration tells.
func (a *App) ConfiguredIDs() []string {
	confs := a.Networks
	if len(confs) == 0 {
		confs = []*NetworkConfig{{Name: a.defaultNetwork()}}
	}
	var ids []string
	for _, c := range confs {
		if c.ChainID > 0 {
			ids = append(ids, x402.CAIP2(c.ChainID))
		}
		if b, ok := x402network.Builtin(c.Name); ok {
			ids = append(ids, x402.CAIP2(b.ChainID))
		}
	}
	if a.Devnet != nil {
		ids = append(ids, x402.CAIP2(a.Devnet.chainID()))
	}
	return ids
}

// ConfiguredDecimals returns a network's token decimals when the configuration
// alone tells them.
func (a *App) ConfiguredDecimals(network string) (uint8, bool) {
	for _, c := range a.Networks {
		names := append([]string{c.Name}, c.Aliases...)
		b, builtin := x402network.Builtin(c.Name)
		if builtin {
			names = append(names, b.Name)
			names = append(names, b.Aliases...)
		}
		if !httpx.ContainsFold(names, network) {
			continue
		}
		if c.Decimals != nil {
			return *c.Decimals, true
		}
		return 6, true
	}
	if b, ok := x402network.Builtin(network); ok {
		return b.Decimals, true
	}
	return 0, false
}
