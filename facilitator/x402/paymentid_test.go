package x402

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// TestDeclarePaymentIdentifier checks the declaration against the one the
// published @x402/extensions 2.27.0 builds (declarePaymentIdentifierExtension).
func TestDeclarePaymentIdentifier(t *testing.T) {
	b, err := json.Marshal(DeclarePaymentIdentifier(false))
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"info":{"required":false},"schema":{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object",` +
		`"properties":{"required":{"type":"boolean"},"id":{"type":"string","minLength":16,"maxLength":128,"pattern":"^[a-zA-Z0-9_-]+$"}},` +
		`"required":["required"]}}`
	if string(b) != want {
		t.Fatalf("declaration\n got %s\nwant %s", b, want)
	}
	b, _ = json.Marshal(DeclarePaymentIdentifier(true))
	if !strings.HasPrefix(string(b), `{"info":{"required":true},`) {
		t.Fatalf("required declaration %s", b)
	}
}

func TestValidPaymentID(t *testing.T) {
	for _, tc := range []struct {
		id string
		ok bool
	}{
		{"pay_7d5d747be160e280504c099d984bcfe0", true},
		{"0123456789abcdef", true}, // 16
		{"0123456789abcde", false}, // 15
		{strings.Repeat("a", 128), true},
		{strings.Repeat("a", 129), false},
		{"order-ABC_123-def456", true},
		{"pay_7d5d747be160e28!", false},
		{"pay 7d5d747be160e280", false},
		{"pay_7d5d747be160é280", false},
		{"", false},
	} {
		if got := ValidPaymentID(tc.id); got != tc.ok {
			t.Errorf("ValidPaymentID(%q) = %v", tc.id, got)
		}
	}
}

// v2Header is a v2 payment header with the given extensions JSON ("" for
// none) and key order of the envelope.
func v2Header(extensions string, reordered bool) string {
	payload := `{"signature":"0x` + strings.Repeat("11", 65) + `","authorization":{"from":"0x94E3F6Ec28A2D73543E60b9442c3ebEEEB63c70c",` +
		`"to":"0x5e11e5e11e5e11e5e11e5e11e5e11e5e11e5e111","value":"10000","validAfter":"0","validBefore":"9999999999",` +
		`"nonce":"0x` + strings.Repeat("ab", 32) + `"}}`
	accepted := `{"scheme":"exact","network":"eip155:338","amount":"10000","asset":"0xc01efAaF7C5C61bEbFAeb358E1161b537b8bC0e0",` +
		`"payTo":"0x5e11e5e11e5e11e5e11e5e11e5e11e5e11e5e111","maxTimeoutSeconds":300}`
	ext := ""
	if extensions != "" {
		ext = `,"extensions":` + extensions
	}
	s := `{"x402Version":2,"accepted":` + accepted + `,"payload":` + payload + ext + `}`
	if reordered {
		s = `{` + strings.TrimPrefix(ext, ",") + map[bool]string{true: ",", false: ""}[ext != ""] +
			`"payload":` + payload + `, "accepted":` + accepted + `, "x402Version":2}`
	}
	return base64.StdEncoding.EncodeToString([]byte(s))
}

// TestPaymentID reads the buyer's id the way the published client writes
// it (appendPaymentIdentifierToExtensions: the seller's declaration echoed
// with info.id added).
func TestPaymentID(t *testing.T) {
	const schema = `"schema":{"type":"object"}`
	for _, tc := range []struct {
		name, extensions, id string
		err                  error
	}{
		{"no extensions", "", "", nil},
		{"empty extensions", `{}`, "", nil},
		{"declaration echoed without id", `{"payment-identifier":{"info":{"required":false},` + schema + `}}`, "", nil},
		{"id", `{"payment-identifier":{"info":{"required":false,"id":"pay_7d5d747be160e280504c099d984bcfe0"},` + schema + `}}`, "pay_7d5d747be160e280504c099d984bcfe0", nil},
		{"id null", `{"payment-identifier":{"info":{"required":true,"id":null}}}`, "", nil},
		{"other extensions only", `{"bazaar":{"info":{"id":"x"}}}`, "", nil},
		{"extensions not an object", `"payment-identifier"`, "", nil},
		{"info not an object", `{"payment-identifier":{"info":"pay_7d5d747be160e280504c099d984bcfe0"}}`, "", nil},
		{"too short", `{"payment-identifier":{"info":{"required":false,"id":"pay_short"}}}`, "", ErrPaymentIDFormat},
		{"bad character", `{"payment-identifier":{"info":{"required":false,"id":"pay_7d5d747be160e28/"}}}`, "", ErrPaymentIDFormat},
		{"not a string", `{"payment-identifier":{"info":{"required":false,"id":12345678901234567890}}}`, "", ErrPaymentIDFormat},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := DecodePaymentHeader(v2Header(tc.extensions, false))
			if err != nil {
				t.Fatal(err)
			}
			if err := p.ParsePayload(); err != nil {
				t.Fatal(err)
			}
			id, err := p.PaymentID()
			if id != tc.id || !errors.Is(err, tc.err) {
				t.Fatalf("PaymentID() = %q, %v; want %q, %v", id, err, tc.id, tc.err)
			}
		})
	}
}

