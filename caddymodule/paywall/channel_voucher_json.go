package paywall

import (
	"strings"
)

// voucherJSON is a voucher header's JSON as the hot path reads it.
type voucherJSON struct {
	version, scheme, network, asset, typ     string
	payer, payerAuth, receiver, receiverAuth string
	token, salt, channelID, max, signature   string
	withdrawDelay                            uint64
	accepted                                 bool // an accepted object was read
}

// scanVoucherJSON reads a voucher header's JSON without reflection, in
// one pass: the fields the hot path needs as their raw text, the other
// fields the general decoder types checked for that type, everything else
// checked for well-formedness and skipped. It gives up (false) on anything
// it is not sure to read as encoding/json would: an escape in a string it
// keeps or in a key, a repeated key, a key that matches a known one only
// in letter case, a field of another JSON type, nesting deeper than 32;
// the general decoder then reads the header.
func scanVoucherJSON(b []byte) (voucherJSON, bool) {
	s := &jsonScan{b: b}
	if !s.obj(objTop) {
		return s.v, false
	}
	s.space()
	v := &s.v
	if s.i != len(s.b) || v.version != "2" || !v.accepted {
		return s.v, false
	}
	// withdrawDelay is a JSON number read into a uint64: digits only.
	if len(s.delay) > 19 || (len(s.delay) > 1 && s.delay[0] == '0') {
		return s.v, false
	}
	for _, c := range []byte(s.delay) {
		if c < '0' || c > '9' {
			return s.v, false
		}
		v.withdrawDelay = v.withdrawDelay*10 + uint64(c-'0')
	}
	return s.v, true
}

// The objects scanVoucherJSON knows, and their keys.
const (
	objOther = iota
	objTop
	objAccepted
	objPayload
	objConfig
	objVoucher
)

var objKeys = [...][]string{
	objTop:      {"x402Version", "scheme", "network", "extensions", "accepted", "payload"},
	objAccepted: {"scheme", "network", "asset", "amount", "payTo", "maxTimeoutSeconds", "extra"},
	objPayload:  {"type", "deposit", "channelConfig", "voucher"},
	objConfig:   {"payer", "payerAuthorizer", "receiver", "receiverAuthorizer", "token", "salt", "withdrawDelay"},
	objVoucher:  {"channelId", "maxClaimableAmount", "signature"},
}

// field reads the value of key k of object o.
func (s *jsonScan) field(o int, k string) bool {
	v := &s.v
	switch o {
	case objTop:
		switch k {
		case "x402Version":
			return s.num(&v.version)
		case "scheme", "network":
			return s.strOrNull()
		case "extensions":
			return s.skip()
		case "accepted":
			v.accepted = true
			return s.obj(objAccepted)
		case "payload":
			return s.obj(objPayload)
		}
	case objAccepted:
		switch k {
		case "scheme":
			return s.str(&v.scheme)
		case "network":
			return s.str(&v.network)
		case "asset":
			return s.str(&v.asset)
		case "amount", "payTo":
			return s.strOrNull()
		case "maxTimeoutSeconds":
			return s.intOrNull()
		case "extra":
			return s.objOrNull()
		}
	case objPayload:
		switch k {
		case "type":
			return s.str(&v.typ)
		case "deposit":
			return s.skip()
		case "channelConfig":
			return s.obj(objConfig)
		case "voucher":
			return s.obj(objVoucher)
		}
	case objConfig:
		switch k {
		case "payer":
			return s.str(&v.payer)
		case "payerAuthorizer":
			return s.str(&v.payerAuth)
		case "receiver":
			return s.str(&v.receiver)
		case "receiverAuthorizer":
			return s.str(&v.receiverAuth)
		case "token":
			return s.str(&v.token)
		case "salt":
			return s.str(&v.salt)
		case "withdrawDelay":
			return s.num(&s.delay)
		}
	case objVoucher:
		switch k {
		case "channelId":
			return s.str(&v.channelID)
		case "maxClaimableAmount":
			return s.str(&v.max)
		case "signature":
			return s.str(&v.signature)
		}
	}
	return false
}

// jsonScan is the cursor of scanVoucherJSON.
type jsonScan struct {
	b     []byte
	i     int
	depth int
	v     voucherJSON
	delay string
}

func (s *jsonScan) space() {
	for s.i < len(s.b) && (s.b[s.i] == ' ' || s.b[s.i] == '\t' || s.b[s.i] == '\n' || s.b[s.i] == '\r') {
		s.i++
	}
}

