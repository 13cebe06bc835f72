package app

import (
	"math/big"

	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// parseUnits parses a non-negative whole number of a token's smallest
// unit, zero included, within uint256.
func parseUnits(s string) (*big.Int, error) {
	if s == "0" {
		return new(big.Int), nil
	}
	return x402.ParseAmount(s)
}
