// answer.go: the answers of an MCP route. The MCP server's answer to
// a priced call is read whole (application/json, or text/event-stream
// where the result is the event whose JSON-RPC id matches) and written on
// to the paywall's writer, so that settle after decides on it: a tool
// result that is not isError settles, any other answer does not. What
// the paywall answers itself (402, 409, 429, 500, 503) becomes a JSON-RPC
// result with the PaymentRequired, or a JSON-RPC error.

package mcp

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"go.uber.org/zap"

	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// callWriter is the writer the paywall serves a priced call with: it keeps
// the answer to turn it into JSON-RPC (finish).
type callWriter struct {
	header http.Header
	status int
	body   bytes.Buffer
	call   *call
}

func (m *callWriter) Header() http.Header { return m.header }

func (m *callWriter) WriteHeader(status int) {
	if m.status == 0 && status >= 200 {
		m.status = status
	}
}

func (m *callWriter) Write(p []byte) (int, error) {
	if m.status == 0 {
		m.status = http.StatusOK
	}
	return m.body.Write(p)
}

func (m *callWriter) Flush() {}

// upstream runs the MCP server for a priced call, reads its answer
// whole and writes it on to the paywall's writer with a status that
// decides what the payment becomes: the server's own 2xx for a tool
// result that is not isError (settled after; delivered); 424 for an
// isError result (not settled after; delivered before: the tool ran and
// answered); 502 for an answer without a tool result (a JSON-RPC error,
// an HTTP error, no response for the call, one too large), which settles
// nothing after and, before, leaves the payment paid but not delivered,
// so that the same payment again calls the tool again without paying.
type upstream struct {
	t    *Transport
	next caddyhttp.Handler
	call *call
}

