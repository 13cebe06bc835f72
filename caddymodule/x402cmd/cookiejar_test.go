package x402cmd

import (
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestCookieJarMatches: the jar sends a cookie where a browser would
// (RFC 6265 host, path and Secure rules, not after it expires).
func TestCookieJarMatches(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	base := jarCookie{Name: "x402_access_0123456789ab", Value: "v", Domain: "shop.example", HostOnly: true, Path: "/articles/"}
	for _, tc := range []struct {
		name string
		edit func(*jarCookie)
		url  string
		want bool
	}{
		{"same host and path", nil, "http://shop.example:8080/articles/a", true},
		{"the path itself", nil, "http://shop.example/articles/", true},
		{"another path", nil, "http://shop.example/other/a", false},
		{"a path that only starts alike", func(c *jarCookie) { c.Path = "/articles" }, "http://shop.example/articlesX", false},
		{"a sub-path of a path without slash", func(c *jarCookie) { c.Path = "/articles" }, "http://shop.example/articles/a", true},
		{"another host", nil, "http://evil.example/articles/a", false},
		{"a subdomain of a host-only cookie", nil, "http://a.shop.example/articles/a", false},
		{"a subdomain of a Domain cookie", func(c *jarCookie) { c.HostOnly = false }, "http://a.shop.example/articles/a", true},
		{"a host that ends alike", func(c *jarCookie) { c.HostOnly = false }, "http://badshop.example/articles/a", false},
		{"Secure over http", func(c *jarCookie) { c.Secure = true }, "http://shop.example/articles/a", false},
		{"Secure over https", func(c *jarCookie) { c.Secure = true }, "https://shop.example/articles/a", true},
		{"expired", func(c *jarCookie) { c.Expires = now }, "http://shop.example/articles/a", false},
		{"not yet expired", func(c *jarCookie) { c.Expires = now.Add(time.Second) }, "http://shop.example/articles/a", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := base
			if tc.edit != nil {
				tc.edit(&c)
			}
			u, _ := url.Parse(tc.url)
			if got := c.matches(u, now); got != tc.want {
				t.Errorf("%+v for %s: %v, want %v", c, tc.url, got, tc.want)
			}
		})
	}
}

// TestCookieJarKeep: Set-Cookie is stored host-only with the default
// path when it names none, replaces a cookie of the same name, domain and
// path, is removed by Max-Age<0, is refused for another site, and the jar
// is saved 0600 and read back.
func TestCookieJarKeep(t *testing.T) {
	now := time.Now()
	u, _ := url.Parse("http://Shop.Example:8080/articles/a")
	resp := func(cookies ...string) *http.Response {
		return &http.Response{Header: http.Header{"Set-Cookie": cookies}}
	}
	j, err := loadCookieJar(filepath.Join(t.TempDir(), "jar.json"))
	if err != nil || len(j.Cookies) != 0 {
		t.Fatalf("a missing jar: %v %v", j, err)
	}
	if !j.keep(u, resp("a=1; Max-Age=60", "b=2; Path=/; Domain=other.example"), now) {
		t.Fatal("keep reported no change")
	}
	if len(j.Cookies) != 1 || j.Cookies[0].Domain != "shop.example" || !j.Cookies[0].HostOnly || j.Cookies[0].Path != "/articles" {
		t.Fatalf("kept %+v", j.Cookies)
	}
	j.keep(u, resp("a=3; Max-Age=60"), now)
	if len(j.Cookies) != 1 || j.Cookies[0].Value != "3" {
		t.Fatalf("replaced: %+v", j.Cookies)
	}
	if err := j.save(); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(j.file); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("saved: %v %v", fi, err)
	}
	back, err := loadCookieJar(j.file)
	if err != nil || len(back.Cookies) != 1 || back.Cookies[0] != j.Cookies[0] {
		t.Fatalf("read back %+v, %v; want %+v", back, err, j.Cookies)
	}
	j.keep(u, resp("a=; Max-Age=-1"), now)
	if len(j.Cookies) != 0 {
		t.Fatalf("after Max-Age=-1: %+v", j.Cookies)
	}
	if err := os.WriteFile(j.file, []byte(strings.Repeat(" ", maxJarBytes+1)), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := loadCookieJar(j.file); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Fatalf("a large file: %v", err)
	}
}
