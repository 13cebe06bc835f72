package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestServeMCP: the example server answers the MCP calls a paying client
// makes (initialize with a session id, the initialized notification,
// tools/list, tools/call of each tool, a tool's failure as isError).
func TestServeMCP(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(serveMCP))
	defer srv.Close()
	for _, tc := range []struct {
		name, body string
		status     int
		want       string
	}{
		{"initialize", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`, 200, `"protocolVersion":"2025-06-18"`},
		{"notification", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, 202, ""},
		{"tools/list", `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, 200, `"name":"analyze"`},
		{"get_forecast", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"get_forecast","arguments":{"city":"Oslo"}}}`, 200, `Oslo tomorrow`},
		{"analyze", `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"analyze","arguments":{"ticker":"acme"}}}`, 200, `ACME: trend up`},
		{"tool failure", `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"analyze","arguments":{}}}`, 200, `"isError":true`},
		{"unknown tool", `{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"nope"}}`, 200, `"code":-32602`},
		{"unknown method", `{"jsonrpc":"2.0","id":7,"method":"resources/list"}`, 200, `"code":-32601`},
		{"not JSON", `nope`, 200, `"code":-32700`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, err := http.Post(srv.URL, "application/json", strings.NewReader(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, err := io.ReadAll(resp.Body)
			if err != nil || resp.StatusCode != tc.status || !strings.Contains(string(b), tc.want) {
				t.Fatalf("%d %s (%v), want %d with %q", resp.StatusCode, b, err, tc.status, tc.want)
			}
			if tc.name == "initialize" && resp.Header.Get("Mcp-Session-Id") == "" {
				t.Error("initialize gave no Mcp-Session-Id")
			}
		})
	}
}
