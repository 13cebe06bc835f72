package x402cmd

import (
	"crypto/ecdsa"
	"fmt"
	"io"
	"math/big"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/caddy-x402/caddy-x402/facilitator/upto"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// payUpto signs an upto payment (a Permit2 witness transfer of at most
// the route's maximum, which the seller settles at what was used) and
// says so. The buyer's wallet must have approved Permit2 on the token
// once; the seller's refusal says so when it has not.
func payUpto(key *ecdsa.PrivateKey, accepted x402.RequirementsV2, resource *x402.ResourceInfo, max *big.Int, o PayOptions, stderr io.Writer) (string, error) {
	if o.wallet != nil {
		return "", fmt.Errorf("refusing to pay: the route takes scheme upto (Permit2), which --wallet (a smart-contract wallet) does not sign here; pay from the key's own address")
	}
	if o.PaymentID != "" {
		fmt.Fprintf(stderr, "x402: an upto payment carries no payment id here: paying without --payment-id\n")
	}
	header, err := upto.CreatePayment(key, accepted, resource, upto.PaymentOptions{})
	if err != nil {
		return "", fmt.Errorf("signing the upto payment: %w", err)
	}
	fmt.Fprintf(stderr, "x402: paying at most %s smallest units of %s on %s from %s to %s (scheme upto: the seller settles what was used; x402 version 2)\n",
		max, accepted.Asset, accepted.Network, crypto.PubkeyToAddress(key.PublicKey).Hex(), accepted.PayTo)
	return header, nil
}
