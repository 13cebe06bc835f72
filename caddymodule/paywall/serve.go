package paywall

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"github.com/dustin/go-humanize"

	"github.com/caddy-x402/caddy-x402/caddymodule/internal/httpx"
	"github.com/caddy-x402/caddy-x402/facilitator"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// ServeHTTP implements caddyhttp.MiddlewareHandler.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler) error {
	// One spelling per resource, before the price, the records and the
	// next handler read the path (paths.go).
	if handled, err := canonicalRequest(w, r, h.AllowEncodedPercent); handled {
		return err
	}
	if handled, err := serveWellKnown(w, r); handled {
		return err // the site's discovery manifest is free
	}
	if h.mcp != nil && mcpCallOf(r) == nil {
		return h.serveMCP(w, r, next) // priced tool calls come back here (serveMCPCall below)
	}
	for _, k := range upstreamHeaders {
		r.Header.Del(k)
	}
	w.Header().Add("Access-Control-Expose-Headers", exposedHeaders)
	if !h.ForwardPaymentHeader {
		next = withoutPaymentHeaders{next}
	}
	if isPreflight(r) {
		return next.ServeHTTP(w, r) // a CORS preflight is never charged
	}
	if err := h.ensureUpto(); err != nil {
		return err
	}
	off, err := h.offerFor(r)
	if err != nil {
		return h.priceFailed(err)
	}
	sl := &sale{offer: off}
	r = withSale(r, sl)
	header, v2 := h.paymentHeader(r)
	if handled, err := h.serveAccess(w, r, next, header); handled {
		return err
	}
	if header == "" {
		return h.paymentRequired(w, r, "X-PAYMENT header is required", "")
	}
	if len(header) > httpx.MaxPaymentHeaderBytes {
		return h.paymentRequired(w, r, "", fmt.Sprintf("X-PAYMENT header exceeds %d KiB", httpx.MaxPaymentHeaderBytes>>10))
	}
	if h.chans != nil {
		return h.serveChannel(w, r, next, header) // channel.go
	}
	// Decode here, so that a remote facilitator is not asked about
	// garbage and the upstream can be told who pays in settle-after mode.
	payment, err := facilitator.DecodePaymentHeader(header)
	if err == nil {
		sl.authScheme, err = h.parsePayment(payment)
	}
	if err != nil {
		h.metrics.payment(h.pricing.saleOf(r), OutcomeRefused, invalidReason(err))
		return h.paymentRequired(w, r, "", invalidReason(err))
	}
	// The option of the network the payment names: it is verified and
	// settled against that option's requirements, at this request's price.
	opt, reason := h.pricing.choose(payment)
	sl.opt = opt
	if reason != "" {
		h.metrics.payment(h.pricing.saleOf(r), OutcomeRefused, reason)
		return h.paymentRequired(w, r, "", reason)
	}
	pid, bad := h.paymentIDOf(payment)
	if bad != "" {
		return h.paymentIDAnswer(w, r, http.StatusBadRequest, paymentIDAnswer{Error: bad})
	}

	// An authorization refused a moment ago (at this price) is refused
	// again from memory; otherwise the attempt counts against the
	// client's limit.
	key := refusalKey(payment, sl.part().reqs.MaxAmountRequired)
	if reason, ok := h.attempts.refusal(key); ok {
		h.metrics.payment(h.pricing.saleOf(r), OutcomeRefused, reason)
		return h.paymentRequired(w, r, "", reason)
	}
	if ok, wait := h.attempts.allow(httpx.ClientIP(r)); !ok {
		h.metrics.payment(h.pricing.saleOf(r), OutcomeRateLimited, "")
		return tooManyAttempts(w, wait)
	}

	req := &facilitator.Request{
		X402Version:         facilitator.X402Version,
		PaymentHeader:       header,
		PaymentRequirements: sl.part().reqs,
	}
	if v2 {
		req = h.v2Request(r, header, resourceURL(r))
	}
	req.PaymentRequirements.Resource = resourceURL(r)

	return h.servePaid(w, r, next, req, payment, key, pid)
}

