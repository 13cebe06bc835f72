// mcp_answer.go: the answers of an MCP route. The MCP server's answer to
// a priced call is read whole (application/json, or text/event-stream
// where the result is the event whose JSON-RPC id matches) and written on
// to the paywall's writer, so that settle after decides on it: a tool
// result that is not isError settles, any other answer does not. What
// the paywall answers itself (402, 409, 429, 500, 503) becomes a JSON-RPC
// result with the PaymentRequired, or a JSON-RPC error.

package paywall

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"go.uber.org/zap"

	"github.com/caddy-x402/caddy-x402/facilitator"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
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

// mcpWriter is the writer the paywall serves a priced call with: it keeps
// the answer to turn it into JSON-RPC (mcpFinish).
type mcpWriter struct {
	header http.Header
	status int
	body   bytes.Buffer
	call   *mcpCall
}

func (m *mcpWriter) Header() http.Header { return m.header }

func (m *mcpWriter) WriteHeader(status int) {
	if m.status == 0 && status >= 200 {
		m.status = status
	}
}

func (m *mcpWriter) Write(p []byte) (int, error) {
	if m.status == 0 {
		m.status = http.StatusOK
	}
	return m.body.Write(p)
}

func (m *mcpWriter) Flush() {}

// mcpUpstream runs the MCP server for a priced call, reads its answer
// whole and writes it on to the paywall's writer with a status that
// decides what the payment becomes: the server's own 2xx for a tool
// result that is not isError (settled after; delivered); 424 for an
// isError result (not settled after; delivered before: the tool ran and
// answered); 502 for an answer without a tool result (a JSON-RPC error,
// an HTTP error, no response for the call, one too large), which settles
// nothing after and, before, leaves the payment paid but not delivered,
// so that the same payment again calls the tool again without paying.
type mcpUpstream struct {
	h    *Handler
	next caddyhttp.Handler
	call *mcpCall
}

func (u mcpUpstream) ServeHTTP(w http.ResponseWriter, r *http.Request) error {
	c := u.call
	bw := &bufferWriter{header: http.Header{}, limit: u.h.mcp.maxAnswer}
	timedOut, err := u.serveBounded(bw, r) // mcp_timeout.go
	if timedOut = timedOut && !c.answeredIn(bw); timedOut {
		err = nil // answered below: a call without a result
	}
	if err != nil && !bw.written() {
		return err
	}
	status := bw.status
	if status == 0 {
		status = http.StatusOK
	}
	c.origStatus = status
	c.sent = status
	switch {
	case timedOut:
		u.h.logger.Error("the MCP server did not answer a priced tool call within mcp_call_timeout; its answer was cut, it is not delivered and not settled after (raise mcp_call_timeout if the tool needs longer, or have the server end its event stream after the response)",
			zap.String("tool", c.tool.cfg.Name), zap.Duration("mcp_call_timeout", u.h.mcp.callTimeout))
		c.failed, c.sent = true, http.StatusBadGateway
		c.ans = nil
		c.raw = false
		c.origStatus = mcpTimedOut // mcpFinish answers a JSON-RPC error
		bw.body.Reset()
	case bw.over:
		u.h.logger.Error("the MCP server's answer to a priced tool call exceeds mcp_max_answer; it is not delivered and not settled after",
			zap.String("tool", c.tool.cfg.Name), zap.Int64("mcp_max_answer", u.h.mcp.maxAnswer))
		c.failed, c.sent = true, http.StatusBadGateway
		c.ans = nil
		c.raw = false
		c.origStatus = -1 // mcpFinish answers a JSON-RPC error
	case status < 200 || status > 299:
		c.raw, c.failed, c.sent = true, true, http.StatusBadGateway
	default:
		if enc := bw.header.Get("Content-Encoding"); enc == "" || strings.EqualFold(enc, "identity") {
			c.ans = parseMCPAnswer(bw.header.Get("Content-Type"), bw.body.Bytes(), c.id)
		}
		switch {
		case c.ans == nil:
			c.raw, c.failed, c.sent = true, true, http.StatusBadGateway
		case c.ans.msg["error"] != nil:
			c.failed, c.sent = true, http.StatusBadGateway
		case c.ans.failed():
			c.failed, c.sent = true, http.StatusFailedDependency
		}
	}
	hdr := w.Header()
	for k, v := range bw.header {
		if k != "Content-Length" {
			hdr[k] = v
		}
	}
	w.WriteHeader(c.sent)
	_, werr := w.Write(bw.body.Bytes())
	return werr
}

