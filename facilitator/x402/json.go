package x402

import (
	"encoding/hex"
	"reflect"
	"strings"

	"github.com/ethereum/go-ethereum/common"
)

// IsAddress reports whether s is an address as the spec writes them: 0x and
// 40 hex digits, in any letter case.
func IsAddress(s string) bool {
	return strings.HasPrefix(s, "0x") && common.IsHexAddress(s)
}

// ParseAddress parses an address as IsAddress accepts it; ok is false for
// anything else. It allocates nothing (verify parses several per request).
func ParseAddress(s string) (a common.Address, ok bool) {
	if len(s) != 2+2*common.AddressLength || !strings.HasPrefix(s, "0x") {
		return common.Address{}, false
	}
	var digits [2 * common.AddressLength]byte
	copy(digits[:], s[2:])
	if _, err := hex.Decode(a[:], digits[:]); err != nil {
		return common.Address{}, false
	}
	return a, true
}

// JSONKind names a Go type by the JSON value it decodes from, for error
// messages about bodies and payloads.
func JSONKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		return "number"
	case reflect.Slice, reflect.Array:
		return "array"
	default:
		return "JSON object"
	}
}
