package x402

import (
	"encoding/base64"
	"errors"
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
)

var flatPayload = `{"x402Version":1,"scheme":"exact","network":"cronos-testnet","payload":{
 "from":"0x1111111111111111111111111111111111111111","to":"0x2222222222222222222222222222222222222222",
 "value":"10000","validAfter":0,"validBefore":1900000000,
 "nonce":"0x0102030000000000000000000000000000000000000000000000000000000000",
 "signature":"0x` + sig65 + `","asset":"0xc01efAaF7C5C61bEbFAeb358E1161b537b8bC0e0"}}`

var nestedPayload = `{"x402Version":1,"scheme":"exact","network":"cronos-testnet","payload":{
 "signature":"0x` + sig65 + `",
 "authorization":{"from":"0x1111111111111111111111111111111111111111","to":"0x2222222222222222222222222222222222222222",
 "value":"10000","validAfter":"0","validBefore":"1900000000",
 "nonce":"0x0102030000000000000000000000000000000000000000000000000000000000"}}}`

var sig65 = strings.Repeat("ab", 65)

func TestDecodePaymentHeaderEncodings(t *testing.T) {
	raw := []byte(flatPayload)
	for _, tc := range []struct {
		name, header string
	}{
		{"std padded", base64.StdEncoding.EncodeToString(raw)},
		{"std raw", base64.RawStdEncoding.EncodeToString(raw)},
		{"url padded", base64.URLEncoding.EncodeToString(raw)},
		{"url raw", base64.RawURLEncoding.EncodeToString(raw)},
		{"surrounding space", "  " + base64.StdEncoding.EncodeToString(raw) + "\n"},
		{"nested shape", base64.StdEncoding.EncodeToString([]byte(nestedPayload))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := DecodePaymentHeader(tc.header)
			if err != nil {
				t.Fatal(err)
			}
			if err := p.ParsePayload(); err != nil {
				t.Fatal(err)
			}
			a := p.Authorization
			if a.From.Hex() != "0x1111111111111111111111111111111111111111" || a.Value.String() != "10000" ||
				a.ValidAfter.Sign() != 0 || a.ValidBefore.String() != "1900000000" || a.Nonce[2] != 3 || len(p.Signature) != 65 {
				t.Fatalf("decoded %+v", a)
			}
		})
	}
}

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

func TestDecodePaymentHeaderErrors(t *testing.T) {
	replace := func(old, new string) string { return b64(strings.Replace(flatPayload, old, new, 1)) }
	for _, tc := range []struct {
		name, header, reason string
	}{
		{"not base64", "!!!not base64!!!", ReasonInvalidBase64},
		{"empty", "", ReasonInvalidBase64},
		{"base64 of garbage", b64("hello"), ReasonInvalidBase64},
		{"base64 of array", b64("[1,2]"), ReasonInvalidBase64},
		{"version 2", replace(`"x402Version":1`, `"x402Version":2`), "Unsupported x402Version: 2"},
		{"version of 5,000 bytes", replace(`"x402Version":1`, `"x402Version":"`+strings.Repeat("v", 5000)+`"`), "Unsupported x402Version: \"" + strings.Repeat("v", 79) + "…"},
		{"value past uint256", replace(`"value":"10000"`, `"value":"`+strings.Repeat("9", 80)+`"`), "Invalid amount: " + strings.Repeat("9", 80)},
		{"value 2^256", replace(`"value":"10000"`, `"value":"115792089237316195423570985008687907853269984665640564039457584007913129639936"`), "Invalid amount: 115792089237316195423570985008687907853269984665640564039457584007913129639936"},
		{"value zero", replace(`"value":"10000"`, `"value":"0"`), "Invalid amount: 0"},
		{"value negative", replace(`"value":"10000"`, `"value":"-5"`), "Invalid amount: -5"},
		{"value decimal", replace(`"value":"10000"`, `"value":"1.5"`), "Invalid amount: 1.5"},
		{"value leading zero", replace(`"value":"10000"`, `"value":"010000"`), "Invalid amount: 010000"},
		{"value exponent number", replace(`"value":"10000"`, `"value":1e4`), "Invalid amount: 1e4"},
		{"value missing", replace(`"value":"10000",`, ``), "Invalid payment payload: value is missing"},
		{"from bad", replace(`"from":"0x1111111111111111111111111111111111111111"`, `"from":"0x11"`), "Invalid payment payload: from must be a 0x-prefixed 20-byte hex address"},
		{"to not hex", replace(`"to":"0x2222222222222222222222222222222222222222"`, `"to":"0xZZ22222222222222222222222222222222222222"`), "Invalid payment payload: to must be a 0x-prefixed 20-byte hex address"},
		{"nonce short", replace(`"nonce":"0x0102030000000000000000000000000000000000000000000000000000000000"`, `"nonce":"0x0102"`), "Invalid payment payload: nonce must be 32 bytes of 0x-prefixed hex"},
		{"nonce not hex", replace(`"nonce":"0x0102030000000000000000000000000000000000000000000000000000000000"`, `"nonce":"0xgg02030000000000000000000000000000000000000000000000000000000000"`), "Invalid payment payload: nonce must be 32 bytes of 0x-prefixed hex"},
		// Any other length may be a smart-contract wallet's signature.
		{"signature empty", replace(sig65, ""), ReasonInvalidSignature},
		{"signature too long", replace(sig65, strings.Repeat("ab", MaxSignatureBytes+1)), ReasonInvalidSignature},
		{"signature not hex", replace(sig65, strings.Repeat("zz", 65)), ReasonInvalidSignature},
		{"validBefore text", replace(`"validBefore":1900000000`, `"validBefore":"soon"`), "Invalid payment payload: validBefore must be Unix seconds as an integer"},
		{"validAfter negative", replace(`"validAfter":0`, `"validAfter":-1`), "Invalid payment payload: validAfter must be Unix seconds as an integer"},
		{"validBefore fractional", replace(`"validBefore":1900000000`, `"validBefore":1900000000.5`), "Invalid payment payload: validBefore must be Unix seconds as an integer"},
		{"validAfter bool", replace(`"validAfter":0`, `"validAfter":true`), "Invalid payment payload: validAfter must be Unix seconds as an integer"},
		{"payload missing", b64(`{"x402Version":1,"scheme":"exact","network":"cronos-testnet"}`), "Invalid payment payload: payload is missing"},
		{"payload wrong type", b64(`{"x402Version":1,"scheme":"exact","network":"cronos-testnet","payload":"x"}`), "Invalid payment payload: payload must be a JSON object"},
		{"from wrong type", replace(`"from":"0x1111111111111111111111111111111111111111"`, `"from":12`), "Invalid payment payload: from must be a string"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := DecodePaymentHeader(tc.header)
			if err == nil {
				err = p.ParsePayload()
			}
			var ip *InvalidPaymentError
			if !errors.As(err, &ip) {
				t.Fatalf("error %v, want InvalidPaymentError %q", err, tc.reason)
			}
			if ip.Reason != tc.reason {
				t.Fatalf("reason %q, want %q", ip.Reason, tc.reason)
			}
		})
	}
}

