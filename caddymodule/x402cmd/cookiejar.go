package x402cmd

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/caddy-x402/caddy-x402/caddymodule/access"
	"github.com/caddy-x402/caddy-x402/caddymodule/internal/httpx"
)

// cookieJar is --cookie-jar FILE: the cookies "caddy x402 pay" keeps
// between runs, above all a seller's access cookie, so that a second run
// within the window is served by it without paying or signing in. The
// file is JSON ({"cookies": [...]}), written with mode 0600 (a cookie is
// a bearer credential), and read when it exists. Cookies are matched as a
// browser would (RFC 6265: host or Domain, Path prefix, Secure only over
// https, not expired); the port is not part of a cookie's host.
type cookieJar struct {
	file    string
	Cookies []jarCookie `json:"cookies"`
}

// jarCookie is one stored cookie.
type jarCookie struct {
	Name     string    `json:"name"`
	Value    string    `json:"value"`
	Domain   string    `json:"domain"`             // the host it came from, or its Domain attribute
	HostOnly bool      `json:"hostOnly,omitempty"` // no Domain attribute: sent to Domain only, not its subdomains
	Path     string    `json:"path"`
	Expires  time.Time `json:"expires,omitzero"` // zero: a session cookie, kept until replaced
	Secure   bool      `json:"secure,omitempty"`
	HTTPOnly bool      `json:"httpOnly,omitempty"`
}

// maxJarBytes bounds the jar file read: it is the buyer's own file, but a
// wrong path (a large file) should be an error, not a long read.
const maxJarBytes = 1 << 20

// loadCookieJar reads the jar at file; a file that does not exist is an
// empty jar, written on the first cookie.
func loadCookieJar(file string) (*cookieJar, error) {
	j := &cookieJar{file: file}
	f, err := os.Open(file)
	if errors.Is(err, fs.ErrNotExist) {
		return j, nil
	}
	if err != nil {
		return nil, fmt.Errorf("--cookie-jar: %w", err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxJarBytes+1))
	if err != nil {
		return nil, fmt.Errorf("--cookie-jar: %w", err)
	}
	if len(b) > maxJarBytes {
		return nil, fmt.Errorf("--cookie-jar %s: larger than %d bytes: not a cookie jar of this command", file, maxJarBytes)
	}
	if strings.TrimSpace(string(b)) == "" {
		return j, nil
	}
	if err := json.Unmarshal(b, j); err != nil {
		return nil, fmt.Errorf("--cookie-jar %s: not a cookie jar of this command (JSON {\"cookies\": [...]}): %w", file, err)
	}
	return j, nil
}

// matches reports whether c goes with a request to u at now.
func (c *jarCookie) matches(u *url.URL, now time.Time) bool {
	host := strings.ToLower(u.Hostname())
	switch {
	case !c.Expires.IsZero() && !now.Before(c.Expires):
		return false
	case c.Secure && u.Scheme != "https":
		return false
	case c.HostOnly && host != c.Domain:
		return false
	case !c.HostOnly && host != c.Domain && !strings.HasSuffix(host, "."+c.Domain):
		return false
	}
	return pathMatch(requestPath(u), c.Path)
}

// requestPath is the path cookies are matched against: u's, or "/".
func requestPath(u *url.URL) string {
	if u.Path == "" || u.Path[0] != '/' {
		return "/"
	}
	return u.Path
}

// pathMatch is RFC 6265's path-match of a request path and a cookie path.
func pathMatch(reqPath, cookiePath string) bool {
	if reqPath == cookiePath {
		return true
	}
	return strings.HasPrefix(reqPath, cookiePath) &&
		(strings.HasSuffix(cookiePath, "/") || reqPath[len(cookiePath)] == '/')
}

// defaultPath is RFC 6265's default cookie path: the request path up to
// its last slash.
func defaultPath(u *url.URL) string {
	p := requestPath(u)
	if i := strings.LastIndex(p, "/"); i > 0 {
		return p[:i]
	}
	return "/"
}

