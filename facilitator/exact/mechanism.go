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
	"math/big"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"go.uber.org/zap"

	"github.com/caddy-x402/caddy-x402/facilitator/engine"
	"github.com/caddy-x402/caddy-x402/facilitator/evm"
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
	if b.hasher, err = evm.NewHasher(n.Domain); err != nil {
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
	hasher   *evm.Hasher
	smart    *walletPolicy
	reverts  revertStats // reverted settlements and cooling-off refusals (cooloff.go)
	striking sync.Map    // record ID -> chan closed when the strike of its revert is stored
}

// Extra is the token's EIP-712 domain.
func (b *bound) Extra() any { return &x402.DomainInfo{Name: b.Domain.Name, Version: b.Domain.Version} }

// Spent reads the token's authorizationState and AuthorizationUsed log.
func (b *bound) Spent() engine.Spent { return eip3009Spent{token: b.Token} }

// Check runs every check that needs no RPC, in the order of the reference
// facilitators, after the core's scheme and network checks: asset,
// payload, recipient, amount, window, signature. A non-empty reason is the
// verify invalidReason.
func (b *bound) Check(req *x402.Request, p *x402.Payment) (scheme.Payment, string) {
	r := &req.PaymentRequirements
	if !sameAddress(r.Asset, b.Token) {
		return nil, x402.ReasonUnsupportedAsset(r.Asset)
	}
	if err := p.ParsePayload(); err != nil {
		return nil, x402.ReasonOf(err)
	}
	if p.Asset != "" && !sameAddress(p.Asset, b.Token) {
		return nil, x402.ReasonUnsupportedAsset(p.Asset)
	}
	a := &p.Authorization
	if !sameAddress(r.PayTo, a.To) {
		return nil, x402.ReasonRecipient
	}
	want, err := x402.ParseAmount(r.MaxAmountRequired)
	if err != nil {
		return nil, x402.ReasonInvalidAmount(r.MaxAmountRequired)
	}
	if a.Value.Cmp(want) != 0 {
		return nil, x402.ReasonInvalidAmount(p.Value)
	}
	if reason := b.checkWindow(a); reason != "" {
		return nil, reason
	}
	smart, reason := b.checkSignature(a, p.Signature)
	if reason != "" {
		return nil, reason
	}
	return &payment{b: b, p: p, smart: smart}, ""
}

// Payer, Nonce and Value are the authorization's (scheme.Payment).
func (c *payment) Payer() common.Address { return c.p.Authorization.From }
func (c *payment) Nonce() [32]byte       { return c.p.Authorization.Nonce }
func (c *payment) Value() *big.Int       { return c.p.Authorization.Value }

// Verify runs the on-chain checks (unless the network skips them):
// authorizationState, the payer's balance and a simulated transfer in one
// RPC round trip, plus the wallet's verdict for a smart-contract wallet.
func (b *bound) Verify(ctx context.Context, sp scheme.Payment) (string, error) {
	c := sp.(*payment)
	if b.Cfg.SkipOnchainVerify {
		if c.smart != nil {
			// Only the chain can tell a smart-contract wallet's signature.
			return x402.ReasonInvalidSignature, nil
		}
		return "", nil
	}
	reason, _, err := b.checkOnchain(ctx, c)
	return reason, err
}

// Settle claims a checked payment and settles it (pipeline.go).
func (b *bound) Settle(ctx context.Context, sp scheme.Payment, requested string, deadline time.Time) (*x402.SettleResponse, error) {
	c := sp.(*payment)
	reason, err := b.claim(ctx, c)
	if err != nil {
		return nil, err
	}
	if reason != "" {
		return x402.Failed(requested, reason), nil
	}
	return b.settleClaimed(ctx, c, requested, deadline)
}

// Claim claims a checked payment's authorization and, unless the network
// skips on-chain checks, verifies it on chain and reserves its value
// against the payer's balance, for a settle that comes later.
func (b *bound) Claim(ctx context.Context, sp scheme.Payment, requested string) (scheme.Claim, string, error) {
	c := sp.(*payment)
	reason, err := b.claim(ctx, c)
	if err != nil || reason != "" {
		return nil, reason, err
	}
	cl := &claim{b: b, c: c, requested: requested}
	if !b.Cfg.SkipOnchainVerify {
		reason, st, err := b.checkOnchain(ctx, c)
		if err == nil && reason == "" {
			reason, err = b.reserve(ctx, c, st)
		}
		if err != nil || reason != "" {
			cl.Release()
			return nil, reason, err
		}
	}
	return cl, "", nil
}

// claim is a verified payment held for a settle that comes later
// (scheme.Claim).
type claim struct {
	b         *bound
	c         *payment
	requested string
	mu        sync.Mutex
	used      bool
}

// Settle settles the claimed payment within the settle timeout from now.
func (r *claim) Settle(ctx context.Context) (*x402.SettleResponse, error) {
	r.mu.Lock()
	used := r.used
	r.used = true
	r.mu.Unlock()
	if used {
		return x402.Failed(r.requested, x402.ErrTextAlreadyUsed), nil
	}
	deadline := time.Now().Add(r.b.env.SettleTimeout)
	ctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	return r.b.settleClaimed(ctx, r.c, r.requested, deadline)
}

// Release gives the claim back unsettled; after Settle it does nothing.
func (r *claim) Release() {
	r.mu.Lock()
	used := r.used
	r.used = true
	r.mu.Unlock()
	if !used {
		a := &r.c.p.Authorization
		r.b.Engine.Release(a.From, a.Nonce)
		r.c.releasePayer()
	}
}
