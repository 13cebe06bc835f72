package evm

import (
	"net/url"
	"strings"
)

// RedactURL keeps credentials out of logs, health answers and errors:
// providers put them in the userinfo (https://user:pass@host), the path
// (https://host/v2/<key>) and the query (?apikey=...). What is left is
// the scheme and host, with a mark where something was cut, such as
// https://…@host/…?….
func RedactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return "(an RPC URL that does not parse)"
	}
	var b strings.Builder
	b.WriteString(u.Scheme)
	b.WriteString("://")
	if u.User != nil {
		b.WriteString("…@")
	}
	b.WriteString(u.Host)
	if u.Path != "" && u.Path != "/" {
		b.WriteString("/…")
	}
	if u.RawQuery != "" || u.ForceQuery {
		b.WriteString("?…")
	}
	if u.Fragment != "" {
		b.WriteString("#…")
	}
	return b.String()
}

// secrets lists the parts of an RPC URL that must not be shown, longest
// first, each in the forms an error may quote it.
func secrets(raw string) []string {
	out := []string{raw}
	u, err := url.Parse(raw)
	if err != nil {
		return out
	}
	add := func(s ...string) {
		for _, v := range s {
			if len(v) >= 3 {
				out = append(out, v)
			}
		}
	}
	add(u.String())
	if u.User != nil {
		p, _ := u.User.Password()
		add(u.User.String(), u.User.Username(), p)
	}
	if u.Path != "/" {
		add(u.EscapedPath(), u.Path)
	}
	add(u.RawQuery, u.Fragment)
	return out
}

// RedactText replaces every credential of the RPC URL raw found in s.
func RedactText(s, raw string) string {
	if !strings.ContainsAny(s, "/:@?") {
		return s
	}
	red := RedactURL(raw)
	for i, sec := range secrets(raw) {
		if i == 0 || i == 1 {
			s = strings.ReplaceAll(s, sec, red)
			continue
		}
		s = strings.ReplaceAll(s, sec, "…")
	}
	return s
}

// RedactError returns err with the credentials of the RPC URL raw cut out
// of its message (Go's HTTP client repeats the request URL in its errors).
// errors.Is and errors.As still see the original.
func RedactError(err error, raw string) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	red := RedactText(msg, raw)
	if red == msg {
		return err
	}
	return &redactedError{msg: red, err: err}
}

type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }
