package x402

import (
	"encoding/json"
	"strconv"
	"unicode/utf8"
)

// The payment header's JSON without reflection.
//
// Nearly every payment header has one of three shapes: the flat Cronos
// payload, the x402 reference v1 payload (signature and a nested
// authorization) and the v2 PaymentPayload (resource, accepted, payload,
// extensions). decodeFast reads those in one pass over the text, with
// every string a slice of one copy of it, and gives up (ok false) on
// anything it cannot read exactly as encoding/json reads it into the
// decoder's structs: an escape in a string, a string that is not UTF-8, a
// null, a key given twice, a key that differs from a field's name only in
// letter case (encoding/json matches those), a value of another type than
// the field's, nesting past maxFastDepth. DecodePaymentHeader then decodes
// the header with encoding/json, as before; FuzzDecodeFast holds the two
// to the same result on any input.

// maxFastDepth bounds the nesting of values decodeFast skips.
const maxFastDepth = 32

// fastDecoder reads one JSON text.
type fastDecoder struct {
	s string
	i int
}

// decodeFast decodes a payment header's JSON as
//
//	var whole struct {
//		envelope
//		Payload *payloadJSON `json:"payload"`
//	}
//	json.Unmarshal(raw, &whole)
//
// does when that succeeds with a payload, or reports ok false.
func decodeFast(raw string) (env envelope, pl *payloadJSON, ok bool) {
	d := fastDecoder{s: raw}
	const (
		seenVersion = 1 << iota
		seenScheme
		seenNetwork
		seenPayload
		seenAccepted
		seenExtensions
	)
	var seen int
	if !d.open() {
		return env, nil, false
	}
	for n := 0; ; n++ {
		key, end, ok := d.member(n)
		if !ok {
			return env, nil, false
		}
		if end {
			break
		}
		var bit int
		switch key {
		case "x402Version":
			bit = seenVersion
			v, ok := d.number()
			if !ok {
				return env, nil, false
			}
			env.X402Version = json.RawMessage(v)
		case "scheme":
			bit = seenScheme
			if env.Scheme, ok = d.text(); !ok {
				return env, nil, false
			}
		case "network":
			bit = seenNetwork
			if env.Network, ok = d.text(); !ok {
				return env, nil, false
			}
		case "payload":
			bit = seenPayload
			d.space()
			start := d.i
			if pl, ok = d.payload(); !ok {
				return env, nil, false
			}
			pl.raw = d.s[start:d.i]
		case "accepted":
			bit = seenAccepted
			if env.Accepted, ok = d.accepted(); !ok {
				return env, nil, false
			}
		case "extensions":
			bit = seenExtensions
			d.space()
			start := d.i
			if !d.skip(0) || d.s[start] == 'n' { // null: encoding/json leaves the field nil
				return env, nil, false
			}
			env.Extensions = json.RawMessage(d.s[start:d.i])
		default:
			if foldsTo(key, "x402Version", "scheme", "network", "payload", "accepted", "extensions") || !d.skip(0) {
				return env, nil, false
			}
		}
		if seen&bit != 0 {
			return env, nil, false
		}
		seen |= bit
	}
	d.space()
	if d.i != len(d.s) || pl == nil {
		return env, nil, false
	}
	return env, pl, true
}

// payload reads the payload object, in either shape.
func (d *fastDecoder) payload() (*payloadJSON, bool) {
	pl := new(payloadJSON)
	if !d.open() {
		return nil, false
	}
	var seen int
	for n := 0; ; n++ {
		key, end, ok := d.member(n)
		if !ok {
			return nil, false
		}
		if end {
			return pl, true
		}
		var bit int
		switch key {
		case "signature":
			bit = 1 << 6
			pl.Signature, ok = d.text()
		case "asset":
			bit = 1 << 7
			pl.Asset, ok = d.text()
		case "authorization":
			bit = 1 << 8
			pl.Authorization = new(authorizationJSON)
			ok = d.authorization(pl.Authorization)
		default:
			bit, ok = d.authorizationField(&pl.authorizationJSON, key)
			if bit == 0 {
				if foldsTo(key, "signature", "asset", "authorization") {
					return nil, false
				}
				ok = ok && d.skip(0)
			}
		}
		if !ok || seen&bit != 0 {
			return nil, false
		}
		seen |= bit
	}
}

