package httpx

import (
	"encoding/json"
	"os"
	"strings"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
)

// OneArg is the one argument of the current directive or option.
func OneArg(d *caddyfile.Dispenser) (string, error) {
	if !d.NextArg() {
		return "", d.ArgErr()
	}
	v := d.Val()
	if d.NextArg() {
		return "", d.ArgErr()
	}
	return v, nil
}

// DurationArg is the positive duration that is the one argument of the
// current directive or option.
func DurationArg(d *caddyfile.Dispenser) (caddy.Duration, error) {
	name := d.Val()
	v, err := OneArg(d)
	if err != nil {
		return 0, err
	}
	dur, err := caddy.ParseDuration(v)
	if err != nil || dur <= 0 {
		return 0, d.Errf("%s %q is not a positive duration such as 30s", name, v)
	}
	return caddy.Duration(dur), nil
}

// ContainsFold reports whether list holds s, ignoring case.
func ContainsFold(list []string, s string) bool {
	for _, v := range list {
		if strings.EqualFold(v, s) {
			return true
		}
	}
	return false
}

// JSONArg reads the Caddyfile argument v of option opt that is inline
// JSON (it begins with { or [, or is a JSON scalar) or the name of a file
// holding JSON, stored compact as the adapted JSON shows it.
func JSONArg(d *caddyfile.Dispenser, opt, v string) (json.RawMessage, error) {
	s := strings.TrimSpace(v)
	if !strings.HasPrefix(s, "{") && !strings.HasPrefix(s, "[") && !json.Valid([]byte(s)) {
		b, err := os.ReadFile(s)
		if err != nil {
			return nil, d.Errf("x402: %s: %q is neither inline JSON nor a readable file: %v", opt, s, err)
		}
		s = string(b)
	}
	var buf json.RawMessage
	if err := json.Unmarshal([]byte(s), &buf); err != nil {
		return nil, d.Errf("x402: %s is not valid JSON: %v", opt, err)
	}
	out, _ := json.Marshal(buf)
	return out, nil
}

// HasPlaceholder reports whether a Caddyfile value (a price, an amount)
// holds a Caddy placeholder, resolved per request: a '{' with a '}' after it.
func HasPlaceholder(s string) bool {
	i := strings.IndexByte(s, '{')
	return i >= 0 && strings.IndexByte(s[i:], '}') > 0
}
