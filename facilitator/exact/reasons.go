package exact

import (
	"math/big"

	"github.com/caddy-x402/caddy-x402/facilitator/evm"
	"github.com/caddy-x402/caddy-x402/facilitator/scheme"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// verifyTextForRevert is the verify invalidReason for a simulation revert.
func verifyTextForRevert(reason string) string {
	switch ClassifyRevert(reason) {
	case RevertUsed:
		return x402.ErrTextAlreadyUsed
	case RevertExpired:
		return x402.ErrTextExpired
	case RevertNotYetValid:
		return x402.ErrTextNotYetValid
	case RevertSignature:
		return x402.ReasonInvalidSignature
	case RevertBalance:
		return x402.ErrTextInsufficientFunds
	}
	return x402.ReasonSimulationFailed(reason)
}

// simulationError is a StatusError 503 when the simulated transfer failed
// for another reason than a revert (the node could not run it): that is
// no verdict on the payment.
func simulationError(n *bound, st *ChainState) error {
	if st.Simulation == nil || st.Used {
		return nil
	}
	if _, ok := evm.RevertReason(st.Simulation); ok {
		return nil
	}
	return scheme.Unavailable("the node of network "+n.Cfg.Name+" could not simulate the transfer; try again shortly", st.Simulation)
}

// onchainReason turns on-chain facts into a verify reason ("" when all is well).
func onchainReason(st *ChainState, value *big.Int) string {
	if st.Used {
		return x402.ErrTextAlreadyUsed
	}
	if st.Balance.Cmp(value) < 0 {
		return x402.ErrTextInsufficientFunds
	}
	if st.Simulation != nil {
		if r, ok := evm.RevertReason(st.Simulation); ok {
			return verifyTextForRevert(r)
		}
		return x402.ReasonSimulationFailed(st.Simulation.Error())
	}
	return ""
}

// gasMarginPercent is added to eth_estimateGas's figure.
const gasMarginPercent = 25
