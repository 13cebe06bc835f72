// Command mcpserver is a small MCP server for trying x402 over MCP offline:
// the streamable HTTP transport (JSON-RPC 2.0 over POST, answered as JSON)
// at /mcp, with two tools, get_forecast and analyze, that make up their
// answers. It knows nothing of payments: examples/mcp.Caddyfile puts the
// x402 paywall in front of it and prices both tools (docs/mcp.md walks
// through it).
//
//	go run ./examples/mcpserver                     # listens on 127.0.0.1:3001
//	go run ./examples/mcpserver -listen 127.0.0.1:4000
//
// Standard library only; one session id per initialize, not checked after
// (enough for a demonstration, not a full MCP server: no resources, no
// prompts, no server-sent events).
package main

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"net/http"
	"strings"
	"time"
)

// protocolVersion is the MCP version this server speaks.
const protocolVersion = "2025-06-18"

// request is a JSON-RPC request or notification (no id).
type request struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params,omitempty"`
}

// rpcError is a JSON-RPC error object.
type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// tool is one tool of tools/list, with what it answers.
type tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`
	run         func(args map[string]any) (string, error)
}

var tools = []tool{
	{
		Name:        "get_forecast",
		Description: "Tomorrow's weather for a city (made up)",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`),
		run: func(args map[string]any) (string, error) {
			city, _ := args["city"].(string)
			if city == "" {
				return "", fmt.Errorf("city is required")
			}
			return fmt.Sprintf("%s tomorrow: 18°C, light wind, no rain.", city), nil
		},
	},
	{
		Name:        "analyze",
		Description: "A deep analysis of a stock ticker (made up)",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"ticker":{"type":"string"}},"required":["ticker"]}`),
		run: func(args map[string]any) (string, error) {
			t, _ := args["ticker"].(string)
			if t == "" {
				return "", fmt.Errorf("ticker is required")
			}
			return fmt.Sprintf("%s: trend up 3 weeks running, volume steady; not investment advice.", strings.ToUpper(t)), nil
		},
	},
}

func main() {
	listen := flag.String("listen", "127.0.0.1:3001", "address to listen on")
	flag.Parse()
	http.HandleFunc("/mcp", serveMCP)
	log.Printf("MCP server (streamable HTTP) at http://%s/mcp, tools: get_forecast, analyze", *listen)
	srv := &http.Server{Addr: *listen, ReadHeaderTimeout: 10 * time.Second}
	log.Fatal(srv.ListenAndServe())
}

// serveMCP answers one JSON-RPC message POSTed to /mcp.
func serveMCP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		// No server-to-client stream: the transport allows a 405 for GET.
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "POST JSON-RPC messages here", http.StatusMethodNotAllowed)
		return
	}
	var req request
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20)).Decode(&req); err != nil {
		answer(w, nil, nil, &rpcError{Code: -32700, Message: "parse error: " + err.Error()})
		return
	}
	if req.ID == nil {
		w.WriteHeader(http.StatusAccepted) // a notification (notifications/initialized)
		return
	}
	switch req.Method {
	case "initialize":
		var id [16]byte
		_, _ = rand.Read(id[:])
		w.Header().Set("Mcp-Session-Id", hex.EncodeToString(id[:]))
		answer(w, req.ID, map[string]any{"protocolVersion": protocolVersion, "capabilities": map[string]any{"tools": map[string]any{}},
			"serverInfo": map[string]any{"name": "caddy-x402-example", "version": "1.0.0"}}, nil)
	case "ping":
		answer(w, req.ID, map[string]any{}, nil)
	case "tools/list":
		answer(w, req.ID, map[string]any{"tools": tools}, nil)
	case "tools/call":
		var p struct {
			Name      string         `json:"name"`
			Arguments map[string]any `json:"arguments"`
		}
		if err := json.Unmarshal(req.Params, &p); err != nil {
			answer(w, req.ID, nil, &rpcError{Code: -32602, Message: "invalid params: " + err.Error()})
			return
		}
		for _, t := range tools {
			if t.Name != p.Name {
				continue
			}
			text, err := t.run(p.Arguments)
			if err != nil {
				// A tool's own failure is a result with isError, which a
				// paywall that settles after does not charge.
				answer(w, req.ID, map[string]any{"isError": true, "content": []any{map[string]any{"type": "text", "text": err.Error()}}}, nil)
				return
			}
			answer(w, req.ID, map[string]any{"content": []any{map[string]any{"type": "text", "text": text}}}, nil)
			return
		}
		answer(w, req.ID, nil, &rpcError{Code: -32602, Message: "unknown tool " + p.Name})
	default:
		answer(w, req.ID, nil, &rpcError{Code: -32601, Message: "method not found: " + req.Method})
	}
}

// answer writes a JSON-RPC response: result, or err.
func answer(w http.ResponseWriter, id json.RawMessage, result any, err *rpcError) {
	msg := map[string]any{"jsonrpc": "2.0", "id": id}
	if err != nil {
		msg["error"] = err
	} else {
		msg["result"] = result
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(msg)
}
