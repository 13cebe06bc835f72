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
