package httpx

import (
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
