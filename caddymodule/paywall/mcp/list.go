package mcp

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/caddy-x402/caddy-x402/facilitator"
)

// serveList passes tools/list on free and adds each priced tool's
// accepts to its _meta["x402/accepts"] in the answer; the tools'
// descriptions and input schemas are learnt for discovery.
func (t *Transport) serveList(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler, msg rpcMessage) error {
	bw := &bufferWriter{header: http.Header{}, limit: t.maxAnswer}
	r.Header.Del("Accept-Encoding") // the answer is read here
	err := t.core.Pass(bw, r, next)
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
		if a := parseAnswer(bw.header.Get("Content-Type"), body, msg["id"]); a != nil && t.priceList(a) {
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
func (t *Transport) priceList(a *answer) bool {
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
		pt := t.tools[name]
		if pt == nil {
			continue
		}
		var meta map[string]json.RawMessage
		_ = json.Unmarshal(tl["_meta"], &meta)
		if meta == nil {
			meta = map[string]json.RawMessage{}
		}
		meta[MetaAccepts], _ = json.Marshal(pt.offer.Accepts())
		tl["_meta"], _ = json.Marshal(meta)
		changed = true
		var l learnt
		if json.Unmarshal(tl["description"], &l.description) != nil || len(l.description) > maxLearnt {
			l.description = ""
		}
		var schema map[string]any
		if s := tl["inputSchema"]; len(s) <= maxLearnt && json.Unmarshal(s, &schema) == nil && schema != nil {
			l.inputSchema = s
		}
		if old := pt.learnt.Load(); old == nil || old.description != l.description || !bytes.Equal(old.inputSchema, l.inputSchema) {
			pt.learn(&l)
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
func (t *tool) learn(l *learnt) {
	if len(l.inputSchema) > 0 {
		probe := &tool{cfg: t.cfg}
		probe.learnt.Store(l)
		b, _ := json.Marshal(probe.bazaar())
		if _, _, err := facilitator.ValidateBazaar(b); err != nil {
			l.inputSchema = nil
		}
	}
	t.learnt.Store(l)
}
