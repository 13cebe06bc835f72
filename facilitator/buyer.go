package facilitator

import (
	"crypto/ecdsa"

	"github.com/caddy-x402/caddy-x402/facilitator/exact"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// The buyer's side of the exact scheme lives in package exact; these names
// are the library's face for it.

// PaymentOptions tunes CreatePayment (exact.PaymentOptions).
type PaymentOptions = exact.PaymentOptions

// WalletDeployment is how a smart-contract wallet not deployed yet gets
// deployed (exact.WalletDeployment).
type WalletDeployment = exact.WalletDeployment

// CreatePayment signs an EIP-3009 authorization that pays exactly what the
// requirements ask, and returns it with its X-PAYMENT header value
// (exact.CreatePayment).
func CreatePayment(key *ecdsa.PrivateKey, req x402.PaymentRequirements, opts PaymentOptions) (string, *x402.Payment, error) {
	return exact.CreatePayment(key, req, opts)
}

// CreatePaymentV2 signs an EIP-3009 authorization that pays what accepted
// (one entry of a v2 402's accepts) asks, and returns it with its
// PAYMENT-SIGNATURE header value (exact.CreatePaymentV2).
func CreatePaymentV2(key *ecdsa.PrivateKey, accepted x402.RequirementsV2, resource *x402.ResourceInfo, opts PaymentOptions) (string, *x402.Payment, error) {
	return exact.CreatePaymentV2(key, accepted, resource, opts)
}