// addTo adds the jar's cookies for u to req.
func (j *cookieJar) addTo(req *http.Request, now time.Time) {
	for i := range j.Cookies {
		if c := &j.Cookies[i]; c.matches(req.URL, now) {
			req.AddCookie(&http.Cookie{Name: c.Name, Value: c.Value})
		}
	}
}

// sentAccess is the access cookie the jar sends with a request to u, if any.
func (j *cookieJar) sentAccess(u *url.URL, now time.Time) *jarCookie {
	for i := range j.Cookies {
		if c := &j.Cookies[i]; strings.HasPrefix(c.Name, access.CookiePrefix) && c.matches(u, now) {
			return c
		}
	}
	return nil
}

// keep stores the cookies resp sets for u (replacing those of the same
// name, domain and path; one already expired removes it) and drops the
// expired ones. It reports whether the jar changed.
func (j *cookieJar) keep(u *url.URL, resp *http.Response, now time.Time) bool {
	changed := false
	for _, sc := range resp.Cookies() {
		c := jarCookie{Name: sc.Name, Value: sc.Value, Path: sc.Path, Secure: sc.Secure, HTTPOnly: sc.HttpOnly}
		host := strings.ToLower(u.Hostname())
		if d := strings.ToLower(strings.TrimPrefix(sc.Domain, ".")); d != "" {
			if host != d && !strings.HasSuffix(host, "."+d) {
				continue // a cookie for another site: a browser refuses it too
			}
			c.Domain = d
		} else {
			c.Domain, c.HostOnly = host, true
		}
		if c.Path == "" || c.Path[0] != '/' {
			c.Path = defaultPath(u)
		}
		switch {
		case sc.MaxAge < 0:
			c.Expires = now.Add(-time.Second)
		case sc.MaxAge > 0:
			c.Expires = now.Add(time.Duration(sc.MaxAge) * time.Second).UTC().Truncate(time.Second)
		case !sc.Expires.IsZero():
			c.Expires = sc.Expires.UTC()
		}
		j.Cookies = slices.DeleteFunc(j.Cookies, func(o jarCookie) bool {
			return o.Name == c.Name && o.Domain == c.Domain && o.Path == c.Path
		})
		j.Cookies = append(j.Cookies, c)
		changed = true
	}
	n := len(j.Cookies)
	j.Cookies = slices.DeleteFunc(j.Cookies, func(o jarCookie) bool { return !o.Expires.IsZero() && !now.Before(o.Expires) })
	return changed || len(j.Cookies) != n
}

// save writes the jar, mode 0600, through a file beside it renamed over
// it, so that a crash never leaves half a jar.
func (j *cookieJar) save() error {
	b, err := json.MarshalIndent(j, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(j.file), "."+filepath.Base(j.file)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return err
	}
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), j.file)
}

// accessCookieSet is the access cookie a paid answer sets, with the end of
// its grant (X-Payment-Access-Until, else its Max-Age), if it sets one.
func accessCookieSet(resp *http.Response, now time.Time) (string, time.Time, bool) {
	for _, sc := range resp.Cookies() {
		if !strings.HasPrefix(sc.Name, access.CookiePrefix) || sc.MaxAge < 0 {
			continue
		}
		if t, err := time.Parse(time.RFC3339, resp.Header.Get(httpx.HeaderAccessUntil)); err == nil {
			return sc.Name, t.UTC(), true
		}
		return sc.Name, now.Add(time.Duration(sc.MaxAge) * time.Second).UTC().Truncate(time.Second), true
	}
	return "", time.Time{}, false
}

// reportAccessCookie tells the buyer about the access cookie of a paid
// answer: where it is kept, or how to keep it.
func reportAccessCookie(resp *http.Response, jar *cookieJar, stderr io.Writer) {
	name, until, ok := accessCookieSet(resp, time.Now())
	if !ok {
		return
	}
	keep := "keep it with --cookie-jar FILE"
	if jar != nil {
		keep = "kept in " + jar.file
	}
	fmt.Fprintf(stderr, "x402: access cookie %s until %s (%s)\n", name, until.Format(time.RFC3339), keep)
}
