package paywall

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"regexp"
	"strings"

	"github.com/caddy-x402/caddy-x402/internal/jsonscan"
)

// What an upto route charges, from its upstream's answer (upto.go).
//
// The charge comes from, in order: the upstream's Settlement-Overrides
// response header, as the x402 reference servers read it ({"amount":
// "1234" | "$0.05" | "50%"}); else the seller's meter (meter json <dotted
// path> <unit price>: a number in a JSON body, or in the last JSON data:
// event of a text/event-stream answer that carries it); else the maximum.
// A charge above the maximum is capped at it.

// HeaderSettlementOverrides is the response header an upstream states the
// charge of an upto payment in (the x402 reference servers' name). The
// paywall removes it: the buyer never sees it. Sent as a trailer, it is
// removed too and is not the charge; a buyer's own, in its request,
// never reaches the upstream (meter_request.go).
const HeaderSettlementOverrides = "Settlement-Overrides"

// DefaultMeterMaxBytes bounds what the meter keeps of one answer: a JSON
// body, or one server-sent event.
const DefaultMeterMaxBytes = 1 << 20

// Charge sources, the source label of x402_metered_smallest_units_total.
const (
	ChargeHeader  = "header"  // Settlement-Overrides
	ChargeMeter   = "meter"   // the seller's meter
	ChargeMaximum = "maximum" // neither: the whole maximum
	ChargeNone    = "none"    // the answer broke off: nothing is charged
)

var (
	overrideAtomic  = regexp.MustCompile(`^[0-9]+$`)
	overrideTokens  = regexp.MustCompile(`^\$([0-9]+(?:\.[0-9]+)?)$`)
	overridePercent = regexp.MustCompile(`^([0-9]+(?:\.[0-9]{0,2})?)%$`)
)

// parseOverride reads a Settlement-Overrides value into a charge in
// smallest units, for a payment of maximum max in a token of the given
// decimals. "$x" is x whole tokens (cut to the token's decimals, as the
// reference servers convert it); "p%" is p percent of the maximum, with
// at most two decimals, rounded down. The value is the upstream's, so an
// error says what is wrong with it.
func parseOverride(raw string, max *big.Int, decimals uint8) (*big.Int, error) {
	var o struct {
		Amount *json.RawMessage `json:"amount"`
	}
	if err := json.Unmarshal([]byte(raw), &o); err != nil {
		return nil, fmt.Errorf("not a JSON object: %v", err)
	}
	if o.Amount == nil {
		return nil, errors.New(`no "amount"`)
	}
	var s string
	if err := json.Unmarshal(*o.Amount, &s); err != nil {
		// A JSON number of smallest units is taken too.
		if n := strings.TrimSpace(string(*o.Amount)); overrideAtomic.MatchString(n) {
			s = n
		} else {
			return nil, fmt.Errorf(`"amount" is %s, not a string`, x402Clip(string(*o.Amount)))
		}
	}
	s = strings.TrimSpace(s)
	switch {
	case overrideAtomic.MatchString(s):
		v, _ := new(big.Int).SetString(s, 10)
		return v, nil
	case overrideTokens.MatchString(s):
		r, _ := new(big.Rat).SetString(overrideTokens.FindStringSubmatch(s)[1])
		return floorRat(r.Mul(r, new(big.Rat).SetInt(pow10(decimals)))), nil
	case overridePercent.MatchString(s):
		r, _ := new(big.Rat).SetString(overridePercent.FindStringSubmatch(s)[1])
		r.Mul(r, new(big.Rat).SetInt(max))
		return floorRat(r.Quo(r, big.NewRat(100, 1))), nil
	}
	return nil, fmt.Errorf(`"amount" %q is none of "1234" (smallest units), "$0.05" (whole tokens), "50%%"`, x402Clip(s))
}

func x402Clip(s string) string {
	if len(s) > 64 {
		return s[:64] + "…"
	}
	return s
}

