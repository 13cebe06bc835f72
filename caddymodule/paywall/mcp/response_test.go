package mcp

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestParseAnswer: the response to a call is found in a JSON body or as
// the event of a stream whose id matches, and nowhere else; with the
// settlement added, the answer encodes again in its own framing, the
// other events untouched.
func TestParseAnswer(t *testing.T) {
	progress := "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progress\":1}}\n\n"
	for _, tc := range []struct {
		name, ct, body, id string
		found, failed      bool
		want               string // the encoded answer with _meta set; "" to skip
	}{
		{name: "json result", ct: "application/json", body: `{"jsonrpc":"2.0","id":7,"result":{"content":[]}}`, id: "7", found: true,
			want: `{"id":7,"jsonrpc":"2.0","result":{"_meta":{"k":true},"content":[]}}`},
		{name: "json id as string", ct: "application/json; charset=utf-8", body: `{"jsonrpc":"2.0","id":"a","result":{}}`, id: `"a"`, found: true},
		{name: "json other id", ct: "application/json", body: `{"jsonrpc":"2.0","id":8,"result":{}}`, id: "7"},
		{name: "json not a response", ct: "application/json", body: `{"jsonrpc":"2.0","id":7,"method":"ping"}`, id: "7"},
		{name: "json error", ct: "application/json", body: `{"jsonrpc":"2.0","id":7,"error":{"code":-32603,"message":"down"}}`, id: "7", found: true, failed: true},
		{name: "json isError", ct: "application/json", body: `{"jsonrpc":"2.0","id":7,"result":{"isError":true}}`, id: "7", found: true, failed: true},
		{name: "not json", ct: "application/json", body: `sunny`, id: "7"},
		{name: "sse after a notification", ct: "text/event-stream", body: progress + "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{}}\n\n", id: "7", found: true,
			want: progress + "event: message\ndata: {\"id\":7,\"jsonrpc\":\"2.0\",\"result\":{\"_meta\":{\"k\":true}}}\n\n"},
		{name: "sse crlf", ct: "text/event-stream", body: "data: {\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{}}\r\n\r\n", id: "7", found: true},
		{name: "sse without the response", ct: "text/event-stream", body: progress, id: "7"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := parseAnswer(tc.ct, []byte(tc.body), json.RawMessage(tc.id))
			if (a != nil) != tc.found {
				t.Fatalf("parseAnswer found = %v, want %v", a != nil, tc.found)
			}
			if a == nil {
				return
			}
			if a.failed() != tc.failed {
				t.Errorf("failed() = %v, want %v", a.failed(), tc.failed)
			}
			if tc.want != "" {
				a.setResultMeta("k", json.RawMessage("true"))
				if got := string(a.encode()); got != tc.want {
					t.Errorf("encode =\n%q\nwant\n%q", got, tc.want)
				}
			}
		})
	}
}

// TestSplitEvents: an event stream splits at blank lines (LF or CRLF),
// each event keeping its terminator, a last one without it kept whole.
func TestSplitEvents(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"data: a\n\ndata: b\n\n", []string{"data: a\n\n", "data: b\n\n"}},
		{"data: a\r\n\r\ndata: b", []string{"data: a\r\n\r\n", "data: b"}},
	} {
		var got []string
		for _, ev := range splitEvents([]byte(tc.in)) {
			got = append(got, string(ev))
		}
		if strings.Join(got, "|") != strings.Join(tc.want, "|") || len(got) != len(tc.want) {
			t.Errorf("splitEvents(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