// mcpAnswer is a parsed answer of the MCP server: the JSON-RPC response
// to the call, alone (JSON) or as one event of a stream (SSE).
type mcpAnswer struct {
	msg    rpcMessage
	sse    bool
	events [][]byte // the stream's events, each with its blank line
	at     int      // the event of the response
}

// parseMCPAnswer finds the response to the request with id in a JSON or
// event-stream body; nil when there is none.
func parseMCPAnswer(contentType string, body []byte, id json.RawMessage) *mcpAnswer {
	ct := strings.ToLower(contentType)
	if strings.HasPrefix(ct, "text/event-stream") {
		a := &mcpAnswer{sse: true, at: -1}
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
	return &mcpAnswer{msg: m}
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
func (a *mcpAnswer) failed() bool {
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
func (a *mcpAnswer) setResultMeta(key string, v json.RawMessage) {
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
func (a *mcpAnswer) setErrorData(key string, v json.RawMessage) {
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
	data["retry"], _ = json.Marshal(textMCPRetryPaid)
	e["data"], _ = json.Marshal(data)
	a.msg["error"], _ = json.Marshal(e)
}

// textMCPRetryPaid tells a buyer whose paid call got no tool result what
// to do.
const textMCPRetryPaid = "this call is paid and the tool gave no result: call it again with the same payment to get one without paying again"

// encode is the answer again, with its response as it is now.
func (a *mcpAnswer) encode() []byte {
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

// mcpFinish writes the answer of a priced call: the server's (with the
// settlement in _meta), or the paywall's turned into JSON-RPC.
func (h *Handler) mcpFinish(w http.ResponseWriter, mw *mcpWriter, err error) error {
	c := mw.call
	if mw.status == 0 && mw.body.Len() == 0 {
		if pr := mcpSettlementOf(mw.header); pr != nil && err != nil {
			// Paid (settle before), and the server could not be asked:
			// the buyer learns it paid, and that the same payment again
			// calls the tool without paying.
			h.mcpMetric(c, mcpOutcomeToolError)
			h.logger.Error("the MCP server failed a paid tool call; the buyer's retry with the same payment calls it again",
				zap.String("tool", c.tool.cfg.Name), zap.Error(err))
			return writeRPCError(w, http.StatusOK, c.id, rpcInternalError, "the MCP server could not answer this call",
				map[string]any{mcpMetaPaymentResponse: pr, "retry": textMCPRetryPaid})
		}
		return err // nothing written, nothing charged: Caddy's error handling answers
	}
	if c.sent != 0 && mw.status == c.sent {
		return h.mcpServerAnswer(w, mw)
	}
	return h.mcpPaywallAnswer(w, mw)
}

// mcpServerAnswer writes the server's answer to a priced call.
func (h *Handler) mcpServerAnswer(w http.ResponseWriter, mw *mcpWriter) error {
	c := mw.call
	hdr := w.Header()
	for k, v := range mw.header {
		if k != "Content-Length" {
			hdr[k] = v
		}
	}
	pr := mcpSettlementOf(mw.header)
	switch {
	case c.origStatus == mcpTimedOut:
		return h.mcpNoResult(w, c, pr, textMCPTimedOut(h.mcp.callTimeout))
	case c.origStatus < 0:
		h.mcpMetric(c, mcpOutcomeToolError)
		for k := range hdr {
			delete(hdr, k)
		}
		text := "the tool's answer exceeds the size this gateway reads (mcp_max_answer), so it is not delivered"
		if pr == nil {
			text += "; nothing was charged"
		}
		return writeRPCError(w, http.StatusOK, c.id, rpcInternalError, text, nil)
	case c.raw && c.origStatus >= 200 && c.origStatus <= 299:
		// A 2xx answer in which no response to the call can be read: it
		// does not go out, since a client might read a result in it that
		// was not paid for (settle after).
		return h.mcpNoResult(w, c, pr, "the MCP server's answer holds no response to this call that this gateway can read (JSON, or an event stream, without Content-Encoding)")
	case c.raw:
		h.mcpMetric(c, mcpOutcomeToolError)
		hdr.Set("Content-Length", strconv.Itoa(mw.body.Len()))
		w.WriteHeader(c.origStatus)
		_, err := w.Write(mw.body.Bytes())
		return err
	}
	if pr != nil {
		c.ans.setResultMeta(mcpMetaPaymentResponse, pr)
		c.ans.setErrorData(mcpMetaPaymentResponse, pr)
	}
	switch {
	case c.failed:
		h.mcpMetric(c, mcpOutcomeToolError)
	case pr != nil:
		h.mcpMetric(c, mcpOutcomePaid)
	}
	out := c.ans.encode()
	hdr.Set("Content-Length", strconv.Itoa(len(out)))
	w.WriteHeader(c.origStatus)
	_, err := w.Write(out)
	return err
}

// mcpNoResult answers a priced call for which the MCP server gave no result
// to deliver: a JSON-RPC error saying why (text), with the settlement and
// the retry note when the call was paid (pr, settle before), else saying
// that nothing was charged.
func (h *Handler) mcpNoResult(w http.ResponseWriter, c *mcpCall, pr json.RawMessage, text string) error {
	h.mcpMetric(c, mcpOutcomeToolError)
	hdr := w.Header()
	for k := range hdr {
		delete(hdr, k)
	}
	var data any
	if pr != nil {
		data = map[string]any{mcpMetaPaymentResponse: pr, "retry": textMCPRetryPaid}
	} else {
		text += "; nothing was charged"
	}
	return writeRPCError(w, http.StatusOK, c.id, rpcInternalError, text, data)
}

// mcpSettlementOf is the settlement the paywall put in PAYMENT-RESPONSE
// (or X-PAYMENT-RESPONSE for a version 1 payment), as JSON.
func mcpSettlementOf(hdr http.Header) json.RawMessage {
	v := hdr.Get(x402.HeaderPaymentResponseV2)
	if v == "" {
		v = hdr.Get("X-PAYMENT-RESPONSE")
	}
	if v == "" {
		return nil
	}
	b, err := x402.DecodeBase64(v)
	if err != nil || !json.Valid(b) {
		return nil
	}
	return b
}

// textMCPPaymentRequired is the error of an unpaid call's PaymentRequired.
const textMCPPaymentRequired = `Payment required to access this tool: call it again with the payment in params._meta["x402/payment"]`

// textMCPSettleFailed begins the error of a settle that failed after the
// tool ran (settle after): its result is withheld, nothing was charged.
const textMCPSettleFailed = "Payment settlement failed, so the tool's result is withheld and nothing was charged: "

// mcpPaywallAnswer turns what the paywall answered itself into JSON-RPC:
// a 402 into the PaymentRequired result the MCP transport defines, any
// other status into a JSON-RPC error whose data is the paywall's answer.
func (h *Handler) mcpPaywallAnswer(w http.ResponseWriter, mw *mcpWriter) error {
	c := mw.call
	var body map[string]any
	_ = json.Unmarshal(mw.body.Bytes(), &body)
	text, _ := body["error"].(string)
	hdr := w.Header()
	for _, k := range []string{"Retry-After", "Set-Cookie", "Access-Control-Expose-Headers", x402.HeaderPaymentRequired, x402.HeaderPaymentResponseV2, "X-PAYMENT-RESPONSE"} {
		if v, ok := mw.header[http.CanonicalHeaderKey(k)]; ok {
			hdr[http.CanonicalHeaderKey(k)] = v
		}
	}
	if mw.status != http.StatusPaymentRequired {
		h.mcpMetric(c, mcpOutcomeFailed)
		if text == "" {
			text = http.StatusText(mw.status)
		}
		if body == nil {
			body = map[string]any{}
		}
		body["status"] = mw.status
		return writeRPCError(w, http.StatusOK, c.id, rpcPaymentFailed, text, body)
	}
	switch {
	case text == "X-PAYMENT header is required":
		text = textMCPPaymentRequired
		h.mcpMetric(c, mcpOutcomePaymentRequired)
	case c.sent != 0 && text != facilitator.ErrTextPending:
		// The tool ran (settle after) and its settle failed: the buyer
		// gets the payment error only, as the transport says.
		text = textMCPSettleFailed + text
		h.mcpMetric(c, mcpOutcomeRefused)
	default:
		h.mcpMetric(c, mcpOutcomeRefused)
	}
	pr := x402.PaymentRequiredV2{X402Version: x402.Version2, Error: text, Resource: c.tool.resource(),
		Accepts: c.tool.offer.accepts(), Extensions: map[string]any{}}
	var sent x402.PaymentRequiredV2
	if v := mw.header.Get(x402.HeaderPaymentRequired); v != "" && x402.DecodeBase64JSON(v, &sent) == nil {
		for k, v := range sent.Extensions {
			pr.Extensions[k] = v
		}
	}
	if !h.NoDiscovery {
		pr.Extensions[x402.ExtBazaar] = c.tool.bazaar() // the tool's declaration, for the buyer's facilitator
	}
	prJSON, _ := json.Marshal(pr)
	// The header says the same, for clients that read it.
	if v, err := x402.EncodeBase64JSON(json.RawMessage(prJSON)); err == nil {
		hdr.Set(x402.HeaderPaymentRequired, v)
	}
	result := map[string]any{
		"isError":           true,
		"structuredContent": json.RawMessage(prJSON),
		"content":           []any{map[string]any{"type": "text", "text": string(prJSON)}},
	}
	if text == facilitator.ErrTextPending {
		// The payment was sent: its transaction, so the buyer retries
		// with the same payment rather than paying again.
		if sr := mcpSettlementOf(mw.header); sr != nil {
			result["_meta"] = map[string]any{mcpMetaPaymentResponse: sr}
		}
	}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": c.id, "result": result})
	return writeJSON(w, http.StatusOK, b)
}

// bazaar is the tool's bazaar declaration (x402 specs/extensions/bazaar.md,
// shaped as @x402/extensions 2.27 declares an MCP tool).
func (t *mcpTool) bazaar() map[string]any {
	schema := t.inputSchema()
	input := map[string]any{"type": "mcp", "toolName": t.cfg.Name, "transport": "streamable-http", "inputSchema": json.RawMessage(`{"type":"object"}`)}
	if len(schema) > 0 {
		input["inputSchema"] = schema
	}
	props := map[string]any{
		"type":        map[string]any{"type": "string", "const": "mcp"},
		"toolName":    map[string]any{"type": "string"},
		"transport":   map[string]any{"type": "string", "enum": []string{"streamable-http"}},
		"inputSchema": map[string]any{"type": "object"},
	}
	if d := t.description(); d != "" {
		input["description"] = d
		props["description"] = map[string]any{"type": "string"}
	}
	return map[string]any{
		"info": map[string]any{"input": input},
		"schema": map[string]any{
			"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object",
			"properties": map[string]any{"input": map[string]any{
				"type": "object", "properties": props,
				"required": []string{"type", "toolName", "inputSchema"}, "additionalProperties": false,
			}},
			"required": []string{"input"},
		},
	}
}

// serveMCPList passes tools/list on free and adds each priced tool's
// accepts to its _meta["x402/accepts"] in the answer; the tools'
// descriptions and input schemas are learnt for discovery.
func (h *Handler) serveMCPList(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler, msg rpcMessage) error {
	bw := &bufferWriter{header: http.Header{}, limit: h.mcp.maxAnswer}
	r.Header.Del("Accept-Encoding") // the answer is read here
	err := h.mcpFree(bw, r, next)
	if err != nil && !bw.written() {
		return err
	}
	status := bw.status
	if status == 0 {
		status = http.StatusOK
	}
	body := bw.body.Bytes()
	if bw.over {
		return writeRPCError(w, http.StatusOK, msg["id"], rpcInternalError, "the tools/list answer exceeds the size this gateway reads (mcp_max_answer)", nil)
	}
	if status >= 200 && status <= 299 {
		if a := parseMCPAnswer(bw.header.Get("Content-Type"), body, msg["id"]); a != nil && h.priceList(a) {
			body = a.encode()
		}
	}
	hdr := w.Header()
	for k, v := range bw.header {
		hdr[k] = v
	}
	hdr.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, err = w.Write(body)
	return err
}

// priceList adds the priced tools' accepts to a tools/list result and
// learns their descriptions and schemas; false when it is not one.
func (h *Handler) priceList(a *mcpAnswer) bool {
	var res map[string]json.RawMessage
	if json.Unmarshal(a.msg["result"], &res) != nil {
		return false
	}
	var tools []map[string]json.RawMessage
	if json.Unmarshal(res["tools"], &tools) != nil {
		return false
	}
	changed := false
	for _, tl := range tools {
		var name string
		_ = json.Unmarshal(tl["name"], &name)
		t := h.mcp.tools[name]
		if t == nil {
			continue
		}
		var meta map[string]json.RawMessage
		_ = json.Unmarshal(tl["_meta"], &meta)
		if meta == nil {
			meta = map[string]json.RawMessage{}
		}
		meta[mcpMetaAccepts], _ = json.Marshal(t.offer.accepts())
		tl["_meta"], _ = json.Marshal(meta)
		changed = true
		var l mcpLearnt
		if json.Unmarshal(tl["description"], &l.description) != nil || len(l.description) > mcpMaxLearnt {
			l.description = ""
		}
		var schema map[string]any
		if s := tl["inputSchema"]; len(s) <= mcpMaxLearnt && json.Unmarshal(s, &schema) == nil && schema != nil {
			l.inputSchema = s
		}
		if old := t.learnt.Load(); old == nil || old.description != l.description || !bytes.Equal(old.inputSchema, l.inputSchema) {
			t.learn(&l)
		}
	}
	if !changed {
		return false
	}
	res["tools"], _ = json.Marshal(tools)
	a.msg["result"], _ = json.Marshal(res)
	return true
}

// learn keeps what tools/list said about a tool, the schema only when it
// makes a declaration a facilitator catalogs (facilitator.ValidateBazaar).
func (t *mcpTool) learn(l *mcpLearnt) {
	if len(l.inputSchema) > 0 {
		probe := &mcpTool{cfg: t.cfg}
		probe.learnt.Store(l)
		b, _ := json.Marshal(probe.bazaar())
		if _, _, err := facilitator.ValidateBazaar(b); err != nil {
			l.inputSchema = nil
		}
	}
	t.learnt.Store(l)
}

// mcpFree passes a request of an MCP route on, free: as every request,
// without the buyer's payment headers or forged settlement headers.
func (h *Handler) mcpFree(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler) error {
	for _, k := range upstreamHeaders {
		r.Header.Del(k)
	}
	if !h.ForwardPaymentHeader {
		next = withoutPaymentHeaders{next}
	}
	return next.ServeHTTP(w, r)
}
