package x402

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strings"
)

// The payment-identifier extension (x402 version 2): the seller declares
// it in PaymentRequired.extensions, the buyer echoes the declaration in
// its PaymentPayload.extensions with an id added, and the seller uses the
// id as an idempotency key. The wire format is the one of the published
// @x402/extensions package (2.x):
//
//	seller: "payment-identifier": {"info": {"required": false}, "schema": {...}}
//	buyer:  "payment-identifier": {"info": {"required": false, "id": "pay_7d5d..."}, "schema": {...}}

// ExtPaymentIdentifier is the extension's key in extensions.
const ExtPaymentIdentifier = "payment-identifier"

// Limits of a payment id: 16 to 128 characters from [A-Za-z0-9_-].
const (
	PaymentIDMinLength = 16
	PaymentIDMaxLength = 128
)

// Texts of the reference servers for a payment id they cannot accept.
const (
	// ReasonPaymentIDFormat refuses an id of the wrong length or characters.
	ReasonPaymentIDFormat = "Invalid payment ID format. ID must be 16-128 characters and contain only alphanumeric characters, hyphens, and underscores."
	// ReasonPaymentIDRequired refuses a payment without an id where the
	// seller requires one.
	ReasonPaymentIDRequired = "Server requires a payment identifier but none was provided"
)

// ErrPaymentIDFormat is returned for a payment id that is not a string of
// 16-128 characters from [A-Za-z0-9_-].
var ErrPaymentIDFormat = errors.New(ReasonPaymentIDFormat)

// PaymentIdentifierInfo is the extension's info: whether the seller
// requires an id and, in a payment, the buyer's id.
type PaymentIdentifierInfo struct {
	Required bool   `json:"required"`
	ID       string `json:"id,omitempty"`
}

// PaymentIdentifierExtension is the extension as declared and echoed.
type PaymentIdentifierExtension struct {
	Info   PaymentIdentifierInfo `json:"info"`
	Schema json.RawMessage       `json:"schema"`
}

// paymentIdentifierSchema is the JSON Schema of the info, as the
// reference packages publish it.
const paymentIdentifierSchema = `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object",` +
	`"properties":{"required":{"type":"boolean"},"id":{"type":"string","minLength":16,"maxLength":128,"pattern":"^[a-zA-Z0-9_-]+$"}},` +
	`"required":["required"]}`

// DeclarePaymentIdentifier returns the seller's declaration of the
// extension, for PaymentRequired.extensions[ExtPaymentIdentifier].
func DeclarePaymentIdentifier(required bool) PaymentIdentifierExtension {
	return PaymentIdentifierExtension{Info: PaymentIdentifierInfo{Required: required}, Schema: json.RawMessage(paymentIdentifierSchema)}
}

// ValidPaymentID reports whether id is 16-128 characters, each a letter,
// a digit, a hyphen or an underscore.
func ValidPaymentID(id string) bool {
	if len(id) < PaymentIDMinLength || len(id) > PaymentIDMaxLength {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// PaymentID returns the buyer's payment id from a version 2 payment's
// extensions: "" when the payment carries none (no extensions, no
// payment-identifier entry, or an entry without info.id), and
// ErrPaymentIDFormat when info.id is present but not a valid id. The rest
// of the entry's shape is not judged: reference buyers echo the seller's
// declaration, whatever it holds.
func (p *Payment) PaymentID() (string, error) {
	if p.X402Version != Version2 || len(p.extensions) == 0 {
		return "", nil
	}
	var exts map[string]json.RawMessage
	if json.Unmarshal(p.extensions, &exts) != nil {
		return "", nil
	}
	var ext struct {
		Info map[string]json.RawMessage `json:"info"`
	}
	if raw, ok := exts[ExtPaymentIdentifier]; !ok || json.Unmarshal(raw, &ext) != nil {
		return "", nil
	}
	raw, ok := ext.Info["id"]
	if !ok || bytes.Equal(raw, []byte("null")) {
		return "", nil
	}
	var id string
	if json.Unmarshal(raw, &id) != nil || !ValidPaymentID(id) {
		return "", ErrPaymentIDFormat
	}
	return id, nil
}

// Fingerprint identifies the payment's whole JSON (envelope, payload,
// accepted requirements, resource and extensions): the SHA-256, in hex, of
// its canonical form (object keys sorted, numbers as written, no white
// space), so that the same payload sent again has the same fingerprint
// whatever its key order or Base64 alphabet. "" for a payment that was not
// decoded from a header.
func (p *Payment) Fingerprint() string {
	if len(p.raw) == 0 {
		return ""
	}
	d := json.NewDecoder(strings.NewReader(p.raw))
	d.UseNumber()
	var v any
	if d.Decode(&v) != nil {
		return ""
	}
	canon, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	sum := sha256.Sum256(canon)
	return hex.EncodeToString(sum[:])
}

// PaymentIDDeclared reports whether a seller's PaymentRequired.extensions
// declare the payment-identifier extension (an entry whose info has a
// boolean required), and whether they require an id.
func PaymentIDDeclared(extensions map[string]any) (declared, required bool) {
	ext, _ := extensions[ExtPaymentIdentifier].(map[string]any)
	info, _ := ext["info"].(map[string]any)
	required, declared = info["required"].(bool)
	return declared, required
}

// WithPaymentID returns the extensions a buyer sends with its payment
// under id: the seller's payment-identifier declaration echoed with
// info.id added, as the reference clients write it
// (appendPaymentIdentifierToExtensions). It is nil when the seller does
// not declare the extension, and ErrPaymentIDFormat for an invalid id.
func WithPaymentID(extensions map[string]any, id string) (map[string]any, error) {
	if !ValidPaymentID(id) {
		return nil, ErrPaymentIDFormat
	}
	if declared, _ := PaymentIDDeclared(extensions); !declared {
		return nil, nil
	}
	ext := extensions[ExtPaymentIdentifier].(map[string]any)
	echo := make(map[string]any, len(ext))
	for k, v := range ext {
		echo[k] = v
	}
	info := map[string]any{}
	for k, v := range ext["info"].(map[string]any) {
		info[k] = v
	}
	info["id"] = id
	echo["info"] = info
	return map[string]any{ExtPaymentIdentifier: echo}, nil
}

// NewPaymentID makes up a payment id as the reference clients do
// (generatePaymentId): "pay_" and 32 random hex digits.
func NewPaymentID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return "pay_" + hex.EncodeToString(b[:])
}