// serveMCP serves a request of an MCP route: a priced tools/call through
// the payment pipeline, tools/list with the prices added, anything else
// free.
func (h *Handler) serveMCP(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler) error {
	if r.Method != http.MethodPost {
		if h.settleAfter {
			// A resumed stream could replay the result of a priced call
			// whose settle failed (or whose buyer hung up before it):
			// with settle after, the server's stream starts afresh.
			r.Header.Del("Last-Event-ID")
		}
		return h.mcpFree(w, r, next) // GET (the server's SSE stream), DELETE (end of session)
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, h.mcp.maxBody+1))
	if err != nil {
		return caddyhttp.Error(http.StatusBadRequest, fmt.Errorf("x402: reading the MCP request: %w", err))
	}
	if int64(len(body)) > h.mcp.maxBody {
		return writeRPCError(w, http.StatusRequestEntityTooLarge, nil, rpcInvalidRequest,
			fmt.Sprintf("the request body exceeds %s (mcp_max_body of this server): send a smaller request", humanize.IBytes(uint64(h.mcp.maxBody))), nil)
	}
	setBody(r, body)
	trimmed := bytes.TrimLeft(body, " \t\r\n")
	if len(trimmed) > 0 && trimmed[0] == '[' {
		var batch []json.RawMessage
		if err := json.Unmarshal(body, &batch); err != nil {
			return writeRPCError(w, http.StatusBadRequest, nil, rpcParseError, "parse error: the body is not valid JSON: "+x402.Clip(err.Error(), 128), nil)
		}
		for _, m := range batch {
			if msg, err := parseRPC(m); err == nil && h.pricedTool(msg) != nil {
				return writeRPCError(w, http.StatusBadRequest, nil, rpcInvalidRequest,
					"a JSON-RPC batch must not call a priced tool: send each paid tools/call as a request of its own", nil)
			}
		}
		return h.mcpFree(w, r, next)
	}
	msg, err := parseRPC(body)
	if err != nil {
		return writeRPCError(w, http.StatusBadRequest, nil, rpcParseError, "parse error: the body is not a JSON-RPC message: "+x402.Clip(err.Error(), 128), nil)
	}
	if t := h.pricedTool(msg); t != nil {
		if _, ok := msg["id"]; !ok {
			// A notification gets no answer to carry the price or the
			// result: a server that ran it would give the tool away.
			return writeRPCError(w, http.StatusBadRequest, nil, rpcInvalidRequest,
				fmt.Sprintf("tools/call of %q is priced, so it must be a request with an id, not a notification", t.cfg.Name), nil)
		}
		return h.serveMCPCall(w, r, next, msg, t)
	}
	if method, _ := msg.method(); method == "tools/list" {
		return h.serveMCPList(w, r, next, msg)
	}
	return h.mcpFree(w, r, next)
}

// serveMCPCall serves a tools/call of a priced tool: the payment comes
// out of _meta (or stays in the PAYMENT-SIGNATURE / X-PAYMENT header it
// came in) and the paywall serves the call as any paid request, with an
// answer turned into JSON-RPC.
func (h *Handler) serveMCPCall(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler, msg rpcMessage, t *mcpTool) error {
	call := &mcpCall{tool: t, id: msg["id"]}
	r2 := r.WithContext(context.WithValue(r.Context(), mcpCallCtxKey{}, call))
	r2.Header = r.Header.Clone()
	// The answer is read here: asked for without compression.
	r2.Header.Del("Accept-Encoding")
	params := msg.params()
	var meta map[string]json.RawMessage
	if json.Unmarshal(params["_meta"], &meta) == nil {
		if pay, ok := meta[mcpMetaPayment]; ok {
			delete(meta, mcpMetaPayment)
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
	mw := &mcpWriter{header: http.Header{}, call: call}
	err := h.ServeHTTP(mw, r2, mcpUpstream{h: h, next: next, call: call})
	return h.mcpFinish(w, mw, err)
}
