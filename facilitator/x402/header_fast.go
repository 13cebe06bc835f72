package x402

import (
	"encoding/json"
	"strconv"

	"github.com/caddy-x402/caddy-x402/internal/jsonscan"
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
// the field's, nesting past jsonscan.MaxDepth. DecodePaymentHeader then decodes
// the header with encoding/json, as before; FuzzDecodeFast holds the two
// to the same result on any input.

// fastDecoder reads one JSON text.
type fastDecoder struct{ jsonscan.Scanner }

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
	d := fastDecoder{jsonscan.New(raw)}
	const (
		seenVersion = 1 << iota
		seenScheme
		seenNetwork
		seenPayload
		seenAccepted
		seenExtensions
	)
	var seen int
	if !d.Open() {
		return env, nil, false
	}
	for n := 0; ; n++ {
		key, end, ok := d.Member(n)
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
			v, ok := d.Number()
			if !ok {
				return env, nil, false
			}
			env.X402Version = json.RawMessage(v)
		case "scheme":
			bit = seenScheme
			if env.Scheme, ok = d.Plain(); !ok {
				return env, nil, false
			}
		case "network":
			bit = seenNetwork
			if env.Network, ok = d.Plain(); !ok {
				return env, nil, false
			}
		case "payload":
			bit = seenPayload
			d.Space()
			start := d.Pos()
			if pl, ok = d.payload(); !ok {
				return env, nil, false
			}
			pl.raw = d.From(start)
		case "accepted":
			bit = seenAccepted
			if env.Accepted, ok = d.accepted(); !ok {
				return env, nil, false
			}
		case "extensions":
			bit = seenExtensions
			v, ok := d.Skip()
			if !ok || v[0] == 'n' { // null: encoding/json leaves the field nil
				return env, nil, false
			}
			env.Extensions = json.RawMessage(v)
		default:
			if jsonscan.FoldsTo(key, "x402Version", "scheme", "network", "payload", "accepted", "extensions") || !d.skip() {
				return env, nil, false
			}
		}
		if seen&bit != 0 {
			return env, nil, false
		}
		seen |= bit
	}
	if !d.End() || pl == nil {
		return env, nil, false
	}
	return env, pl, true
}

// payload reads the payload object, in either shape.
func (d *fastDecoder) payload() (*payloadJSON, bool) {
	pl := new(payloadJSON)
	if !d.Open() {
		return nil, false
	}
	var seen int
	for n := 0; ; n++ {
		key, end, ok := d.Member(n)
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
			pl.Signature, ok = d.Plain()
		case "asset":
			bit = 1 << 7
			pl.Asset, ok = d.Plain()
		case "authorization":
			bit = 1 << 8
			pl.Authorization = new(authorizationJSON)
			ok = d.authorization(pl.Authorization)
		default:
			bit, ok = d.authorizationField(&pl.authorizationJSON, key)
			if bit == 0 {
				if jsonscan.FoldsTo(key, "signature", "asset", "authorization") {
					return nil, false
				}
				ok = ok && d.skip()
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
	if !d.Open() {
		return false
	}
	var seen int
	for n := 0; ; n++ {
		key, end, ok := d.Member(n)
		if !ok {
			return false
		}
		if end {
			return true
		}
		bit, ok := d.authorizationField(a, key)
		if bit == 0 && ok {
			ok = d.skip()
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
		a.From, ok = d.Plain()
		return 1 << 0, ok
	case "to":
		a.To, ok = d.Plain()
		return 1 << 1, ok
	case "value":
		return 1 << 2, d.flexNum(&a.Value)
	case "validAfter":
		return 1 << 3, d.flexNum(&a.ValidAfter)
	case "validBefore":
		return 1 << 4, d.flexNum(&a.ValidBefore)
	case "nonce":
		a.Nonce, ok = d.Plain()
		return 1 << 5, ok
	}
	return 0, !jsonscan.FoldsTo(key, "from", "to", "value", "validAfter", "validBefore", "nonce")
}

// flexNum reads a decimal string (without escapes) or a number as
// flexNum.UnmarshalJSON keeps it.
func (d *fastDecoder) flexNum(f *flexNum) bool {
	var ok bool
	if d.Peek() == '"' {
		f.text, ok = d.Plain()
	} else {
		f.text, ok = d.Number()
	}
	f.set = ok
	return ok
}

// accepted reads a v2 payload's accepted requirements.
func (d *fastDecoder) accepted() (*RequirementsV2, bool) {
	r := new(RequirementsV2)
	if !d.Open() {
		return nil, false
	}
	var seen int
	for n := 0; ; n++ {
		key, end, ok := d.Member(n)
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
			r.Scheme, ok = d.Plain()
		case "network":
			bit = 1 << 1
			r.Network, ok = d.Plain()
		case "amount":
			bit = 1 << 2
			r.Amount, ok = d.Plain()
		case "asset":
			bit = 1 << 3
			r.Asset, ok = d.Plain()
		case "payTo":
			bit = 1 << 4
			r.PayTo, ok = d.Plain()
		case "maxTimeoutSeconds":
			bit = 1 << 5
			var v string
			if v, ok = d.Number(); ok {
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
			if jsonscan.FoldsTo(key, "scheme", "network", "amount", "asset", "payTo", "maxTimeoutSeconds", "extra") {
				return nil, false
			}
			ok = d.skip()
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
	if !d.Open() {
		return nil, false
	}
	m := map[string]any{}
	for n := 0; ; n++ {
		key, end, ok := d.Member(n)
		if !ok {
			return nil, false
		}
		if end {
			return m, true
		}
		if _, dup := m[key]; dup {
			return nil, false
		}
		v, ok := d.Plain()
		if !ok {
			return nil, false
		}
		m[key] = v
	}
}

// skip reads a value decodeFast does not keep.
func (d *fastDecoder) skip() bool {
	_, ok := d.Skip()
	return ok
}