// authorization reads a nested authorization object into a.
func (d *fastDecoder) authorization(a *authorizationJSON) bool {
	if !d.open() {
		return false
	}
	var seen int
	for n := 0; ; n++ {
		key, end, ok := d.member(n)
		if !ok {
			return false
		}
		if end {
			return true
		}
		bit, ok := d.authorizationField(a, key)
		if bit == 0 && ok {
			ok = d.skip(0)
		}
		if !ok || seen&bit != 0 {
			return false
		}
		seen |= bit
	}
}

// authorizationField reads the value of key when it is a field of
// authorizationJSON and returns its bit; bit 0 for another key (not
// read), with ok false when the key differs from a field's name only in
// letter case.
func (d *fastDecoder) authorizationField(a *authorizationJSON, key string) (bit int, ok bool) {
	switch key {
	case "from":
		a.From, ok = d.text()
		return 1 << 0, ok
	case "to":
		a.To, ok = d.text()
		return 1 << 1, ok
	case "value":
		return 1 << 2, d.flexNum(&a.Value)
	case "validAfter":
		return 1 << 3, d.flexNum(&a.ValidAfter)
	case "validBefore":
		return 1 << 4, d.flexNum(&a.ValidBefore)
	case "nonce":
		a.Nonce, ok = d.text()
		return 1 << 5, ok
	}
	return 0, !foldsTo(key, "from", "to", "value", "validAfter", "validBefore", "nonce")
}

// flexNum reads a decimal string (without escapes) or a number as
// flexNum.UnmarshalJSON keeps it.
func (d *fastDecoder) flexNum(f *flexNum) bool {
	var ok bool
	if d.peek() == '"' {
		f.text, ok = d.text()
	} else {
		f.text, ok = d.number()
	}
	f.set = ok
	return ok
}

// accepted reads a v2 payload's accepted requirements.
func (d *fastDecoder) accepted() (*RequirementsV2, bool) {
	r := new(RequirementsV2)
	if !d.open() {
		return nil, false
	}
	var seen int
	for n := 0; ; n++ {
		key, end, ok := d.member(n)
		if !ok {
			return nil, false
		}
		if end {
			return r, true
		}
		var bit int
		switch key {
		case "scheme":
			bit = 1 << 0
			r.Scheme, ok = d.text()
		case "network":
			bit = 1 << 1
			r.Network, ok = d.text()
		case "amount":
			bit = 1 << 2
			r.Amount, ok = d.text()
		case "asset":
			bit = 1 << 3
			r.Asset, ok = d.text()
		case "payTo":
			bit = 1 << 4
			r.PayTo, ok = d.text()
		case "maxTimeoutSeconds":
			bit = 1 << 5
			var v string
			if v, ok = d.number(); ok {
				// encoding/json takes what strconv.ParseInt takes, and
				// refuses a fraction, an exponent or an overflow.
				var err error
				r.MaxTimeoutSeconds, err = strconv.ParseInt(v, 10, 64)
				ok = err == nil
			}
		case "extra":
			bit = 1 << 6
			r.Extra, ok = d.stringMap()
		default:
			if foldsTo(key, "scheme", "network", "amount", "asset", "payTo", "maxTimeoutSeconds", "extra") {
				return nil, false
			}
			ok = d.skip(0)
		}
		if !ok || seen&bit != 0 {
			return nil, false
		}
		seen |= bit
	}
}

// stringMap reads an object whose values are all strings (the EIP-712
// name and version of accepted.extra) as encoding/json reads it into a
// map[string]any.
func (d *fastDecoder) stringMap() (map[string]any, bool) {
	if !d.open() {
		return nil, false
	}
	m := map[string]any{}
	for n := 0; ; n++ {
		key, end, ok := d.member(n)
		if !ok {
			return nil, false
		}
		if end {
			return m, true
		}
		if _, dup := m[key]; dup {
			return nil, false
		}
		v, ok := d.text()
		if !ok {
			return nil, false
		}
		m[key] = v
	}
}

