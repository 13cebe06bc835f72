package jsonscan

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestLookup: the raw value at a key path; the last of duplicate keys;
// array indexes; what lies off the path is skipped by its brackets and
// quotes, not checked.
func TestLookup(t *testing.T) {
	for _, tc := range []struct {
		doc, path, want string // want "" : not found
	}{
		{`{"a":{"b":[10,{"c":"x"}]}}`, "a.b.1.c", `"x"`},
		{`{"a":{"b":[10,{"c":"x"}]}}`, "a.b", `[10,{"c":"x"}]`},
		{`{"a":{"b":[10,{"c":"x"}]}}`, "a.b.0", `10`},
		{`{"a":{"b":[10,{"c":"x"}]}}`, "a.b.2", ``},
		{`{"a":{"b":[10,{"c":"x"}]}}`, "a.b.x", ``},
		{`{"a":{"b":[10,{"c":"x"}]}}`, "a.c", ``},
		{`{"a":1,"a":2}`, "a", `2`},
		{`{"a":{"n":1},"a":{"m":2}}`, "a.n", ``},
		{`{"\u0061":3}`, "a", `3`},
		{`{"a":3,"\u0061":4}`, "a", `4`},
		{`{"s":"}]\"{[","a":[{"x":"]"}],"n":5}`, "n", `5`},
		{` { "n" : true } `, "n", `true`},
		{`{"n":9`, "n", `9`},          // the rest is not checked
		{`{"x":tru,"n":9}`, "n", `9`}, // nor what lies off the path
		{`{"n":"9`, "n", ``},
		{`{"n":}`, "n", ``},
		{`{"n" 1}`, "n", ``},
		{`{"a":1 "n":1}`, "n", ``},
		{`[1,2`, "5", ``},
		{`[1,2]`, "-1", ``},
		{`"n"`, "n", ``},
		{``, "n", ``},
	} {
		got, ok := Lookup([]byte(tc.doc), strings.Split(tc.path, "."))
		if ok != (tc.want != "") || string(got) != tc.want {
			t.Errorf("Lookup(%s, %s) = %s, %v; want %q", tc.doc, tc.path, got, ok, tc.want)
		}
	}
}

// TestUnquote: a JSON string decoded as encoding/json decodes it.
func TestUnquote(t *testing.T) {
	for _, tc := range []struct {
		quoted, want string
		ok           bool
	}{
		{`"abc"`, "abc", true},
		{`""`, "", true},
		{`"a\u0062\n"`, "ab\n", true},
		{"\"a\xffb\"", "a\ufffdb", true},
		{`"crönos"`, "crönos", true},
		{"\"a\x01\"", "", false},
		{`"a\x"`, "", false},
		{`"abc`, "", false},
		{`abc`, "", false},
		{`"`, "", false},
	} {
		got, ok := Unquote([]byte(tc.quoted))
		if ok != tc.ok || got != tc.want {
			t.Errorf("Unquote(%s) = %q, %v; want %q, %v", tc.quoted, got, ok, tc.want, tc.ok)
		}
	}
}

// FuzzLookup: in a valid JSON object, Lookup finds each member as
// encoding/json reads it into a map (the last of duplicate keys); what
// Unquote takes, encoding/json reads the same.
func FuzzLookup(f *testing.F) {
	for _, s := range []string{`{"a":1,"a":[2,{"b":"x"}]}`, `{"\u0061":"}"}`, ` {"usage" : {"n":5}} `, `"a\u00e9"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		if s, ok := Unquote([]byte(doc)); ok {
			var std string
			if json.Unmarshal([]byte(doc), &std) != nil || std != s {
				t.Fatalf("Unquote(%s) = %q; encoding/json %q", doc, s, std)
			}
		}
		var m map[string]json.RawMessage
		if !utf8.ValidString(doc) || json.Unmarshal([]byte(doc), &m) != nil {
			return
		}
		for k, want := range m {
			got, ok := Lookup([]byte(doc), []string{k})
			if !ok || !bytes.Equal(got, want) {
				t.Fatalf("Lookup(%s, %q) = %s, %v; encoding/json %s", doc, k, got, ok, want)
			}
		}
	})
}
