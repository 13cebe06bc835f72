package x402

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// v2Payload is a PAYMENT-SIGNATURE payload as @x402/fetch 2.x writes it.
var v2Payload = `{"x402Version":2,"resource":{"url":"http://127.0.0.1/api","description":"Paid API","mimeType":"application/json"},
 "accepted":{"scheme":"exact","network":"eip155:338","amount":"10000","asset":"0xc01efAaF7C5C61bEbFAeb358E1161b537b8bC0e0",
  "payTo":"0x2222222222222222222222222222222222222222","maxTimeoutSeconds":300,"extra":{"name":"Bridged USDC (Stargate)","version":"1"}},
 "payload":{"signature":"0x` + sig65 + `","authorization":{"from":"0x1111111111111111111111111111111111111111",
  "to":"0x2222222222222222222222222222222222222222","value":"10000","validAfter":"0","validBefore":"1900000000",
  "nonce":"0x0102030000000000000000000000000000000000000000000000000000000000"}},
 "extensions":{"payment-identifier":{"info":{"required":true,"id":"pay_0123456789abcdef"},"schema":{"type":"object","n":[1,2.5e3,-0.5,true,false,null,[]]}}}}`

// slowWhole is what the encoding/json path decodes a header's JSON into.
type slowWhole struct {
	envelope
	Payload *payloadJSON `json:"payload"`
}

// checkFast holds decodeFast to encoding/json on raw: when it takes the
// input, encoding/json takes it too, with the same result. It reports
// whether decodeFast took it.
func checkFast(t *testing.T, raw []byte) bool {
	t.Helper()
	env, pl, ok := decodeFast(string(raw))
	if !ok {
		return false
	}
	var whole slowWhole
	if err := json.Unmarshal(raw, &whole); err != nil || whole.Payload == nil {
		t.Fatalf("decodeFast took %q, which encoding/json refuses (%v) or reads without a payload", raw, err)
	}
	// The payload's text (for PayloadJSON) is the fast decoder's alone:
	// it must be the payload object as written.
	var rawPayload struct {
		Payload json.RawMessage `json:"payload"`
	}
	if err := json.Unmarshal(raw, &rawPayload); err != nil || pl.raw != string(rawPayload.Payload) {
		t.Fatalf("decodeFast(%q) kept payload text %q, want %q", raw, pl.raw, rawPayload.Payload)
	}
	pl.raw = ""
	if !reflect.DeepEqual(env, whole.envelope) || !reflect.DeepEqual(pl, whole.Payload) {
		t.Fatalf("decodeFast(%q) =\n%#v\n%#v\nencoding/json:\n%#v\n%#v", raw, env, pl, whole.envelope, whole.Payload)
	}
	return true
}

// outcome is what a caller sees of a decoded header: the payment's fields
// after ParsePayload, its payment id, or the errors.
func outcome(p *Payment, err error) string {
	if err != nil {
		return "decode: " + err.Error()
	}
	perr := p.ParsePayload()
	id, iderr := p.PaymentID()
	a := p.Authorization
	return fmt.Sprintf("v%d %q %q accepted=%+v parse=%v from=%s to=%s value=%v after=%v before=%v nonce=%x sig=%x asset=%q text=%q id=%q/%v fp=%s",
		p.X402Version, p.Scheme, p.Network, p.Accepted, perr, a.From, a.To, a.Value, a.ValidAfter, a.ValidBefore, a.Nonce, p.Signature, p.Asset, p.Value, id, iderr, p.Fingerprint())
}

// checkHeader holds DecodePaymentHeader (fast path first) to decodeSlow.
func checkHeader(t *testing.T, raw []byte) {
	t.Helper()
	got := outcome(DecodePaymentHeader(base64.StdEncoding.EncodeToString(raw)))
	want := outcome(decodeSlow(string(raw)))
	if got != want {
		t.Fatalf("DecodePaymentHeader(%q):\n%s\nencoding/json path:\n%s", raw, got, want)
	}
}

