package upto

import (
	"crypto/ecdsa"

	"github.com/caddy-x402/caddy-x402/facilitator/permit2"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// CreatePayment signs an upto payment of at most accepted.Amount for the
// buyer's key, as @x402/evm 2.27's UptoEvmScheme client does, and returns
// it as the PAYMENT-SIGNATURE header (Base64 JSON of a v2 PaymentPayload).
// accepted.Extra must carry facilitatorAddress. permit2.EIP2612Extension
// signs the extension that spares the buyer an approve transaction.
func CreatePayment(key *ecdsa.PrivateKey, accepted x402.RequirementsV2, resource *x402.ResourceInfo, opts permit2.PaymentOptions) (string, error) {
	return permit2.CreatePayment(key, permit2.UptoProxy, accepted, resource, opts)
}
