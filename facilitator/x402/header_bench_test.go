package x402

import (
	"encoding/base64"
	"testing"
)

// BenchmarkDecodePaymentHeader: DecodePaymentHeader of the three common
// shapes (the fast path) and of one the fast path leaves to encoding/json.
//
//	go test ./facilitator/x402 -run '^$' -bench DecodePaymentHeader
func BenchmarkDecodePaymentHeader(b *testing.B) {
	for _, tc := range []struct{ name, json string }{
		{"flat", flatPayload},
		{"nested", nestedPayload},
		{"v2", v2Payload},
		{"escaped", `{"x402Version":1,"scheme":"ex\u0061ct","network":"n","payload":{"value":"10"}}`},
	} {
		h := base64.StdEncoding.EncodeToString([]byte(tc.json))
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				if _, err := DecodePaymentHeader(h); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
