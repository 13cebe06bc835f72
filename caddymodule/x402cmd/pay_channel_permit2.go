package x402cmd

import (
	"fmt"

	"github.com/caddy-x402/caddy-x402/facilitator/permit2"
)

// permit2Hint says what to do when a Permit2 deposit is refused for want
// of an allowance to Permit2.
func permit2Hint(reason string) string {
	if reason != "invalid_batch_settlement_evm_permit2_allowance_required" {
		return ""
	}
	return fmt.Sprintf(": the wallet has not approved Permit2 (%s) on the token for the deposit; approve it once, e.g. with --approve-permit2 RPC_URL, and pay again", permit2.Address.Hex())
}