// TestFingerprint: the same payload has one fingerprint whatever its key
// order, white space or Base64 alphabet; any change to it (here only the
// id) gives another.
func TestFingerprint(t *testing.T) {
	ext := func(id string) string {
		return `{"payment-identifier":{"info":{"required":false,"id":"` + id + `"}}}`
	}
	fp := func(h string) string {
		t.Helper()
		p, err := DecodePaymentHeader(h)
		if err != nil {
			t.Fatal(err)
		}
		return p.Fingerprint()
	}
	a := fp(v2Header(ext("pay_aaaaaaaaaaaaaaaa"), false))
	if len(a) != 64 {
		t.Fatalf("fingerprint %q", a)
	}
	if b := fp(v2Header(ext("pay_aaaaaaaaaaaaaaaa"), true)); b != a {
		t.Errorf("reordered payload: %s, want %s", b, a)
	}
	urlSafe := strings.TrimRight(strings.NewReplacer("+", "-", "/", "_").Replace(v2Header(ext("pay_aaaaaaaaaaaaaaaa"), false)), "=")
	if b := fp(urlSafe); b != a {
		t.Errorf("URL-safe Base64: %s, want %s", b, a)
	}
	if b := fp(v2Header(ext("pay_bbbbbbbbbbbbbbbb"), false)); b == a {
		t.Error("another id has the same fingerprint")
	}
	if (&Payment{}).Fingerprint() != "" {
		t.Error("a payment not decoded from a header has a fingerprint")
	}
}

// TestWithPaymentID builds the buyer's extensions as
// appendPaymentIdentifierToExtensions does: the seller's declaration
// echoed with info.id added, nothing when the seller does not declare it.
func TestWithPaymentID(t *testing.T) {
	var declared map[string]any
	b, _ := json.Marshal(map[string]any{ExtPaymentIdentifier: DeclarePaymentIdentifier(true), "bazaar": map[string]any{}})
	if err := json.Unmarshal(b, &declared); err != nil {
		t.Fatal(err)
	}
	if ok, required := PaymentIDDeclared(declared); !ok || !required {
		t.Fatalf("PaymentIDDeclared = %v, %v", ok, required)
	}
	ext, err := WithPaymentID(declared, "pay_7d5d747be160e280504c099d984bcfe0")
	if err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(ext)
	want := `{"payment-identifier":{"info":{"id":"pay_7d5d747be160e280504c099d984bcfe0","required":true},"schema":` + paymentIdentifierSchemaSorted + `}}`
	if string(got) != want {
		t.Fatalf("extensions\n got %s\nwant %s", got, want)
	}
	if info := declared[ExtPaymentIdentifier].(map[string]any)["info"].(map[string]any); info["id"] != nil {
		t.Error("the seller's declaration was changed")
	}
	if _, err := WithPaymentID(declared, "short"); !errors.Is(err, ErrPaymentIDFormat) {
		t.Errorf("short id: %v", err)
	}
	for _, exts := range []map[string]any{nil, {}, {ExtPaymentIdentifier: map[string]any{"info": map[string]any{}}}} {
		if ok, _ := PaymentIDDeclared(exts); ok {
			t.Errorf("PaymentIDDeclared(%v) = true", exts)
		}
		if ext, err := WithPaymentID(exts, "pay_7d5d747be160e280504c099d984bcfe0"); ext != nil || err != nil {
			t.Errorf("WithPaymentID(%v) = %v, %v", exts, ext, err)
		}
	}
	if id := NewPaymentID(); !ValidPaymentID(id) || !strings.HasPrefix(id, "pay_") || len(id) != 36 || id == NewPaymentID() {
		t.Errorf("NewPaymentID() = %q", id)
	}
}

// paymentIdentifierSchemaSorted is the schema with its keys sorted, as
// encoding/json writes a decoded object.
const paymentIdentifierSchemaSorted = `{"$schema":"https://json-schema.org/draft/2020-12/schema","properties":{"id":{"maxLength":128,"minLength":16,` +
	`"pattern":"^[a-zA-Z0-9_-]+$","type":"string"},"required":{"type":"boolean"}},"required":["required"],"type":"object"}`
