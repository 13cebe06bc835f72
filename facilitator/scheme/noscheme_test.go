package scheme_test

import (
	"context"
	"testing"

	"github.com/caddy-x402/caddy-x402/facilitator"
	"github.com/caddy-x402/caddy-x402/facilitator/network"
	"github.com/caddy-x402/caddy-x402/facilitator/scheme"
)

// TestNewWithoutSchemes: the core imports no scheme, so a program that
// does not import facilitator/schemes (or a scheme's package) has none
// registered, and facilitator.New says what to import instead of starting
// a facilitator that refuses every payment. This test binary links no
// scheme: it imports the core and package scheme only.
func TestNewWithoutSchemes(t *testing.T) {
	if n := len(scheme.All()); n != 0 {
		t.Fatalf("%d schemes registered in a binary that imports none", n)
	}
	nc, _ := network.Builtin("cronos-testnet")
	f, err := facilitator.New(context.Background(), facilitator.Config{Networks: []network.Config{nc}})
	const want = `no payment scheme is registered: import _ "github.com/caddy-x402/caddy-x402/facilitator/schemes" (the schemes this module ships) or a scheme's own package`
	if err == nil || err.Error() != want {
		if f != nil {
			f.Close()
		}
		t.Fatalf("New = %v, want the error %q", err, want)
	}
}
