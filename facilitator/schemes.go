package facilitator

// The payment schemes the facilitator serves: each registers itself in
// package scheme from its init. A new scheme adds its import here.
import (
	_ "github.com/caddy-x402/caddy-x402/facilitator/batchsettlement"
	_ "github.com/caddy-x402/caddy-x402/facilitator/exact"
	_ "github.com/caddy-x402/caddy-x402/facilitator/upto"
)
