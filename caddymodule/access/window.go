package access

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
)

// Window is the access a payment buys on a route (the x402
// directive's access and access_cookie options).
type Window struct {
	// Access, when set, makes a settled payment grant its payer access to
	// this route for this long from the settlement: requests that sign in
	// with the paying wallet (the x402 sign-in-with-x extension, declared
	// in every 402) or carry the access cookie are served without paying.
	// Default: off, every request pays.
	Access caddy.Duration `json:"access,omitempty"`

	// AccessCookieOff stops paid responses from setting the access cookie
	// (browsers then pay, or sign in, on every visit).
	AccessCookieOff bool `json:"access_cookie_off,omitempty"`

	// AccessPath is the route's path prefix: the access cookie's Path,
	// and part of the route's identity for grants (two directives of one
	// site with the same requirements but other paths hold other grants).
	// The Caddyfile sets it from the directive's path matcher (/api/*
	// gives /api/, /article gives /article); default /.
	AccessPath string `json:"access_path,omitempty"`
}

// minAccess is the shortest access window.
const minAccess = time.Second

// Validate checks the access settings.
func (w *Window) Validate() error {
	if w.Access < 0 || (w.Access > 0 && time.Duration(w.Access) < minAccess) {
		return fmt.Errorf("x402: access must be a duration of at least %s, such as 1h, got %s", minAccess, time.Duration(w.Access))
	}
	if w.Access == 0 && (w.AccessCookieOff || w.AccessPath != "") {
		return errors.New("x402: access_cookie and access_path need access <duration>")
	}
	if w.AccessPath != "" && !strings.HasPrefix(w.AccessPath, "/") {
		return fmt.Errorf("x402: access_path %q must start with /", w.AccessPath)
	}
	return nil
}

// UnmarshalOption reads access <duration> and access_cookie on|off.
func (w *Window) UnmarshalOption(d *caddyfile.Dispenser, opt, v string) error {
	switch opt {
	case "access":
		dur, err := caddy.ParseDuration(v)
		if err != nil || dur < minAccess {
			return d.Errf("x402: access %q is not a duration of at least %s, such as 1h or 24h", v, minAccess)
		}
		w.Access = caddy.Duration(dur)
	case "access_cookie":
		switch v {
		case "on":
			w.AccessCookieOff = false
		case "off":
			w.AccessCookieOff = true
		default:
			return d.Errf("x402: access_cookie takes on or off, got %q", v)
		}
	}
	return nil
}
