package facilitatorapi_test

import (
	"testing"

	// The x402 handler, which the tests' sites pay at.
	_ "github.com/caddy-x402/caddy-x402/caddymodule"
	"github.com/caddy-x402/caddy-x402/caddymodule/internal/testutil"
)

func TestMain(m *testing.M) { testutil.Main(m) }