func TestEncodeDecodeRoundTrip(t *testing.T) {
	for _, shape := range []PayloadShape{ShapeCronos, ShapeX402} {
		a := Authorization{
			From: common.HexToAddress("0x1111111111111111111111111111111111111111"), To: common.HexToAddress("0x2222222222222222222222222222222222222222"),
			Value: big.NewInt(10000), ValidAfter: big.NewInt(0), ValidBefore: big.NewInt(1900000000), Nonce: [32]byte{1, 2, 3},
		}
		p := &Payment{Scheme: SchemeExact, Network: "cronos-testnet", Authorization: a,
			Signature: make([]byte, 65), Asset: "0xc01efAaF7C5C61bEbFAeb358E1161b537b8bC0e0"}
		h, err := EncodePaymentHeader(p, shape)
		if err != nil {
			t.Fatal(err)
		}
		q, err := DecodePaymentHeader(h)
		if err != nil {
			t.Fatal(err)
		}
		if err := q.ParsePayload(); err != nil {
			t.Fatal(err)
		}
		if q.Authorization.Value.Cmp(p.Authorization.Value) != 0 || q.Authorization.Nonce != p.Authorization.Nonce ||
			q.Authorization.ValidBefore.Cmp(p.Authorization.ValidBefore) != 0 || q.Network != p.Network {
			t.Fatalf("shape %d: round trip changed the payment: %+v", shape, q.Authorization)
		}
	}
}

func TestParsePrice(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want string
		err  bool
	}{
		{"0.01", "10000", false},
		{"1", "1000000", false},
		{"1.5", "1500000", false},
		{".5", "500000", false},
		{"0.000001", "1", false},
		{"0.0000010", "1", false},
		{"0.0000001", "", true},
		{"0", "", true},
		{"-1", "", true},
		{"1e3", "", true},
		{"", "", true},
		{".", "", true},
		{"1.", "", true},
		{"abc", "", true},
		{strings.Repeat("9", 80), "", true},
	} {
		got, err := ParsePrice(tc.in, 6)
		if tc.err {
			if err == nil {
				t.Errorf("ParsePrice(%q) = %s, want an error", tc.in, got)
			}
			continue
		}
		if err != nil || got.String() != tc.want {
			t.Errorf("ParsePrice(%q) = %v, %v; want %s", tc.in, got, err, tc.want)
		}
	}
}
