package x402

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
)

// MaxSignatureBytes bounds a payment's signature. An EOA's is 65 bytes; a
// smart-contract wallet's (a WebAuthn or multi-owner signature, in an
// ERC-6492 wrapper with the factory's calldata) is a few hundred to a
// couple of thousand.
const MaxSignatureBytes = 8192

// Authorization is an EIP-3009 transferWithAuthorization as signed by the
// buyer. ValidAfter and ValidBefore are Unix seconds.
type Authorization struct {
	From        common.Address
	To          common.Address
	Value       *big.Int
	ValidAfter  *big.Int
	ValidBefore *big.Int
	Nonce       [32]byte
}

// Payment is a decoded X-PAYMENT header: the envelope and, once parsed, the
// signed authorization.
type Payment struct {
	// X402Version is the header's protocol version (1).
	X402Version int
	// Scheme is the payment scheme ("exact").
	Scheme string
	// Network is the network string the buyer signed for.
	Network string
	// Authorization is the signed transfer.
	Authorization Authorization
	// Signature is the EIP-712 signature: 65 bytes (r, s, v) from an
	// EOA; from a smart-contract wallet whatever its EIP-1271
	// isValidSignature takes, or an ERC-6492 wrapper around that (at most
	// MaxSignatureBytes).
	Signature []byte
	// Asset is the token address from the flat Cronos payload, if given.
	Asset string
	// Value is the amount exactly as the buyer wrote it, for messages.
	Value string
	// Accepted is what a v2 payment says it pays (nil for v1).
	Accepted *RequirementsV2

	payload    json.RawMessage // undecoded payload, or
	parsed     *payloadJSON    // the payload decoded with the envelope
	extensions json.RawMessage // a v2 payload's extensions, undecoded
	raw        string          // the header's JSON, for Fingerprint
}

// envelope is the outer JSON object of the payment header.
type envelope struct {
	X402Version json.RawMessage `json:"x402Version"`
	Scheme      string          `json:"scheme"`
	Network     string          `json:"network"`
	Payload     json.RawMessage `json:"payload"`
	// Accepted is the requirements a v2 payload echoes; its scheme and
	// network are the payment's.
	Accepted *RequirementsV2 `json:"accepted"`
	// Extensions are a v2 payload's extensions, read when asked for
	// (PaymentID), so that an odd one does not spoil the payment.
	Extensions json.RawMessage `json:"extensions"`
}

// fromAccepted takes scheme and network from a v2 payload's accepted.
func (p *Payment) fromAccepted(a *RequirementsV2) error {
	if p.X402Version != Version2 {
		return nil
	}
	if a == nil {
		return invalidPayment("Unsupported x402Version: 2")
	}
	p.Scheme, p.Network, p.Accepted = a.Scheme, a.Network, a
	return nil
}

// authorizationJSON holds the authorization fields as sent: the flat Cronos
// payload carries them beside signature and asset, the x402 reference
// payload nests them under "authorization".
type authorizationJSON struct {
	From        string  `json:"from"`
	To          string  `json:"to"`
	Value       flexNum `json:"value"`
	ValidAfter  flexNum `json:"validAfter"`
	ValidBefore flexNum `json:"validBefore"`
	Nonce       string  `json:"nonce"`
}

type payloadJSON struct {
	authorizationJSON
	Signature     string             `json:"signature"`
	Asset         string             `json:"asset"`
	Authorization *authorizationJSON `json:"authorization"`
	// raw is the payload's JSON text, when the fast decoder read it (for
	// PayloadJSON).
	raw string
}

// flexNum accepts a JSON number or a decimal string and keeps its text.
type flexNum struct {
	text string
	set  bool
}

func (f *flexNum) UnmarshalJSON(b []byte) error {
	if bytes.Equal(b, []byte("null")) {
		return nil
	}
	if len(b) >= 2 && b[0] == '"' && b[len(b)-1] == '"' && bytes.IndexByte(b, '\\') < 0 {
		// A string without escapes (the decoder has checked it is valid
		// JSON) is its bytes between the quotes.
		f.text, f.set = string(b[1:len(b)-1]), true
		return nil
	}
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		f.text, f.set = s, true
		return nil
	}
	// Anything else is kept as written and refused by whoever parses it,
	// so the error can name the field.
	f.text, f.set = string(b), true
	return nil
}