// TestDecodeFast: the three shapes are read without encoding/json, and so
// are harmless variations (key order, white space, unknown keys, numbers
// or strings for numbers, non-ASCII text); whatever decodeFast is not sure
// to read as encoding/json does goes to encoding/json. Either way the
// result is encoding/json's.
func TestDecodeFast(t *testing.T) {
	flat := func(old, new string) string { return strings.Replace(flatPayload, old, new, 1) }
	v2 := func(old, new string) string { return strings.Replace(v2Payload, old, new, 1) }
	for _, tc := range []struct {
		name string
		json string
		fast bool
	}{
		{"flat", flatPayload, true},
		{"nested", nestedPayload, true},
		{"v2", v2Payload, true},
		{"key order", `{"payload":{"asset":"a","signature":"s","nonce":"n","validBefore":2,"validAfter":1,"value":"3","to":"t","from":"f"},"network":"cronos-testnet","scheme":"exact","x402Version":1}`, true},
		{"white space", " \t\r\n{ \"x402Version\" : 1 ,\n\"scheme\":\"exact\" ,\"network\":\"n\",\"payload\": { \"value\" : 10 } } \n", true},
		{"no white space", `{"x402Version":1,"scheme":"exact","network":"n","payload":{"value":10}}`, true},
		{"unknown keys skipped", flat(`"scheme"`, `"extra":{"a":[1,{"b":null}],"c":"d"},"scheme"`), true},
		{"numbers as strings", flat(`"validAfter":0,"validBefore":1900000000`, `"validAfter":"0","validBefore":"1900000000"`), true},
		{"strings as numbers", flat(`"value":"10000"`, `"value":10000`), true},
		{"number with fraction and exponent", flat(`"value":"10000"`, `"value":-1.5E+3`), true},
		{"unicode in a string", flat(`"network":"cronos-testnet"`, `"network":"crönos-tëstnet ✓"`), true},
		{"unicode in an unknown key", flat(`"scheme"`, `"schème":1,"scheme"`), false},
		{"empty payload", `{"x402Version":1,"scheme":"exact","network":"n","payload":{}}`, true},
		{"version 3", flat(`"x402Version":1`, `"x402Version":3`), true},
		{"version as a string", flat(`"x402Version":1`, `"x402Version":"1"`), false},
		{"version missing", flat(`"x402Version":1,`, ``), true},
		{"escape in a string", flat(`"network":"cronos-testnet"`, `"network":"cronos\u002dtestnet"`), false},
		{"escaped quote", flat(`"scheme":"exact"`, `"scheme":"ex\"act"`), false},
		{"escape in a key", flat(`"scheme"`, `"sch\u0065me"`), false},
		{"escape in a skipped value", flat(`"scheme"`, `"x":"\n","scheme"`), false},
		{"invalid UTF-8", flat(`"network":"cronos-testnet"`, "\"network\":\"cronos\xff\""), false},
		{"control character", flat(`"network":"cronos-testnet"`, "\"network\":\"cronos\x01\""), false},
		{"duplicate key", flat(`"scheme":"exact"`, `"scheme":"exact","scheme":"upto"`), false},
		{"duplicate payload", flatPayload[:len(flatPayload)-1] + `,"payload":{"value":"1"}}`, false},
		{"duplicate payload field", flat(`"value":"10000"`, `"value":"10000","value":"5"`), false},
		{"duplicate extra key", v2(`"version":"1"`, `"version":"1","name":"x"`), false},
		{"key in another case", flat(`"scheme"`, `"Scheme"`), false},
		{"payload key in another case", flat(`"value"`, `"VALUE"`), false},
		{"null scheme", flat(`"scheme":"exact"`, `"scheme":null`), false},
		{"null payload", `{"x402Version":1,"scheme":"exact","network":"n","payload":null}`, false},
		{"null value", flat(`"value":"10000"`, `"value":null`), false},
		{"null extensions", v2(`"extensions":{`, `"extensions":null,"x":{`), false},
		{"no payload", `{"x402Version":1,"scheme":"exact","network":"n"}`, false},
		{"value true", flat(`"value":"10000"`, `"value":true`), false},
		{"value object", flat(`"value":"10000"`, `"value":{}`), false},
		{"scheme a number", flat(`"scheme":"exact"`, `"scheme":5`), false},
		{"leading zero", flat(`"validBefore":1900000000`, `"validBefore":01`), false},
		{"maxTimeoutSeconds fraction", v2(`"maxTimeoutSeconds":300`, `"maxTimeoutSeconds":300.5`), false},
		{"maxTimeoutSeconds past int64", v2(`"maxTimeoutSeconds":300`, `"maxTimeoutSeconds":9223372036854775808`), false},
		{"maxTimeoutSeconds negative", v2(`"maxTimeoutSeconds":300`, `"maxTimeoutSeconds":-1`), true},
		{"extra number", v2(`"version":"1"`, `"version":1`), false},
		{"empty extra", v2(`{"name":"Bridged USDC (Stargate)","version":"1"}`, `{}`), true},
		{"trailing comma", flat(`"scheme":"exact",`, `"scheme":"exact",,`), false},
		{"trailing text", flatPayload + "x", false},
		{"two objects", flatPayload + flatPayload, false},
		{"array", `[` + flatPayload + `]`, false},
		{"truncated", flatPayload[:len(flatPayload)-2], false},
		{"deep unknown value", flat(`"scheme"`, `"x":`+strings.Repeat("[", 40)+strings.Repeat("]", 40)+`,"scheme"`), false},
		{"nested unknown value", flat(`"scheme"`, `"x":`+strings.Repeat("[", 20)+strings.Repeat("]", 20)+`,"scheme"`), true},
		{"huge value", flat(`"value":"10000"`, `"value":"`+strings.Repeat("9", 100000)+`"`), true},
		{"huge unknown", flat(`"scheme"`, `"x":"`+strings.Repeat("x", 1<<20)+`","scheme"`), true},
		{"literal typo", flat(`"scheme"`, `"x":nul,"scheme"`), false},
		{"empty", ``, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := checkFast(t, []byte(tc.json)); got != tc.fast {
				t.Errorf("decodeFast took it: %v, want %v", got, tc.fast)
			}
			checkHeader(t, []byte(tc.json))
		})
	}
}

// FuzzDecodeFast holds decodeFast, and DecodePaymentHeader with it, to the
// encoding/json path on any JSON text.
func FuzzDecodeFast(f *testing.F) {
	for _, s := range []string{flatPayload, nestedPayload, v2Payload, `{"payload":{}}`, `{"Payload":{"VALUE":1}}`, `{"payload":{"value":"\u0031"}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		checkFast(t, raw)
		if len(raw) > 0 {
			checkHeader(t, raw)
		}
	})
}
