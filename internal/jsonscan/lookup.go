package jsonscan

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Lookup is the raw value at path in doc (an object key per segment,
// or an array index for a segment of digits), found by scanning: nothing
// off the path is decoded or copied. Of duplicate keys, the last counts.
// It is lenient, for an upstream's answer: only the values on the path
// are checked, what lies between them is skipped by its brackets and
// quotes.
func Lookup(doc []byte, path []string) ([]byte, bool) {
	i := skipWS(doc, 0)
	var ok bool
	for _, seg := range path {
		if i >= len(doc) {
			return nil, false
		}
		switch doc[i] {
		case '{':
			// The last of duplicate keys counts, as common parsers take it
			// (encoding/json, JSON.parse, Python's json): the object is
			// scanned to its end. What follows the last key found is not
			// checked (a document cut after it still reads).
			i++
			found := -1
			for {
				i = skipWS(doc, i)
				if i >= len(doc) || doc[i] != '"' {
					break // '}', or not JSON
				}
				var end int
				if end, ok = skipString(doc, i); !ok {
					break
				}
				key := doc[i:end]
				if i = skipWS(doc, end); i >= len(doc) || doc[i] != ':' {
					break
				}
				i = skipWS(doc, i+1)
				if keyIs(key, seg) {
					found = i
				}
				if i, ok = skipValue(doc, i); !ok {
					break
				}
				if i = skipWS(doc, i); i >= len(doc) || doc[i] != ',' {
					break
				}
				i++
			}
			if found < 0 {
				return nil, false
			}
			i = found
		case '[':
			n, err := strconv.Atoi(seg)
			if err != nil || n < 0 {
				return nil, false
			}
			i++
			for k := 0; ; k++ {
				if i = skipWS(doc, i); i >= len(doc) || doc[i] == ']' {
					return nil, false
				}
				if k == n {
					break
				}
				if i, ok = skipValue(doc, i); !ok {
					return nil, false
				}
				if i = skipWS(doc, i); i >= len(doc) || doc[i] != ',' {
					return nil, false
				}
				i++
			}
		default:
			return nil, false
		}
	}
	end, ok := skipValue(doc, i)
	if !ok || end == i {
		return nil, false
	}
	return doc[i:end], true
}

// keyIs compares a quoted JSON key with a name.
func keyIs(quoted []byte, name string) bool {
	inner := quoted[1 : len(quoted)-1]
	if bytes.IndexByte(inner, '\\') < 0 {
		return string(inner) == name
	}
	var k string
	return json.Unmarshal(quoted, &k) == nil && k == name
}

func skipWS(doc []byte, i int) int {
	for i < len(doc) && (doc[i] == ' ' || doc[i] == '\t' || doc[i] == '\n' || doc[i] == '\r') {
		i++
	}
	return i
}

// skipString is the end of the string that starts at doc[i] ('"').
func skipString(doc []byte, i int) (int, bool) {
	j := i + 1
	for {
		k := bytes.IndexAny(doc[j:], "\"\\")
		if k < 0 {
			return 0, false
		}
		j += k
		if doc[j] == '"' {
			return j + 1, true
		}
		j += 2 // an escape and the byte it escapes
		if j > len(doc) {
			return 0, false
		}
	}
}

// skipValue is the end of the value that starts at doc[i].
func skipValue(doc []byte, i int) (int, bool) {
	if i >= len(doc) {
		return 0, false
	}
	switch doc[i] {
	case '"':
		return skipString(doc, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(doc); {
			k := bytes.IndexAny(doc[j:], "\"{}[]")
			if k < 0 {
				return 0, false
			}
			j += k
			switch doc[j] {
			case '"':
				end, ok := skipString(doc, j)
				if !ok {
					return 0, false
				}
				j = end
				continue
			case '{', '[':
				depth++
			default:
				if depth--; depth == 0 {
					return j + 1, true
				}
			}
			j++
		}
		return 0, false
	}
	j := i
	for j < len(doc) && !strings.ContainsRune(",}] \t\r\n", rune(doc[j])) {
		j++
	}
	return j, true
}

// Unquote decodes a JSON string (with its quotes), as encoding/json does.
func Unquote(quoted []byte) (string, bool) {
	if len(quoted) < 2 || quoted[0] != '"' || quoted[len(quoted)-1] != '"' {
		return "", false
	}
	inner := quoted[1 : len(quoted)-1]
	plain := true
	for _, c := range inner {
		if c == '\\' || c == '"' || c < 0x20 || c >= utf8.RuneSelf {
			plain = false
			break
		}
	}
	if plain {
		return string(inner), true
	}
	var s string
	return s, json.Unmarshal(quoted, &s) == nil
}