// InvalidPaymentError is a payment header that cannot be accepted; Reason
// is the verify invalidReason text.
type InvalidPaymentError struct{ Reason string }

func (e *InvalidPaymentError) Error() string { return e.Reason }

func invalidPayment(format string, args ...any) error {
	return &InvalidPaymentError{Reason: fmt.Sprintf(format, args...)}
}

// urlSafeToStd maps Base64's URL-safe alphabet to the standard one.
var urlSafeToStd = strings.NewReplacer("-", "+", "_", "/")

// DecodeBase64 decodes an x402 header value (X-PAYMENT, X-PAYMENT-RESPONSE):
// the standard or the URL-safe alphabet, padded or not, surrounding white
// space ignored.
func DecodeBase64(s string) ([]byte, error) {
	return base64.RawStdEncoding.DecodeString(rawStdBase64(s))
}

// DecodeBase64Text is DecodeBase64 as a string, in one allocation for a
// header of common size (up to 2 KiB decoded: copied and decoded on the
// stack, the result copied once).
func DecodeBase64Text(s string) (string, error) {
	var in [2736]byte // the Base64 of 2 KiB
	var buf [2048]byte
	b, err := base64.RawStdEncoding.AppendDecode(buf[:0], append(in[:0], rawStdBase64(s)...))
	return string(b), err
}

// rawStdBase64 is header value s in the standard alphabet without padding
// or surrounding white space, as DecodeBase64 reads it.
func rawStdBase64(s string) string {
	s = strings.TrimRight(strings.TrimSpace(s), "=")
	if strings.IndexByte(s, '-') >= 0 || strings.IndexByte(s, '_') >= 0 {
		s = urlSafeToStd.Replace(s)
	}
	return s
}

// DecodePaymentHeader decodes the envelope of an X-PAYMENT header (Base64
// JSON). The payload is parsed by ParsePayload, so that scheme and network
// are judged before the payload's contents.
func DecodePaymentHeader(header string) (*Payment, error) {
	raw, err := DecodeBase64Text(header)
	if err != nil || len(raw) == 0 {
		return nil, &InvalidPaymentError{Reason: ReasonInvalidBase64}
	}
	// The common shapes decode without reflection (decodeFast); anything
	// else in one pass of encoding/json, and a header whose payload does
	// not fit that is decoded again in two stages, so that scheme and
	// network are judged before the payload's faults.
	if env, pl, ok := decodeFast(raw); ok {
		p := &Payment{parsed: pl, raw: raw}
		if err := p.fromEnvelope(&env); err != nil {
			return nil, err
		}
		return p, nil
	}
	return decodeSlow(raw)
}

// decodeSlow decodes a payment header's JSON with encoding/json.
func decodeSlow(raw string) (*Payment, error) {
	var whole struct {
		envelope
		Payload *payloadJSON `json:"payload"`
	}
	if json.Unmarshal([]byte(raw), &whole) == nil && whole.Payload != nil {
		p := &Payment{parsed: whole.Payload, raw: raw}
		if err := p.fromEnvelope(&whole.envelope); err != nil {
			return nil, err
		}
		return p, nil
	}
	var env envelope
	if err := json.Unmarshal([]byte(raw), &env); err != nil {
		return nil, &InvalidPaymentError{Reason: ReasonInvalidBase64}
	}
	p := &Payment{payload: env.Payload, raw: raw}
	if err := p.fromEnvelope(&env); err != nil {
		return nil, err
	}
	return p, nil
}

