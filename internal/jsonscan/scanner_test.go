package jsonscan

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestSkip: Skip reads one value as strictly as encoding/json, and more
// narrowly: no escapes unless Escapes is set, no nesting past MaxDepth.
func TestSkip(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		escapes    bool
		ok         bool
		rest       string // what follows the value
	}{
		{"string", `"abc" x`, false, true, " x"},
		{"empty string", `""`, false, true, ""},
		{"not UTF-8", "\"a\xffb\"", false, true, ""},
		{"escape refused", `"a\nb"`, false, false, ""},
		{"escape taken", `"a\nb\u00e9\/"`, true, true, ""},
		{"bad escape", `"a\xb"`, true, false, ""},
		{"short unicode escape", `"\u00e"`, true, false, ""},
		{"escape at the end", `"\`, true, false, ""},
		{"control character", "\"a\x01\"", true, false, ""},
		{"unterminated", `"abc`, false, false, ""},
		{"numbers", `-0.5e+10,`, false, true, ","},
		{"zero", `0]`, false, true, "]"},
		{"leading zero", `01`, false, true, "1"},
		{"minus alone", `-`, false, false, ""},
		{"fraction without digits", `1.`, false, false, ""},
		{"exponent without digits", `1e+`, false, false, ""},
		{"literals", `[true,false,null]`, false, true, ""},
		{"literal cut", `nul`, false, false, ""},
		{"literal typo", `trve`, false, false, ""},
		{"object", ` { "a" : [1, {"b":{}}] , "c":"d" }x`, false, true, "x"},
		{"empty object and array", `[{},[]]`, false, true, ""},
		{"escaped key", `{"\u0061":1}`, true, false, ""},
		{"trailing comma in object", `{"a":1,}`, false, false, ""},
		{"trailing comma in array", `[1,]`, false, false, ""},
		{"missing colon", `{"a" 1}`, false, false, ""},
		{"missing comma", `[1 2]`, false, false, ""},
		{"key not a string", `{a:1}`, false, false, ""},
		{"unclosed", `[1,[2]`, false, false, ""},
		{"nothing", ``, false, false, ""},
		{"a stray bracket", `]`, false, false, ""},
		{"deepest", strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth), false, true, ""},
		{"too deep", strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1), false, false, ""},
		{"too deep in objects", strings.Repeat(`{"a":`, MaxDepth) + "[]" + strings.Repeat("}", MaxDepth), false, false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := New(tc.text)
			s.Escapes = tc.escapes
			v, ok := s.Skip()
			if ok != tc.ok {
				t.Fatalf("Skip(%q) ok %v, want %v", tc.text, ok, tc.ok)
			}
			if !ok {
				return
			}
			if rest := tc.text[s.Pos():]; rest != tc.rest {
				t.Errorf("Skip(%q) left %q, want %q", tc.text, rest, tc.rest)
			}
			if !json.Valid([]byte(v)) {
				t.Errorf("Skip(%q) read %q, which encoding/json refuses", tc.text, v)
			}
		})
	}
}

// TestObject: an object read member by member, its strings kept as
// slices of the text; the depth of Open counts against MaxDepth.
func TestObject(t *testing.T) {
	s := New(` {"a":"x", "n": -12.5e3 ,"z":null, "o":{"k":true}} `)
	var got []string
	if !s.Open() {
		t.Fatal("Open refused an object")
	}
	for n := 0; ; n++ {
		key, end, ok := s.Member(n)
		if !ok {
			t.Fatalf("member %d refused", n)
		}
		if end {
			break
		}
		var v string
		switch key {
		case "a":
			v, ok = s.Plain()
		case "n":
			v, ok = s.Number()
		case "z":
			ok = s.Null()
			v = "null"
		default:
			v, ok = s.Skip()
		}
		if !ok {
			t.Fatalf("value of %q refused", key)
		}
		got = append(got, key+"="+v)
	}
	if !s.End() {
		t.Error("End false after the object")
	}
	if want := `a=x n=-12.5e3 z=null o={"k":true}`; strings.Join(got, " ") != want {
		t.Errorf("read %q, want %q", strings.Join(got, " "), want)
	}

	deep := New(strings.Repeat(`{"a":`, MaxDepth+1))
	for i := 0; i < MaxDepth; i++ {
		if !deep.Open() {
			t.Fatalf("Open %d refused", i+1)
		}
		if _, _, ok := deep.Member(0); !ok {
			t.Fatalf("member at depth %d refused", i+1)
		}
	}
	if deep.Open() {
		t.Errorf("Open past MaxDepth taken")
	}
}