// obj reads an object o: its known keys (each once) by field; another
// key that differs from a known one only in letter case gives up, any
// other key's value is skipped.
func (s *jsonScan) obj(o int) bool {
	if s.depth++; s.depth > 32 {
		return false
	}
	defer func() { s.depth-- }()
	if s.i >= len(s.b) || s.b[s.i] != '{' {
		return false
	}
	s.i++
	s.space()
	if s.i < len(s.b) && s.b[s.i] == '}' {
		s.i++
		return true
	}
	var seen uint16
	keys := objKeys[o]
	for {
		s.space()
		key, ok := s.plainString()
		if !ok {
			return false
		}
		s.space()
		if s.i >= len(s.b) || s.b[s.i] != ':' {
			return false
		}
		s.i++
		s.space()
		known := -1
		for j, k := range keys {
			if k == key {
				known = j
				break
			}
			if strings.EqualFold(k, key) {
				return false
			}
		}
		switch {
		case known >= 0:
			if seen&(1<<known) != 0 {
				return false // repeated: encoding/json takes the last
			}
			seen |= 1 << known
			if !s.field(o, key) {
				return false
			}
		case !s.skip():
			return false
		}
		s.space()
		if s.i >= len(s.b) {
			return false
		}
		if s.b[s.i] == '}' {
			s.i++
			return true
		}
		if s.b[s.i] != ',' {
			return false
		}
		s.i++
	}
}

// str reads a string without escapes into dst.
func (s *jsonScan) str(dst *string) bool {
	v, ok := s.plainString()
	*dst = v
	return ok
}

// num reads a number's text into dst.
func (s *jsonScan) num(dst *string) bool {
	start := s.i
	if !s.number() {
		return false
	}
	*dst = string(s.b[start:s.i])
	return true
}

// strOrNull checks and skips a string or null.
func (s *jsonScan) strOrNull() bool {
	if s.i < len(s.b) && s.b[s.i] == 'n' {
		return s.literal("null")
	}
	return s.i < len(s.b) && s.b[s.i] == '"' && s.skipString()
}

// intOrNull checks and skips an integer (into an int64) or null.
func (s *jsonScan) intOrNull() bool {
	if s.i < len(s.b) && s.b[s.i] == 'n' {
		return s.literal("null")
	}
	start := s.i
	if !s.number() {
		return false
	}
	n := s.b[start:s.i]
	return len(n) <= 18 && !strings.ContainsAny(string(n), ".eE")
}

// objOrNull checks and skips an object or null.
func (s *jsonScan) objOrNull() bool {
	if s.i < len(s.b) && s.b[s.i] == 'n' {
		return s.literal("null")
	}
	return s.i < len(s.b) && s.b[s.i] == '{' && s.obj(objOther)
}

// plainString reads a string without escapes or control characters.
func (s *jsonScan) plainString() (string, bool) {
	if s.i >= len(s.b) || s.b[s.i] != '"' {
		return "", false
	}
	start := s.i + 1
	for j := start; j < len(s.b); j++ {
		switch c := s.b[j]; {
		case c == '"':
			s.i = j + 1
			return string(s.b[start:j]), true
		case c == '\\' || c < 0x20:
			return "", false
		}
	}
	return "", false
}

// skip checks and skips any value.
func (s *jsonScan) skip() bool {
	if s.i >= len(s.b) {
		return false
	}
	switch c := s.b[s.i]; {
	case c == '{':
		return s.obj(objOther)
	case c == '[':
		if s.depth++; s.depth > 32 {
			return false
		}
		defer func() { s.depth-- }()
		s.i++
		s.space()
		if s.i < len(s.b) && s.b[s.i] == ']' {
			s.i++
			return true
		}
		for {
			s.space()
			if !s.skip() {
				return false
			}
			s.space()
			if s.i >= len(s.b) {
				return false
			}
			if s.b[s.i] == ']' {
				s.i++
				return true
			}
			if s.b[s.i] != ',' {
				return false
			}
			s.i++
		}
	case c == '"':
		return s.skipString()
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	case c == 'n':
		return s.literal("null")
	}
	return s.number()
}

func (s *jsonScan) literal(l string) bool {
	if !strings.HasPrefix(string(s.b[s.i:min(len(s.b), s.i+len(l))]), l) {
		return false
	}
	s.i += len(l)
	return true
}

// skipString skips a string, escapes checked.
func (s *jsonScan) skipString() bool {
	for j := s.i + 1; j < len(s.b); j++ {
		switch c := s.b[j]; {
		case c == '"':
			s.i = j + 1
			return true
		case c < 0x20:
			return false
		case c == '\\':
			j++
			if j >= len(s.b) {
				return false
			}
			switch s.b[j] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if j+4 >= len(s.b) {
					return false
				}
				for _, h := range s.b[j+1 : j+5] {
					if !isHexDigit(h) {
						return false
					}
				}
				j += 4
			default:
				return false
			}
		}
	}
	return false
}

// number skips a JSON number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (s *jsonScan) number() bool {
	b, i := s.b, s.i
	if i < len(b) && b[i] == '-' {
		i++
	}
	digits := func() bool {
		start := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		return i > start
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case !digits():
		return false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if !digits() {
			return false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if !digits() {
			return false
		}
	}
	s.i = i
	return true
}

func isHexDigit(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}
