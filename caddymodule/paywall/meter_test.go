package paywall

import (
	"encoding/json"
	"fmt"
	"math/big"
	"mime"
	"strings"
	"testing"
)

func TestParseOverride(t *testing.T) {
	max := big.NewInt(50000) // 0.05 of a 6-decimal token
	for _, tc := range []struct {
		raw, want, err string
	}{
		{`{"amount":"1234"}`, "1234", ""},
		{`{"amount":"0"}`, "0", ""},
		{`{"amount":1234}`, "1234", ""},
		{`{"amount":"$0.01"}`, "10000", ""},
		{`{"amount":"$0.0000015"}`, "1", ""}, // cut to the token's decimals
		{`{"amount":"$2"}`, "2000000", ""},   // above the maximum: capped by the caller
		{`{"amount":"50%"}`, "25000", ""},
		{`{"amount":"33.33%"}`, "16665", ""},
		{`{"amount":"0.01%"}`, "5", ""},
		{`{"amount":"100%"}`, "50000", ""},
		{`{"amount":" 42 "}`, "42", ""},
		{`{"amount":"-1"}`, "", `"amount" "-1" is none of`},
		{`{"amount":"1.5"}`, "", `"amount" "1.5" is none of`},
		{`{"amount":"33.333%"}`, "", `is none of`},
		{`{"amount":"0x10"}`, "", `is none of`},
		{`{"amount":true}`, "", `"amount" is true, not a string`},
		{`{"other":"1"}`, "", `no "amount"`},
		{`1234`, "", `not a JSON object`},
		{`{`, "", `not a JSON object`},
	} {
		got, err := parseOverride(tc.raw, max, 6)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("parseOverride(%s) = %v, %v; want error with %q", tc.raw, got, err, tc.err)
			}
			continue
		}
		if err != nil || got.String() != tc.want {
			t.Errorf("parseOverride(%s) = %v, %v; want %s", tc.raw, got, err, tc.want)
		}
	}
}

func TestJSONNumberAt(t *testing.T) {
	doc := `{"id":"x","usage":{"prompt_tokens":10,"total_tokens":1234,"cost":"0.5","neg":-3,"obj":{}},
		"choices":[{"n":1},{"n":2.5}],"big":123456789012345678901234567890}`
	for _, tc := range []struct {
		path, want string
		ok         bool
	}{
		{"usage.total_tokens", "1234", true},
		{"usage.cost", "1/2", true},
		{"choices.1.n", "5/2", true},
		{"big", "123456789012345678901234567890", true},
		{"usage.missing", "", false},
		{"usage.neg", "", false},
		{"usage.obj", "", false},
		{"choices.2.n", "", false},
		{"choices.x", "", false},
		{"id.x", "", false},
		{"id", "", false},
	} {
		v, ok := jsonNumberAt([]byte(doc), strings.Split(tc.path, "."))
		if ok != tc.ok || (ok && v.RatString() != tc.want) {
			t.Errorf("jsonNumberAt(%s) = %v, %v; want %s, %v", tc.path, v, ok, tc.want, tc.ok)
		}
	}
	for _, tc := range []struct {
		doc, path, want string
	}{
		{`{"a":"x}\"]{[","b":[{"c":"]"},{"d":[1,[2,{"e":"}"}]]}],"usage":{"n":5}}`, "usage.n", "5"},
		{`{"b":[[1,2],{"x":{"y":[3]}},7]}`, "b.2", "7"},
		{`{"b":[[1,2],{"x":{"y":[3]}},7]}`, "b.1.x.y.0", "3"},
		{`{"us\u0061ge":{"n":6}}`, "usage.n", "6"},
		{" \n{ \"usage\" : { \"n\" : 8 } }\n", "usage.n", "8"},
		{`{"usage":{"n":1e3}}`, "usage.n", "1000"},
		{`{"usage":{"n":9}`, "usage.n", "9"}, // the rest is not checked
		{`{"usage":{"n":"9`, "usage.n", ""},
		{`{"usage":{"n":-}}`, "usage.n", ""},
		{`{"usage":{"n":`, "usage.n", ""},
		{`{"usage" {"n":1}}`, "usage.n", ""},
		{`{"a":1 "usage":{"n":1}}`, "usage.n", ""},
		{`[1,2`, "5", ""},
		{`not json`, "a", ""},
		{``, "a", ""},
	} {
		v, ok := jsonNumberAt([]byte(tc.doc), strings.Split(tc.path, "."))
		if ok != (tc.want != "") || (ok && v.RatString() != tc.want) {
			t.Errorf("jsonNumberAt(%s, %s) = %v, %v; want %q", tc.doc, tc.path, v, ok, tc.want)
		}
	}
}

