package paywall

import (
	"errors"
	"slices"

	"github.com/caddy-x402/caddy-x402/facilitator"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// Gas sponsoring of an upto route: with gas_sponsoring eip2612 its 402
// declares the eip2612GasSponsoring extension, as the reference servers'
// declareEip2612GasSponsoringExtension does, so that a buyer who has not
// approved Permit2 signs an EIP-2612 permit of the token to Permit2 with
// its payment, which the facilitator submits with the settle: the buyer
// needs neither an approval transaction nor gas.

// GasSponsoringEIP2612 is the gas_sponsoring setting that declares the
// eip2612GasSponsoring extension.
const GasSponsoringEIP2612 = "eip2612"

// eip2612Declaration is the extension's declaration in a 402.
func eip2612Declaration() map[string]any {
	addr := map[string]any{"type": "string", "pattern": "^0x[a-fA-F0-9]{40}$"}
	num := map[string]any{"type": "string", "pattern": "^[0-9]+$"}
	return map[string]any{
		"info": map[string]any{
			"description": "The facilitator accepts EIP-2612 gasless Permit to `Permit2` canonical contract.",
			"version":     "1",
		},
		"schema": map[string]any{
			"$schema": "https://json-schema.org/draft/2020-12/schema",
			"type":    "object",
			"properties": map[string]any{
				"from": addr, "asset": addr, "spender": addr, "amount": num, "nonce": num, "deadline": num,
				"signature": map[string]any{"type": "string", "pattern": "^0x[a-fA-F0-9]+$"},
				"version":   map[string]any{"type": "string", "pattern": "^[0-9]+(\\.[0-9]+)*$"},
			},
			"required": []string{"from", "asset", "spender", "amount", "nonce", "deadline", "signature", "version"},
		},
	}
}

// checkSponsoring refuses gas_sponsoring eip2612 (setting) with an
// embedded facilitator (fac; nil with a remote one) that does not serve
// the extension. (A remote facilitator is the seller's to choose.)
func checkSponsoring(setting string, fac *facilitator.Facilitator) error {
	if setting != GasSponsoringEIP2612 || fac == nil {
		return nil
	}
	if !slices.Contains(fac.Supported().Extensions, x402.ExtEIP2612GasSponsoring) {
		return errors.New("x402: gas_sponsoring eip2612: the x402 app's facilitator does not serve the eip2612GasSponsoring extension")
	}
	return nil
}
