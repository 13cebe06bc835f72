package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
)

// setBody gives r a body read already.
func setBody(r *http.Request, body []byte) {
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	r.TransferEncoding = nil
	r.Header.Set("Content-Length", strconv.Itoa(len(body)))
}

func parseRPC(b []byte) (rpcMessage, error) {
	var m rpcMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	if m == nil {
		return nil, errors.New("null")
	}
	return m, nil
}

// method is the message's method, false when it has none.
func (m rpcMessage) method() (string, bool) {
	var s string
	if json.Unmarshal(m["method"], &s) != nil {
		return "", false
	}
	return s, true
}

// params is the message's params object (nil when absent or not one).
func (m rpcMessage) params() map[string]json.RawMessage {
	var p map[string]json.RawMessage
	_ = json.Unmarshal(m["params"], &p)
	return p
}

// writeRPCError answers a JSON-RPC error.
func writeRPCError(w http.ResponseWriter, status int, id json.RawMessage, code int, message string, data any) error {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	e := map[string]any{"code": code, "message": message}
	if data != nil {
		e["data"] = data
	}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": e})
	return writeJSON(w, status, b)
}

// Headers of a JSON answer.
var (
	jsonContentType = []string{"application/json"}
	noStore         = []string{"no-store"}
)

// writeJSON answers b with status, as JSON not to be stored.
func writeJSON(w http.ResponseWriter, status int, b []byte) error {
	hdr := w.Header()
	hdr["Content-Type"] = jsonContentType
	hdr["Cache-Control"] = noStore
	hdr.Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(status)
	_, err := w.Write(b)
	return err
}
