package x402

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
		// A signature of any length up to MaxSignatureBytes is accepted
		// here (a smart-contract wallet's is not 65 bytes); verify decides.
		if len(p.Signature) == 0 || len(p.Signature) > MaxSignatureBytes || p.Authorization.Value.Sign() <= 0 || p.Authorization.Value.Cmp(MaxUint256) > 0 {
			t.Fatalf("accepted an invalid payload: %+v", p)
		}
		if _, err := EncodePaymentHeader(p, ShapeX402); err != nil {
			t.Fatal(err)
		}
	})
}
