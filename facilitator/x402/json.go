package x402

import (
	"reflect"
	"strings"

	"github.com/ethereum/go-ethereum/common"
)

// IsAddress reports whether s is an address as the spec writes them: 0x and
// 40 hex digits, in any letter case.
func IsAddress(s string) bool {
	return strings.HasPrefix(s, "0x") && common.IsHexAddress(s)
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
