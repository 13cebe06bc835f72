package paywall

import (
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
)

// TestUnknownOptionSuggests (issue 33): a mistyped option of the x402
// block is refused with the nearest known option, whatever its argument
// count; a word far from every option gets no guess.
func TestUnknownOptionSuggests(t *testing.T) {
	for _, tc := range []struct {
		block, want, not string
	}{
		{"pay_too 0x5e11e5e11e5e11e5e11e5e11e5e11e5e11e5e11e", `unrecognized option "pay_too"; did you mean pay_to?`, ""},
		{"prise 0.01", `unrecognized option "prise"; did you mean price?`, ""},
		{"metre json usage.n 1", `unrecognized option "metre"; did you mean meter?`, ""},
		{"forward_payment_headers", `did you mean forward_payment_header?`, ""},
		{"colour blue", `unrecognized option "colour"`, "did you mean"},
	} {
		t.Run(tc.block, func(t *testing.T) {
			d := caddyfile.NewTestDispenser("x402 {\n" + tc.block + "\n}")
			err := new(Handler).UnmarshalCaddyfile(d)
			if err == nil || !strings.Contains(err.Error(), tc.want) || (tc.not != "" && strings.Contains(err.Error(), tc.not)) {
				t.Fatalf("err = %v, want %q in it (and no %q)", err, tc.want, tc.not)
			}
		})
	}
}

// TestOptionsAreParsed: every name in options (the list a mistyped option
// is matched against, and the gate of the one-argument options) is an
// option the parser handles, so the list and caddyfile.go's switches do not
// drift apart: none of them is refused as unrecognized, with an argument
// or without.
func TestOptionsAreParsed(t *testing.T) {
	for _, opt := range options {
		for _, line := range []string{opt, opt + " x"} {
			d := caddyfile.NewTestDispenser("x402 {\n" + line + "\n}")
			if err := new(Handler).UnmarshalCaddyfile(d); err != nil && strings.Contains(err.Error(), "unrecognized option") {
				t.Errorf("%q: %v", line, err)
			}
		}
	}
}
