package x402cmd

import (
	"bytes"
	"encoding/json"
	"io"
	"os"

	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// What "caddy x402 pay" shows of an answer: its body, and the settlement
// its payment-response header reports (pay.go for v1, pay_v2.go for v2).

// writeBody writes a response body as it is, plus a final newline when it
// lacks one and goes to a terminal, so that the shell prompt or the
// settlement on stderr does not run into it.
func writeBody(w io.Writer, body []byte) error {
	if _, err := w.Write(body); err != nil {
		return err
	}
	if f, ok := w.(*os.File); ok && len(body) > 0 && body[len(body)-1] != '\n' {
		if fi, err := f.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
			_, err = io.WriteString(w, "\n")
			return err
		}
	}
	return nil
}

// settledIn reads an X-PAYMENT-RESPONSE header: whether it reports a
// settlement, and its transaction hash.
func settledIn(h string) (bool, string) {
	if h == "" {
		return false, ""
	}
	var pr struct {
		Success     bool   `json:"success"`
		Transaction string `json:"transaction"`
		TxHash      string `json:"txHash"`
	}
	b, err := x402.DecodeBase64(h)
	if err != nil || json.Unmarshal(b, &pr) != nil {
		return false, ""
	}
	if pr.Transaction == "" {
		pr.Transaction = pr.TxHash
	}
	return pr.Success, pr.Transaction
}

// txNote names a transaction in a message, when there is one.
func txNote(tx string) string {
	if tx == "" {
		return ""
	}
	return " (transaction " + tx + ")"
}

// decodePaymentResponse renders an X-PAYMENT-RESPONSE header (Base64 JSON,
// or plain JSON) as indented JSON, or returns it as it is.
func decodePaymentResponse(h string) string {
	raw := []byte(h)
	if b, err := x402.DecodeBase64(h); err == nil && json.Valid(b) {
		raw = b
	}
	var out bytes.Buffer
	if err := json.Indent(&out, raw, "", "  "); err != nil {
		return h
	}
	return out.String()
}

// settlementJSON is a payment-response header's JSON (Base64 JSON, or
// plain JSON); nil for none.
func settlementJSON(h string) []byte {
	if h == "" {
		return nil
	}
	if b, err := x402.DecodeBase64(h); err == nil && json.Valid(b) {
		return b
	}
	return []byte(h)
}