// TestPlain: the strings a caller keeps have no escapes, no control
// characters and are UTF-8, so that their bytes are what encoding/json
// decodes.
func TestPlain(t *testing.T) {
	for _, tc := range []struct {
		text string
		ok   bool
	}{
		{`"abc"`, true},
		{` "crönos ✓"`, true},
		{`""`, true},
		{`"a\"b"`, false},
		{`"a\u0062"`, false},
		{"\"a\xff\"", false},
		{"\"a\tb\"", false},
		{`"abc`, false},
		{`abc`, false},
		{`1`, false},
	} {
		s := New(tc.text)
		v, ok := s.Plain()
		if ok != tc.ok {
			t.Errorf("Plain(%q) ok %v, want %v", tc.text, ok, tc.ok)
			continue
		}
		var std string
		if ok && (json.Unmarshal([]byte(tc.text), &std) != nil || std != v) {
			t.Errorf("Plain(%q) = %q, encoding/json %q", tc.text, v, std)
		}
	}
}

// TestNumber: the grammar of a JSON number, and the text read.
func TestNumber(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"0", "0"}, {"-0", "-0"}, {"12,", "12"}, {"1.25}", "1.25"}, {"1e9", "1e9"}, {"-2.5E-3 ", "-2.5E-3"},
		{"01", "0"}, {"+1", ""}, {".5", ""}, {"1.", ""}, {"1e", ""}, {"-", ""}, {"", ""}, {"x", ""},
	} {
		s := New(tc.text)
		v, ok := s.Number()
		if ok != (tc.want != "") || v != tc.want {
			t.Errorf("Number(%q) = %q, %v; want %q", tc.text, v, ok, tc.want)
		}
	}
}

// TestFoldsTo: the keys encoding/json would match to a field's name.
func TestFoldsTo(t *testing.T) {
	for _, tc := range []struct {
		key  string
		want bool
	}{
		{"scheme", true}, {"Scheme", true}, {"SCHEME", true}, {"payTo", true}, {"payto", true},
		{"schemes", false}, {"schema", false}, {"", false}, {"schème", true}, {"\u212a", true},
	} {
		if got := FoldsTo(tc.key, "scheme", "payTo"); got != tc.want {
			t.Errorf("FoldsTo(%q) = %v, want %v", tc.key, got, tc.want)
		}
	}
}

// FuzzScanner: what Skip and Plain take, encoding/json takes and reads
// the same; what encoding/json takes without escapes and deep nesting,
// Skip takes.
func FuzzScanner(f *testing.F) {
	for _, s := range []string{`{"a":[1,-2.5e3,{"b":"\u00e9\n"},true,null]}`, `"x"`, `[[[]]]`, `{"a" :1 , "b":{}}`, `-0.0e-0`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		valid := json.Valid([]byte(text))
		for _, escapes := range []bool{false, true} {
			s := New(text)
			s.Escapes = escapes
			v, ok := s.Skip()
			whole := ok && s.End()
			if whole && !valid {
				t.Fatalf("Skip took %q (escapes %v), which encoding/json refuses", text, escapes)
			}
			if ok && !json.Valid([]byte(v)) {
				t.Fatalf("Skip read %q of %q, which encoding/json refuses", v, text)
			}
			if valid && !whole && escapes && !strings.Contains(text, `\`) && strings.Count(text, "[")+strings.Count(text, "{") <= MaxDepth && utf8.ValidString(text) {
				t.Fatalf("Skip refused %q, which encoding/json takes", text)
			}
		}
		s := New(text)
		if v, ok := s.Plain(); ok {
			var std string
			if err := json.Unmarshal([]byte(text[:s.Pos()]), &std); err != nil || std != v {
				t.Fatalf("Plain read %q of %q; encoding/json %q, %v", v, text, std, err)
			}
		}
	})
}
