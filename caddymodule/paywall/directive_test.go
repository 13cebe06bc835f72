package paywall

import (
	"encoding/json"
	"testing"

	"github.com/caddyserver/caddy/v2"
)

func TestMatcherPathPrefix(t *testing.T) {
	for _, c := range []struct {
		matcher, want string
	}{
		{`{"path":["/api/*"]}`, "/api/"},
		{`{"path":["/article"]}`, "/article"},
		{`{"path":["/api*"]}`, "/"},
		{`{"path":["/a/b*"]}`, "/a/"},
		{`{"path":["*"]}`, ""},
		{`{"path":["/a/*/b"]}`, ""},
		{`{"path":["/a/*","/b/*"]}`, ""},
		{`{"path":["/api/*"],"method":["GET"]}`, "/api/"},
		{`{"method":["GET"]}`, ""},
	} {
		var ms caddy.ModuleMap
		if err := json.Unmarshal([]byte(c.matcher), &ms); err != nil {
			t.Fatal(err)
		}
		if got := matcherPathPrefix(ms); got != c.want {
			t.Errorf("matcherPathPrefix(%s) = %q, want %q", c.matcher, got, c.want)
		}
	}
}