// TestJSONNumberAtDuplicateKeys: of duplicate keys the meter takes the
// last, as encoding/json, JSON.parse and Python's json do (an upstream
// answer read one way by the seller's code and another by the meter
// would be charged what the seller did not mean), at every level of the
// path, escaped or not; and it agrees with encoding/json on each.
func TestJSONNumberAtDuplicateKeys(t *testing.T) {
	for _, tc := range []struct {
		doc, want string
	}{
		{`{"usage":{"total_tokens":1,"total_tokens":2468}}`, "2468"},
		{`{"usage":{"total_tokens":2468,"total_tokens":1}}`, "1"},
		{`{"usage":{"total_tokens":1},"usage":{"total_tokens":2468}}`, "2468"},
		{`{"usage":{"total_tokens":2468},"usage":{"prompt_tokens":1}}`, ""},
		{`{"usage":{"total_tokens":1},"x":[1,{"usage":2}],"usage":{"total_tokens":7,"total_tokens":8}}`, "8"},
		{`{"usage":{"total_tokens":1,"total\u005ftokens":9}}`, "9"},
		{`{"usage":{"total\u005ftokens":9,"total_tokens":3}}`, "3"},
		{`{"usage":{"total_tokens":5,"total_tokens":"6"}}`, "6"},
		{`{"usage":{"total_tokens":5,"total_tokens":null}}`, ""},
		{`{"usage":{"total_tokens":5,"total_tokens":-1}}`, ""},
		{` { "usage" : { "total_tokens" : 4 , "total_tokens" : 40 } } `, "40"},
	} {
		v, ok := jsonNumberAt([]byte(tc.doc), []string{"usage", "total_tokens"})
		if ok != (tc.want != "") || (ok && v.RatString() != tc.want) {
			t.Errorf("jsonNumberAt(%s) = %v, %v; want %q", tc.doc, v, ok, tc.want)
		}
		// encoding/json into a map reads the same, as JSON.parse does.
		var std map[string]any
		if err := json.Unmarshal([]byte(tc.doc), &std); err != nil {
			t.Fatalf("%s: %v", tc.doc, err)
		}
		usage, _ := std["usage"].(map[string]any)
		stdGot := ""
		switch n := usage["total_tokens"].(type) {
		case float64:
			if n >= 0 {
				stdGot = fmt.Sprint(n)
			}
		case string:
			stdGot = n
		}
		if stdGot != tc.want {
			t.Errorf("%s: encoding/json reads %q, the test wants %q", tc.doc, stdGot, tc.want)
		}
	}
	// Through the event-stream reader too.
	m := newMeterReader("usage.total_tokens", 1024, true)
	m.write([]byte("data: {\"usage\":{\"total_tokens\":1,\"total_tokens\":2468}}\n\n"))
	if v, ok := m.result(); !ok || v.RatString() != "2468" {
		t.Errorf("event stream with a duplicate key: %v, %v; want 2468", v, ok)
	}
}

// TestMeterReaderSSE feeds server-sent events in pieces of every size:
// the reading is the number of the last complete event that holds it.
func TestMeterReaderSSE(t *testing.T) {
	for _, tc := range []struct {
		name, stream, want string
		ok                 bool
	}{
		{"openai", "data: {\"usage\":null}\n\ndata: {\"usage\":{\"total_tokens\":7}}\n\ndata: [DONE]\n\n", "7", true},
		{"later wins", "data: {\"usage\":{\"total_tokens\":7}}\n\ndata: {\"usage\":{\"total_tokens\":9}}\n\n", "9", true},
		{"event without the path keeps the reading", "data: {\"usage\":{\"total_tokens\":7}}\n\nevent: stop\ndata: {\"type\":\"stop\"}\n\n", "7", true},
		{"crlf", "data: {\"usage\":{\"total_tokens\":3}}\r\n\r\n", "3", true},
		{"cr", "data: {\"usage\":{\"total_tokens\":4}}\r\r", "4", true},
		{"multi-line data", "data: {\"usage\":\ndata: {\"total_tokens\":5}}\n\n", "5", true},
		{"no space after colon", "data:{\"usage\":{\"total_tokens\":6}}\n\n", "6", true},
		{"comments and ids", ": ping\nid: 1\ndata: {\"usage\":{\"total_tokens\":8}}\n\n", "8", true},
		{"unended event is not dispatched", "data: {\"usage\":{\"total_tokens\":8}}\n", "", false},
		{"dataX is another field", "dataX: {\"usage\":{\"total_tokens\":8}}\n\n", "", false},
		{"none", "data: hello\n\n", "", false},
		{"escaped key", "data: {\"usage\":{\"total\\u005ftokens\":11}}\n\n", "11", true},
		{"crlf then lf", "data: {\"usage\":{\"total_tokens\":12}}\r\n\r\ndata: {\"x\":1}\n\n", "12", true},
	} {
		for _, step := range []int{1, 2, 3, 7, 1000} {
			m := newMeterReader("usage.total_tokens", 1024, true)
			for i := 0; i < len(tc.stream); i += step {
				m.write([]byte(tc.stream[i:min(i+step, len(tc.stream))]))
			}
			v, ok := m.result()
			if ok != tc.ok || (ok && v.RatString() != tc.want) {
				t.Errorf("%s (pieces of %d): %v, %v; want %s, %v", tc.name, step, v, ok, tc.want, tc.ok)
			}
		}
	}
}

