package httpapi

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"
)

func TestParseSearchQuery(t *testing.T) {
	cases := []struct {
		raw   string
		terms string
		limit int
		err   string
	}{
		{"query=Weather+APIs+for+Oslo", "weather oslo", defaultSearchLimit, ""},
		{"query=get_forecast&type=mcp&limit=500&cursor=20", "get_forecast", DefaultDiscoveryLimit, ""},
		{"", "", 0, "query is required: the words to search for, such as query=weather"},
		{"query=the+api", "", 0, `query has no words to search for (only common words such as "api" or "the")`},
		{"query=" + strings.Repeat("x", 257), "", 0, "query must be at most 256 bytes"},
		{"query=x&type=grpc", "", 0, `type must be http or mcp, got "grpc"`},
		{"query=x&limit=0", "", 0, `limit must be a whole number from 1 (at most 100 are answered), got "0"`},
		{"query=x&cursor=abc", "", 0, `cursor "abc" is not one this facilitator gave: search again without it`},
	}
	for _, c := range cases {
		v, _ := url.ParseQuery(c.raw)
		q, err := parseSearchQuery(v)
		if c.err != "" {
			if err == nil || err.Error() != c.err {
				t.Errorf("%q: error %v, want %q", c.raw, err, c.err)
			}
			continue
		}
		if err != nil || strings.Join(q.terms, " ") != c.terms || q.limit != c.limit {
			t.Errorf("%q: terms %q limit %d err %v, want %q %d", c.raw, q.terms, q.limit, err, c.terms, c.limit)
		}
	}
}

func TestSearchScore(t *testing.T) {
	item := json.RawMessage(`{"resource":"https://h/mcp","type":"mcp","description":"Weather by city",` +
		`"accepts":[{"payTo":"0xoslo"}],"extensions":{"bazaar":{"info":{"input":{"type":"mcp","toolName":"get_forecast"}}}}}`)
	cases := []struct {
		query, ext string
		want       int
	}{
		{"weather", "", 1},
		{"weather forecast", "", 2},
		{"oslo", "", 0}, // accepts are filters, not words
		{"weather", "bazaar", 1},
		{"weather", "payment-identifier", 0},
		{"rain", "", 0},
	}
	for _, c := range cases {
		v := url.Values{"query": {c.query}}
		q, err := parseSearchQuery(v)
		if err != nil {
			t.Fatal(err)
		}
		q.extensions = c.ext
		if got := q.score(item); got != c.want {
			t.Errorf("score(%q, ext %q) = %d, want %d", c.query, c.ext, got, c.want)
		}
	}
}
