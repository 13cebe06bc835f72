// Package jsonscan reads JSON on the hot paths without reflection: a
// strict Scanner that a decoder drives token by token (the payment
// header, a channel voucher), and Lookup, the lenient search of one value
// by its key path in an upstream's answer (the meter).
//
// The Scanner is narrower than encoding/json on purpose: it refuses what
// it cannot read exactly as encoding/json would (an escape in a string a
// caller keeps, nesting past MaxDepth), so that its caller can give the
// text to encoding/json instead. Lookup is more lenient: it checks only
// the values on its path, as a meter reading an upstream's answer must.
package jsonscan

import "unicode/utf8"

// MaxDepth is how many objects and arrays a Scanner holds open at once.
const MaxDepth = 32

// Scanner reads one JSON text from its front, checking it as strictly as
// encoding/json does. Every string it returns is a slice of the text. A
// method that returns false leaves the Scanner somewhere in the value it
// could not read: the caller gives up on the text.
type Scanner struct {
	text  string
	pos   int
	depth int // objects and arrays open
	// Escapes lets Skip take strings with escapes (checked); without it,
	// Skip refuses an escape as the strings a caller keeps do.
	Escapes bool
}

// New is a Scanner at the start of text.
func New(text string) Scanner { return Scanner{text: text} }

// Pos is the Scanner's offset in its text.
func (s *Scanner) Pos() int { return s.pos }

// From is the text from offset start (a Pos taken earlier) to Pos.
func (s *Scanner) From(start int) string { return s.text[start:s.pos] }

// Space skips JSON white space.
func (s *Scanner) Space() {
	for s.pos < len(s.text) {
		switch s.text[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

// Peek is the next byte after white space, 0 at the end.
func (s *Scanner) Peek() byte {
	s.Space()
	if s.pos < len(s.text) {
		return s.text[s.pos]
	}
	return 0
}

// End reports whether only white space is left.
func (s *Scanner) End() bool {
	s.Space()
	return s.pos == len(s.text)
}

// Open reads the { of an object; its members then come from Member.
func (s *Scanner) Open() bool {
	if s.Peek() != '{' || s.depth >= MaxDepth {
		return false
	}
	s.depth++
	s.pos++
	return true
}

// Member reads what follows the n-th member of an open object (n from
// 0): the next key, a string as Plain reads it, and its colon; or the
// closing } (end), which closes the object.
func (s *Scanner) Member(n int) (key string, end, ok bool) {
	c := s.Peek()
	if c == '}' {
		s.pos++
		s.depth--
		return "", true, true
	}
	if n > 0 {
		if c != ',' {
			return "", false, false
		}
		s.pos++
	}
	if key, ok = s.Plain(); !ok || s.Peek() != ':' {
		return "", false, false
	}
	s.pos++
	return key, false, true
}

// Plain reads a string without escapes or control characters that is
// valid UTF-8: its bytes are then the string encoding/json decodes.
func (s *Scanner) Plain() (string, bool) {
	if s.Peek() != '"' {
		return "", false
	}
	start := s.pos + 1
	ascii := true
	for i := start; i < len(s.text); i++ {
		switch c := s.text[i]; {
		case c == '"':
			s.pos = i + 1
			t := s.text[start:i]
			return t, ascii || utf8.ValidString(t)
		case c == '\\' || c < 0x20:
			return "", false
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	return "", false
}

// Number reads a JSON number and returns its text.
func (s *Scanner) Number() (string, bool) {
	s.Space()
	start, i := s.pos, s.pos
	t := s.text
	if i < len(t) && t[i] == '-' {
		i++
	}
	switch {
	case i < len(t) && t[i] == '0':
		i++
	case i < len(t) && '1' <= t[i] && t[i] <= '9':
		i = digits(t, i)
	default:
		return "", false
	}
	if i < len(t) && t[i] == '.' {
		if i++; i == len(t) || !isDigit(t[i]) {
			return "", false
		}
		i = digits(t, i)
	}
	if i < len(t) && (t[i] == 'e' || t[i] == 'E') {
		i++
		if i < len(t) && (t[i] == '+' || t[i] == '-') {
			i++
		}
		if i == len(t) || !isDigit(t[i]) {
			return "", false
		}
		i = digits(t, i)
	}
	s.pos = i
	return t[start:i], true
}

// digits is the end of the run of digits at t[i].
func digits(t string, i int) int {
	for i < len(t) && isDigit(t[i]) {
		i++
	}
	return i
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// Null reads a null if one is next.
func (s *Scanner) Null() bool { return s.Peek() == 'n' && s.literal("null") }

// literal reads l if the text goes on with it.
func (s *Scanner) literal(l string) bool {
	if len(s.text)-s.pos < len(l) || s.text[s.pos:s.pos+len(l)] != l {
		return false
	}
	s.pos += len(l)
	return true
}

// Skip reads any JSON value and returns its text. Its strings need not be
// UTF-8 (a skipped value is not decoded); they hold escapes only with
// Escapes set.
func (s *Scanner) Skip() (string, bool) {
	s.Space()
	start := s.pos
	if !s.skip() {
		return "", false
	}
	return s.text[start:s.pos], true
}

func (s *Scanner) skip() bool {
	switch c := s.Peek(); {
	case c == '"':
		return s.skipString()
	case c == '{':
		if !s.Open() {
			return false
		}
		for n := 0; ; n++ {
			_, end, ok := s.Member(n)
			if !ok {
				return false
			}
			if end {
				return true
			}
			if !s.skip() {
				return false
			}
		}
	case c == '[':
		if s.depth >= MaxDepth {
			return false
		}
		s.depth++
		s.pos++
		if s.Peek() == ']' {
			s.pos++
			s.depth--
			return true
		}
		for {
			if !s.skip() {
				return false
			}
			switch s.Peek() {
			case ',':
				s.pos++
			case ']':
				s.pos++
				s.depth--
				return true
			default:
				return false
			}
		}
	case c == '-' || isDigit(c):
		_, ok := s.Number()
		return ok
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	case c == 'n':
		return s.literal("null")
	}
	return false
}

// skipString reads a string at pos: no control characters, and escapes
// only with Escapes set, each one checked.
func (s *Scanner) skipString() bool {
	t := s.text
	for i := s.pos + 1; i < len(t); i++ {
		switch c := t[i]; {
		case c == '"':
			s.pos = i + 1
			return true
		case c < 0x20:
			return false
		case c == '\\':
			if !s.Escapes {
				return false
			}
			if i++; i == len(t) {
				return false
			}
			switch t[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if len(t)-i <= 4 {
					return false
				}
				for _, h := range []byte(t[i+1 : i+5]) {
					if !isHex(h) {
						return false
					}
				}
				i += 4
			default:
				return false
			}
		}
	}
	return false
}

func isHex(c byte) bool {
	return isDigit(c) || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// FoldsTo reports whether key is, but for letter case, one of names:
// encoding/json would take it for that field. A key that is not ASCII
// counts as one, to be safe (encoding/json folds some other letters too).
func FoldsTo(key string, names ...string) bool {
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
