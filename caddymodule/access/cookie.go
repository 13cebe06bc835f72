package access

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/caddy-x402/caddy-x402/caddymodule/internal/httpx"
	"github.com/caddy-x402/caddy-x402/facilitator/store"
)

// The access cookie carries a grant to a browser: HttpOnly, Secure when
// the buyer came over TLS (here or to a trusted proxy: httpx.SecureRequest),
// SameSite=Lax, Path the route's path prefix, Max-Age the grant's
// remaining time. Its name is x402_access_<route> and its value
//
//	1.<route>.<payer>.<end, Unix seconds>.<HMAC-SHA256, Base64 URL>
//
// signed with a key derived from the server key, which every instance
// sharing the storage has (its newest generation; an older one verifies
// while the route honours it: keyring.go). A cookie for another route, tampered with, or
// expired is ignored: the request is answered as any other (402).

// CookiePrefix starts the name of every access cookie.
const CookiePrefix = "x402_access_"

// cookieName is the access cookie's name on a route: one per route, so
// that two routes on one path do not overwrite each other's.
func cookieName(route string) string { return CookiePrefix + route[:12] }

// cookieValue is the signed value that carries g, signed with the newest
// server key.
func (a *Gate) cookieValue(g *store.Grant) string {
	payload := "1." + g.Route + "." + strings.ToLower(g.Payer) + "." + strconv.FormatInt(g.End.Unix(), 10)
	return payload + "." + cookieMAC(a.signingKey(), payload)
}

func cookieMAC(k *accessKey, payload string) string {
	m := hmac.New(sha256.New, k.cookie)
	m.Write([]byte(payload))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// setAccessCookie gives the buyer the access cookie of g, unless cookies
// are off or nothing of the grant is left.
func (a *Gate) setAccessCookie(w http.ResponseWriter, r *http.Request, g *store.Grant, now time.Time) {
	if a.cookieOff {
		return
	}
	left := int(g.End.Sub(now) / time.Second)
	if left < 1 {
		return
	}
	http.SetCookie(w, &http.Cookie{
		Name:     cookieName(g.Route),
		Value:    a.cookieValue(g),
		Path:     a.path,
		MaxAge:   left,
		HttpOnly: true,
		Secure:   httpx.SecureRequest(r),
		SameSite: http.SameSiteLaxMode,
	})
}

// cookieGrant is the grant the request's access cookie for route carries,
// if it is signed by this server, for this route, and not ended at now;
// nil otherwise.
func (a *Gate) cookieGrant(r *http.Request, route string, now time.Time) *store.Grant {
	if a.cookieOff {
		return nil
	}
	name := cookieName(route)
	for _, c := range r.Cookies() {
		if c.Name != name {
			continue
		}
		if g := a.parseCookie(c.Value, route, now); g != nil {
			return g
		}
	}
	return nil
}

func (a *Gate) parseCookie(v, route string, now time.Time) *store.Grant {
	i := strings.LastIndexByte(v, '.')
	if i < 0 {
		return nil
	}
	payload, mac := v[:i], v[i+1:]
	parts := strings.Split(payload, ".")
	if len(parts) != 4 || parts[0] != "1" || parts[1] != route || !common.IsHexAddress(parts[2]) {
		return nil
	}
	end, err := strconv.ParseInt(parts[3], 10, 64)
	if err != nil || !time.Unix(end, 0).After(now) {
		return nil
	}
	// Signed by the newest key, or by an older one while the route
	// honours it (until no cookie it signed can still run).
	if !a.verifyWith(now, a.window, func(k *accessKey) bool {
		return hmac.Equal([]byte(mac), []byte(cookieMAC(k, payload)))
	}) {
		return nil
	}
	return &store.Grant{Route: route, Payer: parts[2], End: time.Unix(end, 0).UTC()}
}