// fromEnvelope takes version, scheme and network from a decoded header
// (a v2 payload's from its accepted requirements).
func (p *Payment) fromEnvelope(env *envelope) error {
	p.Scheme, p.Network, p.extensions = env.Scheme, env.Network, env.Extensions
	if err := p.setVersion(env.X402Version); err != nil {
		return err
	}
	return p.fromAccepted(env.Accepted)
}

func (p *Payment) setVersion(v json.RawMessage) error {
	if len(v) == 1 && (v[0] == '1' || v[0] == '2') {
		p.X402Version = int(v[0] - '0')
		return nil
	}
	if len(v) > 0 {
		if err := json.Unmarshal(v, &p.X402Version); err != nil || (p.X402Version != Version1 && p.X402Version != Version2) {
			return invalidPayment("Unsupported x402Version: %s", Clip(string(v), MaxEchoBytes))
		}
	} else {
		p.X402Version = X402Version
	}
	return nil
}

// ParsePayload parses the signed authorization out of the payload, in
// either shape.
func (p *Payment) ParsePayload() error {
	if p.parsed == nil && (len(p.payload) == 0 || bytes.Equal(p.payload, []byte("null"))) {
		return invalidPayment("Invalid payment payload: payload is missing")
	}
	if p.parsed != nil {
		return p.fromJSON(p.parsed)
	}
	var pj payloadJSON
	if p.payload[0] != '{' {
		return invalidPayment("Invalid payment payload: payload must be a JSON object")
	}
	if err := json.Unmarshal(p.payload, &pj); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			field := te.Field[strings.LastIndex(te.Field, ".")+1:]
			return invalidPayment("Invalid payment payload: %s must be a %s", field, JSONKind(te.Type))
		}
		return invalidPayment("Invalid payment payload: payload must be a JSON object")
	}
	return p.fromJSON(&pj)
}

func (p *Payment) fromJSON(pj *payloadJSON) error {
	a := pj.authorizationJSON
	if pj.Authorization != nil {
		a = *pj.Authorization
	}
	p.Asset = pj.Asset
	p.Value = a.Value.text

	var err error
	if p.Authorization.From, err = parseAddress("from", a.From); err != nil {
		return err
	}
	if p.Authorization.To, err = parseAddress("to", a.To); err != nil {
		return err
	}
	if !a.Value.set {
		return invalidPayment("Invalid payment payload: value is missing")
	}
	// The three numbers and their storage in one allocation.
	n := new(authNumbers)
	if p.Authorization.Value, err = parseUint256Into(&n.ints[0], &n.words[0], a.Value.text); err != nil || p.Authorization.Value.Sign() == 0 {
		return invalidPayment("%s", ReasonInvalidAmount(a.Value.text))
	}
	if p.Authorization.ValidAfter, err = parseSeconds("validAfter", a.ValidAfter, &n.ints[1], &n.words[1]); err != nil {
		return err
	}
	if p.Authorization.ValidBefore, err = parseSeconds("validBefore", a.ValidBefore, &n.ints[2], &n.words[2]); err != nil {
		return err
	}
	if !decodeNonce(&p.Authorization.Nonce, a.Nonce) {
		return invalidPayment("Invalid payment payload: nonce must be 32 bytes of 0x-prefixed hex")
	}
	sig, ok := decodeSignature(pj.Signature)
	if !ok {
		return &InvalidPaymentError{Reason: ReasonInvalidSignature}
	}
	p.Signature = sig
	return nil
}

// decodeSignature decodes a 0x-prefixed hex signature of 1 to
// MaxSignatureBytes bytes, as hexutil.Decode with a length check would;
// an EOA's 65 bytes in one allocation.
func decodeSignature(s string) ([]byte, bool) {
	if len(s) == 2+2*65 && (s[:2] == "0x" || s[:2] == "0X") {
		// An EOA's: decoded without hexutil's allocations.
		var digits [2 * 65]byte
		copy(digits[:], s[2:])
		sig := make([]byte, 65)
		if _, err := hex.Decode(sig, digits[:]); err != nil {
			return nil, false
		}
		return sig, true
	}
	// A smart-contract wallet's, of any length up to MaxSignatureBytes.
	sig, err := hexutil.Decode(s)
	if err != nil || len(sig) == 0 || len(sig) > MaxSignatureBytes {
		return nil, false
	}
	return sig, true
}

