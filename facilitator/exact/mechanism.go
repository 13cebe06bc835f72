// Package exact is the x402 `exact` scheme on EVM networks (eip155):
// EIP-3009 transferWithAuthorization payments signed as EIP-712 typed
// data, by the payer's key or by a smart-contract wallet (EIP-1271,
// ERC-6492). One pipeline (pipeline.go): check off-chain, claim the
// authorization, one batched chain read, decide, reserve the value, submit
// through the network's engine, await the outcome. It registers itself in
// package scheme; the facilitator core knows it only as a scheme.Bound.
package exact

import (
	"context"
	"sync"

	"go.uber.org/zap"

	"github.com/caddy-x402/caddy-x402/facilitator/engine"
	"github.com/caddy-x402/caddy-x402/facilitator/network"
	"github.com/caddy-x402/caddy-x402/facilitator/scheme"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

func init() { scheme.Register(mechanism{}) }

// mechanism is exact on eip155 (scheme.Mechanism).
type mechanism struct{}

func (mechanism) Name() string   { return x402.SchemeExact }
func (mechanism) Family() string { return "eip155" }

// Bind readies exact on a network: the EIP-712 hasher of its token, the
// smart-wallet policy, and whether the token settles smart-wallet
// signatures (asked now; asked again at the first such payment if the
// chain does not answer).
func (mechanism) Bind(ctx context.Context, n *network.Network, env scheme.Env) (scheme.Bound, error) {
	b := &bound{Network: n, env: env}
	var err error
	if b.hasher, err = NewHasher(n.Domain); err != nil {
		return nil, err
	}
	b.smart = newWalletPolicy(&n.Cfg)
	if _, err := b.probeOverload(ctx, env.Logger); err != nil {
		env.Logger.Warn("could not ask the token whether it has transferWithAuthorization(..., bytes signature); asked again at the first smart-wallet payment", zap.String("network", n.Cfg.Name), zap.Error(err))
	}
	return b, nil
}

// bound is exact on one network (scheme.Bound), with the state only it uses.
type bound struct {
	*network.Network
	env      scheme.Env
	hasher   *Hasher
	smart    *walletPolicy
	reverts  revertStats // reverted settlements and cooling-off refusals (cooloff.go)
	striking sync.Map    // record ID -> chan closed when the strike of its revert is stored
}

// Extra is the token's EIP-712 domain.
func (b *bound) Extra() any { return &x402.DomainInfo{Name: b.Domain.Name, Version: b.Domain.Version} }

// Spent reads the token's authorizationState and AuthorizationUsed log.
func (b *bound) Spent() engine.Spent { return eip3009Spent{token: b.Token} }
