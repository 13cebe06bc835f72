// Package doctor holds the chain checks of the facilitator: what must
// exist on a chain (and in a network's configuration) for a scheme to be
// served there. Each check gives structured Findings: the network, the
// scheme (or "all"), what was checked, whether it is there, and the one
// fix. The facilitator's start-up (network.Open, the schemes' Bind, the
// engine's gas marks) and `caddy x402 doctor` run the same checks.
//
// A scheme says what it needs (Needs: contracts at fixed addresses,
// EIP-1153, a signer key) through scheme.Needer; the network-wide checks
// (the token's code and EIP-712 domain, the signers' gas) are the same for
// every scheme. The package is a leaf: it reads the chain through a
// Batcher (evm.Pool's Batch) and knows no scheme.
package doctor
