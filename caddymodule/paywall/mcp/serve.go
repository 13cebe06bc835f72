package mcp

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"github.com/dustin/go-humanize"

	"github.com/caddy-x402/caddy-x402/caddymodule/internal/httpx"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// ServeHTTP serves a request of an MCP route: a priced tools/call through
// the paywall's payment pipeline, tools/list with the prices added,
// anything else free.
func (t *Transport) ServeHTTP(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler) error {
	if r.Method != http.MethodPost {
		if t.route.SettleAfter {
			// A resumed stream could replay the result of a priced call
			// whose settle failed (or whose buyer hung up before it):
			// with settle after, the server's stream starts afresh.
			r.Header.Del("Last-Event-ID")
		}
		return t.core.Pass(w, r, next) // GET (the server's SSE stream), DELETE (end of session)
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, t.maxBody+1))
	if err != nil {
		return caddyhttp.Error(http.StatusBadRequest, fmt.Errorf("x402: reading the MCP request: %w", err))
	}
	if int64(len(body)) > t.maxBody {
		return writeRPCError(w, http.StatusRequestEntityTooLarge, nil, rpcInvalidRequest,
			fmt.Sprintf("the request body exceeds %s (mcp_max_body of this server): send a smaller request", humanize.IBytes(uint64(t.maxBody))), nil)
	}
	setBody(r, body)
	trimmed := bytes.TrimLeft(body, " \t\r\n")
	if len(trimmed) > 0 && trimmed[0] == '[' {
		var batch []json.RawMessage
		if err := json.Unmarshal(body, &batch); err != nil {
			return writeRPCError(w, http.StatusBadRequest, nil, rpcParseError, "parse error: the body is not valid JSON: "+x402.Clip(err.Error(), 128), nil)
		}
		for _, m := range batch {
			if msg, err := parseRPC(m); err == nil && t.pricedTool(msg) != nil {
				return writeRPCError(w, http.StatusBadRequest, nil, rpcInvalidRequest,
					"a JSON-RPC batch must not call a priced tool: send each paid tools/call as a request of its own", nil)
			}
		}
		return t.core.Pass(w, r, next)
	}
	msg, err := parseRPC(body)
	if err != nil {
		return writeRPCError(w, http.StatusBadRequest, nil, rpcParseError, "parse error: the body is not a JSON-RPC message: "+x402.Clip(err.Error(), 128), nil)
	}
	if tl := t.pricedTool(msg); tl != nil {
		if _, ok := msg["id"]; !ok {
			// A notification gets no answer to carry the price or the
			// result: a server that ran it would give the tool away.
			return writeRPCError(w, http.StatusBadRequest, nil, rpcInvalidRequest,
				fmt.Sprintf("tools/call of %q is priced, so it must be a request with an id, not a notification", tl.cfg.Name), nil)
		}
		return t.serveCall(w, r, next, msg, tl)
	}
	if method, _ := msg.method(); method == "tools/list" {
		return t.serveList(w, r, next, msg)
	}
	return t.core.Pass(w, r, next)
}

// serveCall serves a tools/call of a priced tool: the payment comes out
// of _meta (or stays in the PAYMENT-SIGNATURE / X-PAYMENT header it came
// in) and the paywall serves the call as any paid request, with an answer
// turned into JSON-RPC.
func (t *Transport) serveCall(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler, msg rpcMessage, tl *tool) error {
	c := &call{tool: tl, id: msg["id"]}
	r2, sp := traceCall(r, tl.cfg.Name, c.id) // trace.go: a copy of r, with the call's span
	defer sp.End()
	r2.Header = r.Header.Clone()
	// The answer is read here: asked for without compression.
	r2.Header.Del("Accept-Encoding")
	params := msg.params()
	var meta map[string]json.RawMessage
	if json.Unmarshal(params["_meta"], &meta) == nil {
		if pay, ok := meta[MetaPayment]; ok {
			delete(meta, MetaPayment)
			if len(meta) == 0 {
				delete(params, "_meta")
			} else {
				params["_meta"], _ = json.Marshal(meta)
			}
			msg["params"], _ = json.Marshal(params)
			body, _ := json.Marshal(msg)
			setBody(r2, body)
			r2.Header.Del(httpx.HeaderPayment)
			r2.Header.Del(x402.HeaderPaymentSignature)
			if !bytes.Equal(bytes.TrimSpace(pay), []byte("null")) {
				var v struct {
					X402Version int `json:"x402Version"`
				}
				_ = json.Unmarshal(pay, &v)
				hdr := x402.HeaderPaymentSignature
				if v.X402Version == 1 {
					hdr = httpx.HeaderPayment
				}
				r2.Header.Set(hdr, base64.StdEncoding.EncodeToString(pay))
			}
		}
	}
	cw := &callWriter{header: http.Header{}, call: c}
	err := t.core.ServePaid(cw, r2, upstream{t: t, next: next, call: c}, tl.offer, toolResourcePrefix+tl.cfg.Name)
	return t.finish(w, cw, err)
}