func pow10(d uint8) *big.Int { return new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(d)), nil) }

// floorRat rounds a non-negative rational down to an integer.
func floorRat(r *big.Rat) *big.Int { return new(big.Int).Quo(r.Num(), r.Denom()) }

// ceilRat rounds a non-negative rational up to an integer.
func ceilRat(r *big.Rat) *big.Int {
	q, m := new(big.Int).QuoRem(r.Num(), r.Denom(), new(big.Int))
	if m.Sign() > 0 {
		q.Add(q, big.NewInt(1))
	}
	return q
}

// Meter is what a seller declares to read the charge of an upto payment
// from the upstream's answer: meter json <path> <unit price>.
type Meter struct {
	// Kind is the meter: "json", a number in the JSON answer (the body,
	// or the last data: event of a text/event-stream answer that holds
	// it).
	Kind string `json:"kind"`
	// Path is the dotted path of the number, such as usage.total_tokens;
	// a segment of digits indexes an array (choices.0.usage.tokens).
	Path string `json:"path"`
	// UnitPrice is the price of one unit the number counts: in whole
	// tokens with price, in smallest units with amount (a fraction is
	// allowed). The charge is number x unit price, rounded up to a
	// smallest unit, capped at the maximum.
	UnitPrice string `json:"unit_price"`
}

// validate checks a meter's declaration.
func (m *Meter) validate() error {
	if m.Kind != "json" {
		return fmt.Errorf("x402: meter %q is not known: the meter is json <dotted path> <unit price>", m.Kind)
	}
	if m.Path == "" || strings.HasPrefix(m.Path, ".") || strings.HasSuffix(m.Path, ".") || strings.Contains(m.Path, "..") {
		return fmt.Errorf("x402: meter json path %q is not a dotted path such as usage.total_tokens", m.Path)
	}
	if _, err := parseUnitPrice(m.UnitPrice); err != nil {
		return fmt.Errorf("x402: meter json unit price %q: %v", m.UnitPrice, err)
	}
	return nil
}

// parseUnitPrice reads a unit price: a non-negative decimal number.
func parseUnitPrice(s string) (*big.Rat, error) {
	s = strings.TrimSpace(s)
	if s == "" || strings.ContainsAny(s, "eE/+-") {
		return nil, errors.New("want a non-negative decimal number, such as 0.000002")
	}
	r, ok := new(big.Rat).SetString(s)
	if !ok || r.Sign() < 0 {
		return nil, errors.New("want a non-negative decimal number, such as 0.000002")
	}
	return r, nil
}

// jsonNumberAt finds the number at a dotted path in a JSON document: ok
// false when the path leads nowhere in it or ends at something other than
// a non-negative number (or a string holding one). Only the values on the
// path are decoded; the rest is skipped over, not checked.
func jsonNumberAt(doc []byte, path []string) (*big.Rat, bool) {
	raw, ok := jsonscan.Lookup(doc, path)
	if !ok {
		return nil, false
	}
	var n json.Number
	if raw[0] == '"' {
		s, ok := jsonscan.Unquote(raw)
		if !ok {
			return nil, false
		}
		n = json.Number(strings.TrimSpace(s))
	} else if json.Unmarshal(raw, &n) != nil {
		return nil, false
	}
	r, ok := new(big.Rat).SetString(string(n))
	if !ok || r.Sign() < 0 {
		return nil, false
	}
	return r, true
}

// meterReader reads the meter's number from an answer as it goes by,
// keeping at most max bytes: the JSON body, or for server-sent events the
// event being read (the value of the last complete event that held the
// number is all that is kept of the others).
type meterReader struct {
	path   []string
	needle []byte // the path's last key, quoted: an event without it is not parsed
	max    int
	sse    bool

	body     []byte // JSON: the body so far; SSE: the line being read
	data     []byte // SSE: the data of the event being read
	skip     bool   // SSE: the event being read is over max and is skipped
	crSeen   bool   // SSE: the last byte was a CR (a CRLF's LF is not a second line end)
	over     bool   // the body or an event was over max
	ended    bool   // JSON: the body was read
	value    *big.Rat
	hasValue bool
}

