package exact

import (
	"github.com/caddy-x402/caddy-x402/facilitator/evm"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// verifyTextForRevert is the verify invalidReason for a simulation revert.
func verifyTextForRevert(reason string) string {
	switch evm.ClassifyRevert(reason) {
	case evm.RevertUsed:
		return x402.ErrTextAlreadyUsed
	case evm.RevertExpired:
		return x402.ErrTextExpired
	case evm.RevertNotYetValid:
		return x402.ErrTextNotYetValid
	case evm.RevertSignature:
		return x402.ReasonInvalidSignature
	case evm.RevertBalance:
		return x402.ErrTextInsufficientFunds
	}
	return x402.ReasonSimulationFailed(reason)
}
