package facilitator

import (
	"encoding/base64"
	"testing"
)

// FuzzDecodePaymentHeader feeds arbitrary headers to the decoder: it must
// never panic, and whatever it accepts must survive a round trip.
func FuzzDecodePaymentHeader(f *testing.F) {
	f.Add(base64.StdEncoding.EncodeToString([]byte(flatPayload)))
	f.Add(base64.RawURLEncoding.EncodeToString([]byte(nestedPayload)))
	f.Add("")
	f.Add("e30")
	f.Fuzz(func(t *testing.T, header string) {
		p, err := DecodePaymentHeader(header)
		if err != nil {
			return
		}
		if err := p.ParsePayload(); err != nil {
			return
		}
		if len(p.Signature) != 65 || p.Authorization.Value.Sign() <= 0 || p.Authorization.Value.Cmp(maxUint256) > 0 {
			t.Fatalf("accepted an invalid payload: %+v", p)
		}
		if _, err := EncodePaymentHeader(p, ShapeX402); err != nil {
			t.Fatal(err)
		}
	})
}

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