func newMeterReader(path string, max int, sse bool) *meterReader {
	m := &meterReader{path: strings.Split(path, "."), max: max, sse: sse}
	if last := m.path[len(m.path)-1]; !strings.ContainsAny(last, "\"\\0123456789") {
		m.needle = []byte(`"` + last + `"`)
	}
	return m
}

// write takes the next bytes of the answer.
func (m *meterReader) write(p []byte) {
	if !m.sse {
		if m.over {
			return
		}
		if len(m.body)+len(p) > m.max {
			m.over, m.body = true, nil
			return
		}
		m.body = append(m.body, p...)
		return
	}
	cr := bytes.IndexByte(p, '\r') >= 0 // most streams end lines with LF alone
	for len(p) > 0 {
		if p[0] == '\n' && m.crSeen {
			m.crSeen = false
			p = p[1:]
			continue
		}
		i := bytes.IndexByte(p, '\n')
		if cr {
			end := len(p)
			if i >= 0 {
				end = i
			}
			if j := bytes.IndexByte(p[:end], '\r'); j >= 0 {
				i = j
			}
		}
		if i < 0 {
			m.addLine(p)
			return
		}
		if len(m.body) == 0 && !m.skip {
			// The whole line is here: read it in place.
			m.crSeen = false
			m.line(p[:i])
		} else {
			m.addLine(p[:i])
			line := m.body
			m.body = m.body[:0]
			m.line(line)
		}
		m.crSeen = p[i] == '\r'
		p = p[i+1:]
	}
}

// addLine adds bytes to the line being read.
func (m *meterReader) addLine(b []byte) {
	m.crSeen = false
	if m.skip {
		return
	}
	if len(m.body)+len(b)+len(m.data) > m.max {
		m.skip, m.over, m.body, m.data = true, true, m.body[:0], m.data[:0]
		return
	}
	m.body = append(m.body, b...)
}

// line reads a line: a blank line dispatches the event, a data: line
// adds to it; other fields do not matter to the meter.
func (m *meterReader) line(line []byte) {
	if len(line) == 0 {
		// An event that cannot hold the path's last key (written plainly,
		// without escapes) is not parsed: most of a stream.
		if !m.skip && len(m.data) > 0 && (m.needle == nil || bytes.IndexByte(m.data, '\\') >= 0 || bytes.Contains(m.data, m.needle)) {
			if v, ok := jsonNumberAt(m.data, m.path); ok {
				m.value, m.hasValue = v, true
			}
		}
		m.data, m.skip = m.data[:0], false
		return
	}
	if m.skip || !bytes.HasPrefix(line, []byte("data")) {
		return
	}
	rest := line[len("data"):]
	if len(rest) > 0 && rest[0] != ':' {
		return // another field whose name starts with data
	}
	if len(rest) > 0 {
		rest = rest[1:]
	}
	rest = bytes.TrimPrefix(rest, []byte(" "))
	if len(m.data)+len(rest)+1 > m.max {
		m.skip, m.over, m.data = true, true, m.data[:0]
		return
	}
	if len(m.data) > 0 {
		m.data = append(m.data, '\n')
	}
	m.data = append(m.data, rest...)
}

// result is the number the answer held, once it has ended: for JSON the
// body's, for events the last complete one's that held it (an event not
// ended by a blank line is not dispatched, as the SSE standard has it).
func (m *meterReader) result() (*big.Rat, bool) {
	if !m.sse && !m.over && !m.ended {
		m.value, m.hasValue = jsonNumberAt(m.body, m.path)
		m.body, m.ended = nil, true
	}
	return m.value, m.hasValue
}