func parseAddress(field, s string) (common.Address, error) {
	a, ok := ParseAddress(s)
	if !ok {
		return common.Address{}, invalidPayment("Invalid payment payload: %s must be a 0x-prefixed 20-byte hex address", field)
	}
	return a, nil
}

// decodeNonce decodes 0x and 64 hex digits (either case) into n, as
// hexutil.Decode would, without allocating.
func decodeNonce(n *[32]byte, s string) bool {
	if len(s) != 2+64 || (s[:2] != "0x" && s[:2] != "0X") {
		return false
	}
	var digits [64]byte
	copy(digits[:], s[2:])
	_, err := hex.Decode(n[:], digits[:])
	return err == nil
}

// authNumbers holds an authorization's value, validAfter and validBefore.
type authNumbers struct {
	ints  [3]big.Int
	words [3]smallWords
}

func parseSeconds(field string, f flexNum, z *big.Int, words *smallWords) (*big.Int, error) {
	if !f.set {
		return nil, invalidPayment("Invalid payment payload: %s is missing", field)
	}
	v, err := parseUint256Into(z, words, f.text)
	if err != nil {
		return nil, invalidPayment("Invalid payment payload: %s must be Unix seconds as an integer", field)
	}
	return v, nil
}

// PayloadShape chooses how EncodePaymentHeader writes the payload.
type PayloadShape int

const (
	// ShapeCronos is the flat payload of the Cronos facilitator's clients,
	// with validAfter and validBefore as JSON numbers.
	ShapeCronos PayloadShape = iota
	// ShapeX402 is the x402 reference clients' payload: signature plus a
	// nested authorization with every number as a decimal string.
	ShapeX402
)

// checkComplete refuses a payment whose authorization lacks a number the
// encodings write.
func checkComplete(p *Payment) error {
	a := p.Authorization
	if a.Value == nil || a.ValidAfter == nil || a.ValidBefore == nil {
		return errors.New("authorization is missing value, validAfter or validBefore")
	}
	return nil
}

// exactPayload is the exact scheme's payload as the reference v1 header
// and the v2 PaymentPayload carry it: the signature and the authorization
// with its numbers as decimal strings.
func exactPayload(p *Payment) map[string]any {
	a := p.Authorization
	return map[string]any{
		"signature": hexutil.Encode(p.Signature),
		"authorization": map[string]any{
			"from":        a.From.Hex(),
			"to":          a.To.Hex(),
			"value":       a.Value.String(),
			"validAfter":  a.ValidAfter.String(),
			"validBefore": a.ValidBefore.String(),
			"nonce":       hexutil.Encode(a.Nonce[:]),
		},
	}
}

// EncodePaymentHeader writes a signed payment as the Base64 JSON that goes
// in the X-PAYMENT header.
func EncodePaymentHeader(p *Payment, shape PayloadShape) (string, error) {
	if err := checkComplete(p); err != nil {
		return "", err
	}
	a := p.Authorization
	var payload any
	switch shape {
	case ShapeX402:
		payload = exactPayload(p)
	default:
		payload = map[string]any{
			"from":        a.From.Hex(),
			"to":          a.To.Hex(),
			"value":       a.Value.String(),
			"validAfter":  json.Number(a.ValidAfter.String()),
			"validBefore": json.Number(a.ValidBefore.String()),
			"nonce":       hexutil.Encode(a.Nonce[:]),
			"signature":   hexutil.Encode(p.Signature),
			"asset":       p.Asset,
		}
	}
	version := p.X402Version
	if version == 0 {
		version = X402Version
	}
	b, err := json.Marshal(map[string]any{
		"x402Version": version,
		"scheme":      p.Scheme,
		"network":     p.Network,
		"payload":     payload,
	})
	if err != nil {
		return "", err
	}
	return base64.StdEncoding.EncodeToString(b), nil
}
