package x402

import "testing"

// FuzzParseRequest feeds arbitrary bodies to the request parser: it must
// never panic and must either fail with a 400 or give a complete request.
func FuzzParseRequest(f *testing.F) {
	f.Add([]byte(`{"x402Version":1,"paymentHeader":"e30=","paymentRequirements":{"scheme":"exact","network":"cronos-testnet","payTo":"0x2222222222222222222222222222222222222222","asset":"0xc01efAaF7C5C61bEbFAeb358E1161b537b8bC0e0","maxAmountRequired":"10000","maxTimeoutSeconds":300}}`))
	f.Add([]byte(`{"x402Version":"1"}`))
	f.Add([]byte(`[]`))
	f.Add([]byte(`{"x402Version":1,"paymentPayload":{"a":1},"paymentRequirements":{}}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		req, err := ParseRequest(body)
		if err != nil {
			if StatusOf(err) != 400 {
				t.Fatalf("status %d for a malformed body: %v", StatusOf(err), err)
			}
			return
		}
		if req.X402Version != 1 || req.PaymentHeader == "" || req.PaymentRequirements.PayTo == "" {
			t.Fatalf("accepted an incomplete request: %+v", req)
		}
	})
}
