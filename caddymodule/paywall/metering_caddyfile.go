package paywall

import (
	"errors"
	"fmt"
	"strings"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"

	"github.com/caddy-x402/caddy-x402/caddymodule/internal/httpx"
)

// The Caddyfile options of a route's scheme and its settings (Metering).
// The channel options' parsers are the channel files' (refund_idle:
// channel_refund.go; refund_window, refund_min: channel_refund_limit.go).

// unmarshalOption reads one of the Caddyfile options of the scheme and
// its settings: scheme, meter, asset_transfer, gas_sponsoring,
// claim_every, refund_idle, refund_window, refund_min and
// meter_max_bytes. It reports whether opt is one of them.
func (m *Metering) unmarshalOption(d *caddyfile.Dispenser, opt string) (bool, error) {
	switch opt {
	case "scheme":
		v, err := httpx.OneArg(d)
		if err != nil {
			return true, err
		}
		m.Scheme = v
	case "meter":
		args := d.RemainingArgs()
		if len(args) != 3 || args[0] != "json" {
			return true, d.Errf("x402: meter takes json <dotted path> <unit price>, such as meter json usage.total_tokens 0.000002")
		}
		m.Meter = &Meter{Kind: args[0], Path: args[1], UnitPrice: args[2]}
	case "asset_transfer":
		v, err := httpx.OneArg(d)
		if err != nil {
			return true, err
		}
		m.AssetTransfer = v
	case "gas_sponsoring":
		v, err := httpx.OneArg(d)
		if err != nil {
			return true, err
		}
		m.GasSponsoring = v
	case "claim_every":
		v, err := httpx.OneArg(d)
		if err != nil {
			return true, err
		}
		dur, err := caddy.ParseDuration(v)
		if err != nil || dur <= 0 {
			return true, d.Errf("x402: claim_every %q: want a positive duration, such as 1m", v)
		}
		m.ClaimEvery = caddy.Duration(dur)
	case "refund_idle":
		return true, m.parseRefundIdle(d)
	case "refund_window", "refund_min":
		return true, m.parseRefundLimit(d, opt) // channel_refund_limit.go
	case "meter_max_bytes":
		v, err := httpx.OneArg(d)
		if err != nil {
			return true, err
		}
		n, err := parseByteSize(v)
		if err != nil {
			return true, d.Errf("x402: meter_max_bytes %q: %v", v, err)
		}
		m.MeterMaxBytes = n
	default:
		return false, nil
	}
	return true, nil
}

// parseByteSize reads a size: bytes, or with KiB, MiB (or KB, MB).
func parseByteSize(s string) (int, error) {
	mult := 1
	for _, u := range []struct {
		suffix string
		mult   int
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"KB", 1000}, {"MB", 1000 * 1000}, {"B", 1}} {
		if strings.HasSuffix(s, u.suffix) {
			s, mult = strings.TrimSpace(strings.TrimSuffix(s, u.suffix)), u.mult
			break
		}
	}
	var n int
	if _, err := fmt.Sscan(s, &n); err != nil || n <= 0 || n > (1<<30)/mult {
		return 0, errors.New("want a positive size up to 1 GiB, such as 1MiB or 65536")
	}
	return n * mult, nil
}
