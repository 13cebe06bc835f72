package mcp

// The MCP server's answer, read whole (bufferWriter): the JSON-RPC
// response to a call, alone (JSON) or as one event of a stream (SSE),
// found, changed (the settlement in _meta) and encoded again.

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
)

// bufferWriter keeps an answer whole, up to a limit.
type bufferWriter struct {
	header http.Header
	status int
	body   bytes.Buffer
	limit  int64
	over   bool
}

func (b *bufferWriter) Header() http.Header { return b.header }

func (b *bufferWriter) WriteHeader(status int) {
	if b.status == 0 && status >= 200 {
		b.status = status
	}
}

func (b *bufferWriter) Write(p []byte) (int, error) {
	if b.status == 0 {
		b.status = http.StatusOK
	}
	if int64(b.body.Len())+int64(len(p)) > b.limit {
		b.over = true
		return len(p), nil
	}
	return b.body.Write(p)
}

// Flush is a no-op: the answer is read whole (reverse_proxy flushes an
// event stream as it goes).
func (b *bufferWriter) Flush() {}

func (b *bufferWriter) written() bool { return b.status != 0 || b.body.Len() > 0 }

// answer is a parsed answer of the MCP server: the JSON-RPC response
// to the call, alone (JSON) or as one event of a stream (SSE).
type answer struct {
	msg    rpcMessage
	sse    bool
	events [][]byte // the stream's events, each with its blank line
	at     int      // the event of the response
}

// parseAnswer finds the response to the request with id in a JSON or
// event-stream body; nil when there is none.
func parseAnswer(contentType string, body []byte, id json.RawMessage) *answer {
	ct := strings.ToLower(contentType)
	if strings.HasPrefix(ct, "text/event-stream") {
		a := &answer{sse: true, at: -1}
		a.events = splitEvents(body)
		for i, ev := range a.events {
			if m := eventMessage(ev); m != nil && isResponseTo(m, id) {
				a.msg, a.at = m, i // the first, as a client takes it
				break
			}
		}
		if a.at < 0 {
			return nil
		}
		return a
	}
	m, err := parseRPC(body)
	if err != nil || !isResponseTo(m, id) {
		return nil
	}
	return &answer{msg: m}
}

// splitEvents splits an event stream into its events, each keeping its
// terminating blank line.
func splitEvents(b []byte) [][]byte {
	var out [][]byte
	for len(b) > 0 {
		i, n := bytes.Index(b, []byte("\n\n")), 2
		if j := bytes.Index(b, []byte("\r\n\r\n")); j >= 0 && (i < 0 || j < i) {
			i, n = j, 4
		}
		if i < 0 {
			out = append(out, b)
			break
		}
		out = append(out, b[:i+n])
		b = b[i+n:]
	}
	return out
}

// eventMessage is the JSON-RPC message in an event's data lines.
func eventMessage(ev []byte) rpcMessage {
	var data [][]byte
	for _, line := range bytes.Split(ev, []byte("\n")) {
		line = bytes.TrimSuffix(line, []byte("\r"))
		if v, ok := bytes.CutPrefix(line, []byte("data:")); ok {
			data = append(data, bytes.TrimPrefix(v, []byte(" ")))
		}
	}
	if len(data) == 0 {
		return nil
	}
	m, err := parseRPC(bytes.Join(data, []byte("\n")))
	if err != nil {
		return nil
	}
	return m
}

// isResponseTo reports whether m is the response (result or error) to
// the request with id.
func isResponseTo(m rpcMessage, id json.RawMessage) bool {
	_, res := m["result"]
	_, er := m["error"]
	if !res && !er {
		return false
	}
	var a, b any
	return json.Unmarshal(m["id"], &a) == nil && json.Unmarshal(id, &b) == nil && jsonEqual(a, b)
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

// failed reports a JSON-RPC error or a tool result with isError.
func (a *answer) failed() bool {
	if _, ok := a.msg["error"]; ok {
		return true
	}
	var res struct {
		IsError bool `json:"isError"`
	}
	_ = json.Unmarshal(a.msg["result"], &res)
	return res.IsError
}

// setResultMeta sets _meta[key] of the result.
func (a *answer) setResultMeta(key string, v json.RawMessage) {
	var res map[string]json.RawMessage
	if json.Unmarshal(a.msg["result"], &res) != nil || res == nil {
		return
	}
	var meta map[string]json.RawMessage
	_ = json.Unmarshal(res["_meta"], &meta)
	if meta == nil {
		meta = map[string]json.RawMessage{}
	}
	meta[key] = v
	res["_meta"], _ = json.Marshal(meta)
	a.msg["result"], _ = json.Marshal(res)
}

// setErrorData sets data[key] of a JSON-RPC error whose data is absent or
// an object (a paid call that got no tool result: the buyer learns that
// it paid, and that the same payment again calls the tool again).
func (a *answer) setErrorData(key string, v json.RawMessage) {
	var e map[string]json.RawMessage
	if json.Unmarshal(a.msg["error"], &e) != nil || e == nil {
		return
	}
	var data map[string]json.RawMessage
	if d, ok := e["data"]; ok && (json.Unmarshal(d, &data) != nil || data == nil) {
		return
	}
	if data == nil {
		data = map[string]json.RawMessage{}
	}
	data[key] = v
	data["retry"], _ = json.Marshal(TextRetryPaid)
	e["data"], _ = json.Marshal(data)
	a.msg["error"], _ = json.Marshal(e)
}

// TextRetryPaid tells a buyer whose paid call got no tool result what
// to do.
const TextRetryPaid = "this call is paid and the tool gave no result: call it again with the same payment to get one without paying again"

// encode is the answer again, with its response as it is now.
func (a *answer) encode() []byte {
	b, _ := json.Marshal(a.msg)
	if !a.sse {
		return b
	}
	var out bytes.Buffer
	for i, ev := range a.events {
		if i != a.at {
			out.Write(ev)
			continue
		}
		for _, line := range bytes.Split(ev, []byte("\n")) {
			line = bytes.TrimSuffix(line, []byte("\r"))
			if len(line) == 0 || bytes.HasPrefix(line, []byte("data:")) {
				continue
			}
			out.Write(line)
			out.WriteByte('\n')
		}
		out.WriteString("data: ")
		out.Write(b)
		out.WriteString("\n\n")
	}
	return out.Bytes()
}
