// Package upto is the x402 `upto` scheme on EVM networks (eip155): the
// buyer signs a Permit2 permitWitnessTransferFrom of at most an amount to
// the x402 upto proxy (0x4020A4f3b7b90ccA423B9fabCc0CE57C6C240002), with
// the payee and the one address that may settle (witness.facilitator, a
// signer of this facilitator) in its witness; the seller settles the
// amount actually used, at most the maximum, 0 settling nothing. Its
// facilitator pipeline is the one of every x402 Permit2 proxy (package
// facilitator/permit2/proxy, which exact through Permit2 shares); this
// package registers it in package scheme, and holds the buyer's side
// (buyer.go). The core knows it only as a scheme.Bound.
package upto

import (
	"context"

	"github.com/caddy-x402/caddy-x402/facilitator/doctor"
	"github.com/caddy-x402/caddy-x402/facilitator/network"
	"github.com/caddy-x402/caddy-x402/facilitator/permit2"
	"github.com/caddy-x402/caddy-x402/facilitator/permit2/proxy"
	"github.com/caddy-x402/caddy-x402/facilitator/scheme"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

func init() { scheme.Register(mechanism{}) }

// mechanism is upto on eip155 (scheme.Mechanism).
type mechanism struct{}

func (mechanism) Name() string   { return x402.SchemeUpto }
func (mechanism) Family() string { return "eip155" }

// NonceSpace is Permit2's: upto's nonces are Permit2's (scheme.NonceSpacer).
func (mechanism) NonceSpace() string { return permit2.NonceSpace }

// Needs is Permit2 and the x402 upto proxy (scheme.Needer).
func (mechanism) Needs() doctor.Needs { return proxy.Needs(permit2.UptoProxy) }

var (
	_ scheme.NonceSpacer = mechanism{}
	_ scheme.Needer      = mechanism{}
)

// Bind readies upto on a network whose chain has Permit2 and the x402 upto
// proxy at their canonical addresses. On a chain without them (or whose
// code cannot be read now) it declines: nil, and the network serves no
// upto (a warning says why).
func (mechanism) Bind(ctx context.Context, n *network.Network, env scheme.Env) (scheme.Bound, error) {
	return proxy.Bind(ctx, n, env, permit2.UptoProxy)
}
