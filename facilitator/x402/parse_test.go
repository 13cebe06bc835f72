package x402

import (
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
)

// TestParseAddress: ParseAddress accepts exactly what IsAddress does and
// gives what common.HexToAddress gives.
func TestParseAddress(t *testing.T) {
	for _, s := range []string{
		"0x2222222222222222222222222222222222222222",
		"0xc01efAaF7C5C61bEbFAeb358E1161b537b8bC0e0",
		"0xC01EFAAF7C5C61BEBFAEB358E1161B537B8BC0E0",
		"0X2222222222222222222222222222222222222222",
		"2222222222222222222222222222222222222222",
		"0x222222222222222222222222222222222222222",
		"0x22222222222222222222222222222222222222222",
		"0x222222222222222222222222222222222222222g",
		"",
		"0x",
	} {
		a, ok := ParseAddress(s)
		if ok != IsAddress(s) {
			t.Fatalf("ParseAddress(%q) ok = %v, IsAddress says %v", s, ok, IsAddress(s))
		}
		if ok && a != common.HexToAddress(s) {
			t.Fatalf("ParseAddress(%q) = %s, want %s", s, a, common.HexToAddress(s))
		}
	}
}

// TestDecodeNonce: decodeNonce accepts exactly 32 bytes of 0x hex, as
// hexutil.Decode with a length check did.
func TestDecodeNonce(t *testing.T) {
	good := "0x" + "00112233445566778899aabbccddeeff00112233445566778899AABBCCDDEEFF"
	for _, s := range []string{good, good[:65], good + "0", "0X" + good[2:], good[2:] + "00", "0x" + good[3:] + "g", ""} {
		var n [32]byte
		ok := decodeNonce(&n, s)
		b, err := hexutil.Decode(s)
		want := err == nil && len(b) == 32
		if ok != want {
			t.Fatalf("decodeNonce(%q) = %v, hexutil.Decode says %v (%v)", s, ok, want, err)
		}
		if ok && string(n[:]) != string(b) {
			t.Fatalf("decodeNonce(%q) = %x, want %x", s, n, b)
		}
	}
}

// TestParseUint256Bounds: the uint64 fast path and the big-number path
// meet at 19 and 20 digits.
func TestParseUint256Bounds(t *testing.T) {
	for _, tc := range []struct {
		s    string
		want string // "" for an error
	}{
		{"0", "0"},
		{"9999999999999999999", "9999999999999999999"},
		{"10000000000000000000", "10000000000000000000"},
		{"18446744073709551616", "18446744073709551616"},
		{MaxUint256.String(), MaxUint256.String()},
		{new(big.Int).Add(MaxUint256, big.NewInt(1)).String(), ""},
		{"01", ""},
		{"+1", ""},
		{"-1", ""},
		{"1e3", ""},
	} {
		v, err := parseUint256(tc.s)
		switch {
		case tc.want == "" && err == nil:
			t.Fatalf("parseUint256(%q) = %s, want an error", tc.s, v)
		case tc.want != "" && (err != nil || v.String() != tc.want):
			t.Fatalf("parseUint256(%q) = %v, %v; want %s", tc.s, v, err, tc.want)
		}
	}
}
