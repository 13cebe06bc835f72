package paywall

import (
	"strings"

	"github.com/caddy-x402/caddy-x402/internal/jsonscan"
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
// in letter case (or is not ASCII), a field of another JSON type, nesting
// deeper than jsonscan.MaxDepth;
// the general decoder then reads the header.
func scanVoucherJSON(b string) (voucherJSON, bool) {
	s := &voucherScan{Scanner: jsonscan.New(b)}
	s.Escapes = true
	if !s.obj(objTop) {
		return s.v, false
	}
	v := &s.v
	if !s.End() || v.version != "2" || !v.accepted {
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
func (s *voucherScan) field(o int, k string) bool {
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

// voucherScan is the cursor of scanVoucherJSON.
type voucherScan struct {
	jsonscan.Scanner
	v     voucherJSON
	delay string
}

// obj reads an object o: its known keys (each once) by field; another
// key that differs from a known one only in letter case gives up, any
// other key's value is skipped.
func (s *voucherScan) obj(o int) bool {
	if !s.Open() {
		return false
	}
	var seen uint16
	keys := objKeys[o]
	for n := 0; ; n++ {
		key, end, ok := s.Member(n)
		if !ok {
			return false
		}
		if end {
			return true
		}
		known := -1
		for j, k := range keys {
			if k == key {
				known = j
				break
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
		case len(keys) > 0 && jsonscan.FoldsTo(key, keys...):
			return false
		case !s.skip():
			return false
		}
	}
}

// str reads a string without escapes into dst.
func (s *voucherScan) str(dst *string) bool {
	v, ok := s.Plain()
	*dst = v
	return ok
}

// num reads a number's text into dst.
func (s *voucherScan) num(dst *string) bool {
	v, ok := s.Number()
	*dst = v
	return ok
}

// skip checks and skips any value.
func (s *voucherScan) skip() bool {
	_, ok := s.Skip()
	return ok
}

// strOrNull checks and skips a string or null.
func (s *voucherScan) strOrNull() bool {
	return s.Null() || s.Peek() == '"' && s.skip()
}

// intOrNull checks and skips an integer (into an int64) or null.
func (s *voucherScan) intOrNull() bool {
	if s.Null() {
		return true
	}
	n, ok := s.Number()
	return ok && len(n) <= 18 && !strings.ContainsAny(n, ".eE")
}

// objOrNull checks and skips an object or null.
func (s *voucherScan) objOrNull() bool {
	return s.Null() || s.Peek() == '{' && s.skip()
}