// foldsTo reports whether key is, but for letter case, one of names
// (encoding/json would take it for that field): a key that is not ASCII
// counts as one, to be safe (encoding/json folds some other letters too).
func foldsTo(key string, names ...string) bool {
	for i := 0; i < len(key); i++ {
		if key[i] >= utf8.RuneSelf {
			return true
		}
	}
	for _, n := range names {
		if len(n) != len(key) {
			continue
		}
		same := true
		for i := 0; i < len(n) && same; i++ {
			same = lower(n[i]) == lower(key[i])
		}
		if same {
			return true
		}
	}
	return false
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// space skips JSON white space.
func (d *fastDecoder) space() {
	for d.i < len(d.s) {
		switch d.s[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

// peek is the next byte after white space, 0 at the end.
func (d *fastDecoder) peek() byte {
	d.space()
	if d.i < len(d.s) {
		return d.s[d.i]
	}
	return 0
}

// open reads the { of an object.
func (d *fastDecoder) open() bool {
	if d.peek() != '{' {
		return false
	}
	d.i++
	return true
}

// member reads what follows the n-th member of an object (n from 0): the
// next key and its colon, or the closing } (end).
func (d *fastDecoder) member(n int) (key string, end, ok bool) {
	c := d.peek()
	if c == '}' {
		d.i++
		return "", true, true
	}
	if n > 0 {
		if c != ',' {
			return "", false, false
		}
		d.i++
	}
	if key, ok = d.text(); !ok || d.peek() != ':' {
		return "", false, false
	}
	d.i++
	return key, false, true
}

// text reads a string without escapes that is valid UTF-8: its bytes are
// then the string encoding/json decodes.
func (d *fastDecoder) text() (string, bool) {
	if d.peek() != '"' {
		return "", false
	}
	start := d.i + 1
	ascii := true
	for i := start; i < len(d.s); i++ {
		switch c := d.s[i]; {
		case c == '"':
			d.i = i + 1
			t := d.s[start:i]
			return t, ascii || utf8.ValidString(t)
		case c == '\\' || c < 0x20:
			return "", false
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	return "", false
}

// number reads a JSON number and returns its text.
func (d *fastDecoder) number() (string, bool) {
	d.space()
	start, i := d.i, d.i
	s := d.s
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && '1' <= s[i] && s[i] <= '9':
		for i < len(s) && isDigit(s[i]) {
			i++
		}
	default:
		return "", false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if i == len(s) || !isDigit(s[i]) {
			return "", false
		}
		for i < len(s) && isDigit(s[i]) {
			i++
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if i == len(s) || !isDigit(s[i]) {
			return "", false
		}
		for i < len(s) && isDigit(s[i]) {
			i++
		}
	}
	d.i = i
	return s[start:i], true
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// skip reads any JSON value whose strings have no escapes, checking it as
// strictly as encoding/json does (its strings need not be UTF-8: an
// ignored value is not decoded, and extensions are kept as bytes).
func (d *fastDecoder) skip(depth int) bool {
	if depth > maxFastDepth {
		return false
	}
	switch c := d.peek(); {
	case c == '"':
		for i := d.i + 1; i < len(d.s); i++ {
			switch c := d.s[i]; {
			case c == '"':
				d.i = i + 1
				return true
			case c == '\\' || c < 0x20:
				return false
			}
		}
		return false
	case c == '{':
		d.i++
		for n := 0; ; n++ {
			_, end, ok := d.member(n)
			if !ok {
				return false
			}
			if end {
				return true
			}
			if !d.skip(depth + 1) {
				return false
			}
		}
	case c == '[':
		d.i++
		if d.peek() == ']' {
			d.i++
			return true
		}
		for {
			if !d.skip(depth + 1) {
				return false
			}
			switch d.peek() {
			case ',':
				d.i++
			case ']':
				d.i++
				return true
			default:
				return false
			}
		}
	case c == '-' || isDigit(c):
		_, ok := d.number()
		return ok
	}
	for _, lit := range [...]string{"true", "false", "null"} {
		if len(d.s)-d.i >= len(lit) && d.s[d.i:d.i+len(lit)] == lit {
			d.i += len(lit)
			return true
		}
	}
	return false
}
