package x402cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	caddycmd "github.com/caddyserver/caddy/v2/cmd"
)

// TestHelpNamesBothHeaders (issue 33): "caddy x402 --help" says which
// header pay sends in each version, as it does.
func TestHelpNamesBothHeaders(t *testing.T) {
	c, ok := caddycmd.Commands()["x402"]
	if !ok {
		t.Fatal("no x402 command registered")
	}
	for _, want := range []string{"PAYMENT-SIGNATURE header (x402 version 2)", "X-PAYMENT header (version 1)"} {
		if !strings.Contains(c.Long, want) {
			t.Errorf("caddy x402 --help lacks %q:\n%s", want, c.Long)
		}
	}
}

// TestPayKeyErrors (issue 33): a bad buyer key is called the buyer's key,
// never a signer key (the facilitator's gas payer), and never repeated.
func TestPayKeyErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad")
	if err := os.WriteFile(bad, []byte("0xc0ffee"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		o    PayOptions
		env  string
		want string
	}{
		{"short --key", PayOptions{Key: "0xc0ffee"}, "", "--key, the buyer's key: private key must be 32 bytes"},
		{"bad --key-file", PayOptions{KeyFile: bad}, "", "--key-file, the buyer's key: key file " + bad},
		{"missing --key-file", PayOptions{KeyFile: filepath.Join(dir, "none")}, "", "--key-file, the buyer's key: reading the key file"},
		{"bad environment", PayOptions{}, "0xc0ffee", "the buyer's key: environment variable " + EnvBuyerKey},
		{"none", PayOptions{}, "", "no buyer key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(EnvBuyerKey, tc.env)
			_, err := payKey(tc.o)
			if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "signer") || strings.Contains(err.Error(), "c0ffee") {
				t.Fatalf("payKey = %v, want %q in it, no \"signer\", no key", err, tc.want)
			}
		})
	}
}