// TestMeterReaderBounded: the reader keeps at most max bytes: an event
// over it is skipped (and the next one read), a JSON body over it gives
// no reading.
func TestMeterReaderBounded(t *testing.T) {
	big := "data: {\"usage\":{\"total_tokens\":1},\"pad\":\"" + strings.Repeat("x", 200) + "\"}\n\n"
	m := newMeterReader("usage.total_tokens", 100, true)
	m.write([]byte("data: {\"usage\":{\"total_tokens\":2}}\n\n" + big))
	if v, ok := m.result(); !ok || v.RatString() != "2" || !m.over {
		t.Errorf("after an event over the bound: %v, %v, over %v; want 2 (the last one that fit)", v, ok, m.over)
	}
	m.write([]byte("data: {\"usage\":{\"total_tokens\":3}}\n\n"))
	if v, ok := m.result(); !ok || v.RatString() != "3" {
		t.Errorf("the event after a skipped one: %v, %v; want 3", v, ok)
	}
	if cap(m.body) > 200 || cap(m.data) > 200 {
		t.Errorf("the reader kept %d+%d bytes for a bound of 100", cap(m.body), cap(m.data))
	}

	j := newMeterReader("usage.total_tokens", 32, false)
	j.write([]byte(`{"usage":{"total_tokens":12},`))
	j.write([]byte(`"pad":"xxxxxxxxxxxxxx"}`))
	if v, ok := j.result(); ok {
		t.Errorf("a JSON body over the bound gave %v", v)
	}
	j = newMeterReader("usage.total_tokens", 64, false)
	j.write([]byte(`{"usage":{"total_tokens":12}}`))
	if v, ok := j.result(); !ok || v.RatString() != "12" {
		t.Errorf("JSON body: %v, %v; want 12", v, ok)
	}
}

func TestChargeRuleMetered(t *testing.T) {
	for _, tc := range []struct {
		unit  string
		whole bool
		count string
		want  string
	}{
		{"0.000002", true, "1234", "2468"}, // 2 smallest units per token, 6 decimals
		{"0.0000001", true, "15", "2"},     // 1.5 smallest units, rounded up
		{"3", false, "10", "30"},
		{"0.5", false, "3", "2"},
		{"0.5", false, "0", "0"},
	} {
		unit, err := parseUnitPrice(tc.unit)
		if err != nil {
			t.Fatal(err)
		}
		if tc.whole {
			unit.Mul(unit, new(big.Rat).SetInt(pow10(6)))
		}
		count, _ := new(big.Rat).SetString(tc.count)
		if got := (chargeRule{unit: unit}).metered(count); got.String() != tc.want {
			t.Errorf("%s x %s = %s, want %s", tc.count, tc.unit, got, tc.want)
		}
	}
	for _, bad := range []string{"", "-1", "1e-6", "1/2", "x"} {
		if _, err := parseUnitPrice(bad); err == nil {
			t.Errorf("unit price %q accepted", bad)
		}
	}
}

// TestIsEventStream: the meter's check of an answer's Content-Type reads
// the media type as mime.ParseMediaType does.
func TestIsEventStream(t *testing.T) {
	for _, tc := range []struct {
		ct   string
		want bool
	}{
		{"text/event-stream", true},
		{"Text/Event-Stream; charset=utf-8", true},
		{" text/event-stream ;x=1", true},
		{"text/event-stream; bad", true},
		{"text/event-stream;;", true},
		{"", false},
		{"text/plain; charset=utf-8", false},
		{"text/event-streams", false},
		{"text/event-stream garbage", false},
		{"text/event-stream/x", false},
		{"application/json", false},
	} {
		if got := isEventStream(tc.ct); got != tc.want {
			t.Errorf("isEventStream(%q) = %v, want %v", tc.ct, got, tc.want)
		}
		mt, _, _ := mime.ParseMediaType(tc.ct)
		if ref := mt == "text/event-stream"; ref != tc.want {
			t.Errorf("mime.ParseMediaType(%q) reads %q: the table is wrong", tc.ct, mt)
		}
	}
}
