package mcp

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// BenchmarkMCP measures what an MCP route adds to a priced call: reading
// the request (parse, find the tool, take the payment out of _meta) and
// the answer (find the response in a JSON or event-stream body, add the
// settlement, encode it again), against json.Valid over the same bytes
// as the baseline of one pass.
func BenchmarkMCP(b *testing.B) {
	tr := &Transport{tools: map[string]*tool{"weather": {cfg: Tool{Name: "weather"}}}}
	payment := `{"x402Version":2,"accepted":{"scheme":"exact","network":"eip155:338","amount":"10000"},"payload":{"signature":"0x` + strings.Repeat("ab", 65) + `"}}`
	req := []byte(toolCall(7, "weather", `{"city":"Oslo","days":3}`, `{"progressToken":1,"x402/payment":`+payment+`}`))
	result := `{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"` + strings.Repeat("sunny ", 600) + `"}]}}`
	sse := []byte("event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progress\":1}}\n\nevent: message\ndata: " + result + "\n\n")
	pr := json.RawMessage(`{"success":true,"transaction":"0x` + strings.Repeat("1", 64) + `","network":"eip155:338","payer":"0x1","amount":"10000"}`)
	b.Run("request", func(b *testing.B) {
		b.SetBytes(int64(len(req)))
		for i := 0; i < b.N; i++ {
			m, _ := parseRPC(req)
			if tr.pricedTool(m) == nil {
				b.Fatal("not priced")
			}
			p := m.params()
			var meta map[string]json.RawMessage
			_ = json.Unmarshal(p["_meta"], &meta)
			delete(meta, MetaPayment)
			p["_meta"], _ = json.Marshal(meta)
			m["params"], _ = json.Marshal(p)
			_, _ = json.Marshal(m)
		}
	})
	b.Run("request baseline json.Valid", func(b *testing.B) {
		b.SetBytes(int64(len(req)))
		for i := 0; i < b.N; i++ {
			_ = json.Valid(req)
		}
	})
	for _, c := range []struct {
		name, ct string
		body     []byte
	}{{"answer json", "application/json", []byte(result)}, {"answer sse", "text/event-stream", sse}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.body)))
			for i := 0; i < b.N; i++ {
				a := parseAnswer(c.ct, c.body, json.RawMessage("7"))
				if a == nil {
					b.Fatal("no answer")
				}
				a.setResultMeta(MetaPaymentResponse, pr)
				_ = a.encode()
			}
		})
		b.Run(c.name+" baseline json.Valid", func(b *testing.B) {
			b.SetBytes(int64(len(c.body)))
			for i := 0; i < b.N; i++ {
				_ = json.Valid([]byte(result)) // the response, as JSON
			}
		})
	}
}

// toolCall is the body of a tools/call with the arguments args and, when
// meta is not "", params._meta.
func toolCall(id int, tool string, args string, meta string) string {
	p := fmt.Sprintf(`{"name":%q,"arguments":%s`, tool, args)
	if meta != "" {
		p += `,"_meta":` + meta
	}
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":%s}}`, id, p)
}
