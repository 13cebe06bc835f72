package discovery

import (
	"strings"
	"testing"
)

// TestRouteNames: how a route's path pattern is listed (its URL's
// pattern, its bazaar route template, under a stripped prefix) and under
// which methods.
func TestRouteNames(t *testing.T) {
	for _, tc := range []struct{ pattern, listed, template string }{
		{"", "/*", ""},
		{"/weather", "/weather", ""},
		{"/api/*", "/api/*", ""},
		{"/users/*/posts", "/users/*/posts", "/users/:var1/posts"},
		{"/v1/*/files/*/raw", "/v1/*/files/*/raw", "/v1/:var1/files/:var2/raw"},
		{"/users/a*/posts", "/users/a*/posts", ""},
		{"users/*/posts", "users/*/posts", ""},
	} {
		if got := routePattern(tc.pattern); got != tc.listed {
			t.Errorf("routePattern(%q) = %q, want %q", tc.pattern, got, tc.listed)
		}
		if got := routeTemplate(tc.pattern); got != tc.template {
			t.Errorf("routeTemplate(%q) = %q, want %q", tc.pattern, got, tc.template)
		}
	}
	for _, tc := range []struct{ prefix, p, want string }{
		{"", "/a", "/a"},
		{"/api", "", ""},
		{"/api", "/a/*", "/api/a/*"},
		{"/api/", "a", "/api/a"},
	} {
		if got := joinPrefix(tc.prefix, tc.p); got != tc.want {
			t.Errorf("joinPrefix(%q, %q) = %q, want %q", tc.prefix, tc.p, got, tc.want)
		}
	}
	for _, tc := range []struct{ methods, want []string }{
		{nil, []string{""}},
		{[]string{"get", "POST"}, []string{"GET", "POST"}},
		{[]string{"OPTIONS"}, []string{""}},
	} {
		if got := listedMethods(tc.methods); strings.Join(got, ",") != strings.Join(tc.want, ",") || len(got) != len(tc.want) {
			t.Errorf("listedMethods(%q) = %q, want %q", tc.methods, got, tc.want)
		}
	}
}

// TestLoopbackHost: the hosts of this machine's loopback interface, which
// discovery does not publish by default.
func TestLoopbackHost(t *testing.T) {
	for _, tc := range []struct {
		host string
		want bool
	}{
		{"localhost", true}, {"LocalHost", true}, {"127.0.0.1", true}, {"127.8.0.1", true}, {"::1", true}, {"[::1]", true},
		{"example.com", false}, {"10.0.0.1", false}, {"", false},
	} {
		if got := loopbackHost(tc.host); got != tc.want {
			t.Errorf("loopbackHost(%q) = %v, want %v", tc.host, got, tc.want)
		}
	}
}
