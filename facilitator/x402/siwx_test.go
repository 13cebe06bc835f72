package x402

import (
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/crypto"
)

// Vectors from @x402/extensions 2.27.0 (createSIWxPayload, formatSIWEMessage)
// with viem's privateKeyToAccount for the devnet's buyer 1.
const (
	vectorKey    = "087e13a36a752a4b4ba7494f24e1e3c9a17bfb2c82d0c65928855c87cee45bb4"
	vectorHeader = "eyJkb21haW4iOiIxMjcuMC4wLjE6ODA4MCIsImFkZHJlc3MiOiIweDk0RTNGNkVjMjhBMkQ3MzU0M0U2MGI5NDQyYzNlYkVFRUI2M2M3MGMiLCJzdGF0ZW1lbnQiOiJTaWduIGluLiIsInVyaSI6Imh0dHA6Ly8xMjcuMC4wLjE6ODA4MC9hcGkvd2VhdGhlciIsInZlcnNpb24iOiIxIiwiY2hhaW5JZCI6ImVpcDE1NTozMzgiLCJ0eXBlIjoiZWlwMTkxIiwibm9uY2UiOiJhYmMxMjNkZWY0NTY3ODkwIiwiaXNzdWVkQXQiOiIyMDI2LTAxLTAyVDAzOjA0OjA1LjY3OFoiLCJleHBpcmF0aW9uVGltZSI6IjIwMjYtMDEtMDJUMDM6MDk6MDUuNjc4WiIsInJlc291cmNlcyI6WyJodHRwOi8vMTI3LjAuMC4xOjgwODAvYXBpL3dlYXRoZXIiXSwic2lnbmF0dXJlIjoiMHhiZWI3YmE4MmYzM2Y2MTY3YzgwN2U3YmI1ZWY0MzlkYmMzMjFmYzNjZWEyNzQzMjJmMDYxY2Q0YjM1NjdjNmNjNTc5OTY2NjVjOTQwYjdiMTcwMTJiYWIxMDhkYzg0N2JjYWRhOGVmNTA4NmU1YTVkMDc0YzFkNWRiYzBjZmU0YzFjIn0="
	vectorMsg    = "127.0.0.1:8080 wants you to sign in with your Ethereum account:\n0x94E3F6Ec28A2D73543E60b9442c3ebEEEB63c70c\n\nSign in.\n\nURI: http://127.0.0.1:8080/api/weather\nVersion: 1\nChain ID: 338\nNonce: abc123def4567890\nIssued At: 2026-01-02T03:04:05.678Z\nExpiration Time: 2026-01-02T03:09:05.678Z\nResources:\n- http://127.0.0.1:8080/api/weather"
	vectorBuyer  = "0x94E3F6Ec28A2D73543E60b9442c3ebEEEB63c70c"
)

func TestSIWxReferenceVector(t *testing.T) {
	p, err := ParseSIWxHeader(vectorHeader)
	if err != nil {
		t.Fatal(err)
	}
	msg, err := p.Message()
	if err != nil || msg != vectorMsg {
		t.Fatalf("Message = %q, %v\nwant %q", msg, err, vectorMsg)
	}
	signer, err := p.RecoverSIWxSigner()
	if err != nil || signer.Hex() != vectorBuyer {
		t.Fatalf("signer = %s, %v; want %s", signer.Hex(), err, vectorBuyer)
	}
	// Our client signs the same challenge into the same header.
	key, _ := crypto.HexToECDSA(vectorKey)
	info := SIWxInfo{Domain: "127.0.0.1:8080", URI: "http://127.0.0.1:8080/api/weather", Version: "1", Nonce: "abc123def4567890",
		IssuedAt: "2026-01-02T03:04:05.678Z", Resources: []string{"http://127.0.0.1:8080/api/weather"},
		ExpirationTime: "2026-01-02T03:09:05.678Z", Statement: "Sign in."}
	_, h, err := SignSIWx(info, SIWxChain{ChainID: "eip155:338", Type: SIWxTypeEIP191}, key)
	if err != nil || h != vectorHeader {
		t.Fatalf("SignSIWx = %s, %v\nwant %s", h, err, vectorHeader)
	}
}

// TestSIWxMessageFields: absent and empty optional fields, as the SIWE
// library writes them (the second vector: no statement, no resources, an
// empty request id, a lower-case address).
func TestSIWxMessageFields(t *testing.T) {
	rid := ""
	p := &SIWxPayload{Domain: "127.0.0.1:8080", Address: strings.ToLower(vectorBuyer), URI: "http://127.0.0.1:8080/api/weather",
		Version: "1", ChainID: "eip155:338", Nonce: "abc123def4567890", IssuedAt: "2026-01-02T03:04:05.678Z",
		NotBefore: "2026-01-02T03:04:05Z", RequestID: &rid}
	want := "127.0.0.1:8080 wants you to sign in with your Ethereum account:\n0x94E3F6Ec28A2D73543E60b9442c3ebEEEB63c70c\n\n\nURI: http://127.0.0.1:8080/api/weather\nVersion: 1\nChain ID: 338\nNonce: abc123def4567890\nIssued At: 2026-01-02T03:04:05.678Z\nNot Before: 2026-01-02T03:04:05Z\nRequest ID: "
	if msg, err := p.Message(); err != nil || msg != want {
		t.Fatalf("Message = %q, %v\nwant %q", msg, err, want)
	}
	p.Resources = []string{}
	if msg, _ := p.Message(); !strings.HasSuffix(msg, "\nRequest ID: \nResources:") {
		t.Fatalf("empty resources: %q", msg)
	}
	for _, bad := range []string{"0x94e3F6Ec28A2D73543E60b9442c3ebEEEB63c70c", "94E3F6Ec28A2D73543E60b9442c3ebEEEB63c70c", "0x1234"} {
		p.Address = bad
		if _, err := p.Message(); err != ErrSIWxAddress {
			t.Errorf("address %s: %v, want ErrSIWxAddress", bad, err)
		}
	}
}

func TestParseSIWxHeader(t *testing.T) {
	for _, c := range []struct{ header, want string }{
		{"not base64 at all!", "Invalid SIWX header: not valid base64"},
		{"bm90IGpzb24", "Invalid SIWX header: not valid JSON"},
		{"eyJkb21haW4iOjF9", "Invalid SIWX header: domain: expected string"},
		{"eyJkb21haW4iOiJoIn0", "Invalid SIWX header: missing address, chainId, issuedAt, nonce, signature, type, uri, version"},
	} {
		if _, err := ParseSIWxHeader(c.header); err == nil || err.Error() != c.want {
			t.Errorf("ParseSIWxHeader(%q) = %v, want %q", c.header, err, c.want)
		}
	}
}