func (u upstream) ServeHTTP(w http.ResponseWriter, r *http.Request) error {
	c := u.call
	bw := &bufferWriter{header: http.Header{}, limit: u.t.maxAnswer}
	timedOut, err := u.serveBounded(bw, r) // timeout.go
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
		u.t.route.Logger.Error("the MCP server did not answer a priced tool call within mcp_call_timeout; its answer was cut, it is not delivered and not settled after (raise mcp_call_timeout if the tool needs longer, or have the server end its event stream after the response)",
			zap.String("tool", c.tool.cfg.Name), zap.Duration("mcp_call_timeout", u.t.callTimeout))
		c.failed, c.sent = true, http.StatusBadGateway
		c.ans = nil
		c.raw = false
		c.origStatus = callTimedOut // finish answers a JSON-RPC error
		bw.body.Reset()
	case bw.over:
		u.t.route.Logger.Error("the MCP server's answer to a priced tool call exceeds mcp_max_answer; it is not delivered and not settled after",
			zap.String("tool", c.tool.cfg.Name), zap.Int64("mcp_max_answer", u.t.maxAnswer))
		c.failed, c.sent = true, http.StatusBadGateway
		c.ans = nil
		c.raw = false
		c.origStatus = -1 // finish answers a JSON-RPC error
	case status < 200 || status > 299:
		c.raw, c.failed, c.sent = true, true, http.StatusBadGateway
	default:
		if enc := bw.header.Get("Content-Encoding"); enc == "" || strings.EqualFold(enc, "identity") {
			c.ans = parseAnswer(bw.header.Get("Content-Type"), bw.body.Bytes(), c.id)
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

// finish writes the answer of a priced call: the server's (with the
// settlement in _meta), or the paywall's turned into JSON-RPC.
func (t *Transport) finish(w http.ResponseWriter, mw *callWriter, err error) error {
	c := mw.call
	if mw.status == 0 && mw.body.Len() == 0 {
		if pr := settlementOf(mw.header); pr != nil && err != nil {
			// Paid (settle before), and the server could not be asked:
			// the buyer learns it paid, and that the same payment again
			// calls the tool without paying.
			t.metric(c, OutcomeToolError)
			t.route.Logger.Error("the MCP server failed a paid tool call; the buyer's retry with the same payment calls it again",
				zap.String("tool", c.tool.cfg.Name), zap.Error(err))
			return writeRPCError(w, http.StatusOK, c.id, rpcInternalError, "the MCP server could not answer this call",
				map[string]any{MetaPaymentResponse: pr, "retry": TextRetryPaid})
		}
		return err // nothing written, nothing charged: Caddy's error handling answers
	}
	if c.sent != 0 && mw.status == c.sent {
		return t.serverAnswer(w, mw)
	}
	return t.paywallAnswer(w, mw)
}

// serverAnswer writes the server's answer to a priced call.
func (t *Transport) serverAnswer(w http.ResponseWriter, mw *callWriter) error {
	c := mw.call
	hdr := w.Header()
	for k, v := range mw.header {
		if k != "Content-Length" {
			hdr[k] = v
		}
	}
	pr := settlementOf(mw.header)
	switch {
	case c.origStatus == callTimedOut:
		return t.noResult(w, c, pr, textTimedOut(t.callTimeout))
	case c.origStatus < 0:
		t.metric(c, OutcomeToolError)
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
		return t.noResult(w, c, pr, "the MCP server's answer holds no response to this call that this gateway can read (JSON, or an event stream, without Content-Encoding)")
	case c.raw:
		t.metric(c, OutcomeToolError)
		hdr.Set("Content-Length", strconv.Itoa(mw.body.Len()))
		w.WriteHeader(c.origStatus)
		_, err := w.Write(mw.body.Bytes())
		return err
	}
	if pr != nil {
		c.ans.setResultMeta(MetaPaymentResponse, pr)
		c.ans.setErrorData(MetaPaymentResponse, pr)
	}
	switch {
	case c.failed:
		t.metric(c, OutcomeToolError)
	case pr != nil:
		t.metric(c, OutcomePaid)
	}
	out := c.ans.encode()
	hdr.Set("Content-Length", strconv.Itoa(len(out)))
	w.WriteHeader(c.origStatus)
	_, err := w.Write(out)
	return err
}

// noResult answers a priced call for which the MCP server gave no result
// to deliver: a JSON-RPC error saying why (text), with the settlement and
// the retry note when the call was paid (pr, settle before), else saying
// that nothing was charged.
func (t *Transport) noResult(w http.ResponseWriter, c *call, pr json.RawMessage, text string) error {
	t.metric(c, OutcomeToolError)
	hdr := w.Header()
	for k := range hdr {
		delete(hdr, k)
	}
	var data any
	if pr != nil {
		data = map[string]any{MetaPaymentResponse: pr, "retry": TextRetryPaid}
	} else {
		text += "; nothing was charged"
	}
	return writeRPCError(w, http.StatusOK, c.id, rpcInternalError, text, data)
}

// settlementOf is the settlement the paywall put in PAYMENT-RESPONSE
// (or X-PAYMENT-RESPONSE for a version 1 payment), as JSON.
func settlementOf(hdr http.Header) json.RawMessage {
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

// TextPaymentRequired is the error of an unpaid call's PaymentRequired.
const TextPaymentRequired = `Payment required to access this tool: call it again with the payment in params._meta["x402/payment"]`

// TextSettleFailed begins the error of a settle that failed after the
// tool ran (settle after): its result is withheld, nothing was charged.
const TextSettleFailed = "Payment settlement failed, so the tool's result is withheld and nothing was charged: "

// paywallAnswer turns what the paywall answered itself into JSON-RPC:
// a 402 into the PaymentRequired result the MCP transport defines, any
// other status into a JSON-RPC error whose data is the paywall's answer.
func (t *Transport) paywallAnswer(w http.ResponseWriter, mw *callWriter) error {
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
		t.metric(c, OutcomeFailed)
		if text == "" {
			text = http.StatusText(mw.status)
		}
		if body == nil {
			body = map[string]any{}
		}
		body["status"] = mw.status
		return writeRPCError(w, http.StatusOK, c.id, CodePaymentFailed, text, body)
	}
	switch {
	case text == "X-PAYMENT header is required":
		text = TextPaymentRequired
		t.metric(c, OutcomePaymentRequired)
	case c.sent != 0 && text != x402.ErrTextPending:
		// The tool ran (settle after) and its settle failed: the buyer
		// gets the payment error only, as the transport says.
		text = TextSettleFailed + text
		t.metric(c, OutcomeRefused)
	default:
		t.metric(c, OutcomeRefused)
	}
	pr := x402.PaymentRequiredV2{X402Version: x402.Version2, Error: text, Resource: c.tool.resource(),
		Accepts: c.tool.offer.Accepts(), Extensions: map[string]any{}}
	var sent x402.PaymentRequiredV2
	if v := mw.header.Get(x402.HeaderPaymentRequired); v != "" && x402.DecodeBase64JSON(v, &sent) == nil {
		for k, v := range sent.Extensions {
			pr.Extensions[k] = v
		}
	}
	if !t.route.NoDiscovery {
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
	if text == x402.ErrTextPending {
		// The payment was sent: its transaction, so the buyer retries
		// with the same payment rather than paying again.
		if sr := settlementOf(mw.header); sr != nil {
			result["_meta"] = map[string]any{MetaPaymentResponse: sr}
		}
	}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": c.id, "result": result})
	return writeJSON(w, http.StatusOK, b)
}
