// Package proxy is the facilitator's side of payments through an x402
// Permit2 proxy, shared by the schemes that use one: upto (the x402 upto
// proxy, 0x4020A4f3b7b90ccA423B9fabCc0CE57C6C240002) and exact through
// Permit2 (the exact proxy, 0x402085c248EeA27D92E8b30b2C58ed07f9E20001).
// The buyer signs a Permit2 permitWitnessTransferFrom of at most an
// amount to the proxy, with the payee (and, for upto, the one address
// that may settle: witness.facilitator, a signer of this facilitator) in
// its witness. Verify checks the signature, the window, the payer's
// Permit2 allowance and balance and simulates the settle at the maximum;
// settle journals and sends the proxy's settle through the network's
// engine, as exact does its transfers; upto settles the amount used, at
// most the maximum, 0 settling nothing. The eip2612GasSponsoring extension
// (the proxies' settleWithPermit) serves both. It registers no scheme:
// package upto and exact's Permit2 flavour call Bind from theirs.
package proxy

import (
	"context"
	"fmt"

	"github.com/ethereum/go-ethereum/rpc"
	"go.uber.org/zap"

	"github.com/caddy-x402/caddy-x402/facilitator/doctor"
	"github.com/caddy-x402/caddy-x402/facilitator/engine"
	"github.com/caddy-x402/caddy-x402/facilitator/evm"
	"github.com/caddy-x402/caddy-x402/facilitator/network"
	"github.com/caddy-x402/caddy-x402/facilitator/permit2"
	"github.com/caddy-x402/caddy-x402/facilitator/scheme"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// Bind binds the payments through one x402 Permit2 proxy to a network
// whose chain has Permit2 and that proxy, or declines it (nil, nil; the
// log says why): the Bind of upto's Mechanism (permit2.UptoProxy) and of
// exact's Permit2 flavour (permit2.ExactProxy).
func Bind(ctx context.Context, n *network.Network, env scheme.Env, proxy permit2.Proxy) (scheme.Bound, error) {
	missing, err := missingContracts(ctx, n, proxy)
	if err != nil {
		env.Logger.Warn("cannot read whether the chain has Permit2 and the x402 "+proxy.String()+" proxy; the network serves no "+proxy.String()+" payments through Permit2 until the facilitator starts again",
			zap.String("network", n.Cfg.Name), zap.Error(err))
		return nil, nil
	}
	if len(missing) > 0 {
		env.Logger.Info("the chain has no Permit2 or x402 "+proxy.String()+" proxy; the network serves no "+proxy.String()+" payments through Permit2",
			zap.String("network", n.Cfg.Name), zap.Strings("missing", missing))
		return nil, nil
	}
	h, err := permit2.NewHasher(proxy, n.ChainID)
	if err != nil {
		return nil, err
	}
	return &bound{Network: n, env: env, hasher: h, proxy: proxy, permit: hasEIP2612(ctx, n, env)}, nil
}

// noncesSelector is EIP-2612's nonces(address).
var noncesSelector = []byte{0x7e, 0xce, 0xbe, 0x00}

// hasEIP2612 reports whether the network's token has EIP-2612 permit, so
// that an eip2612GasSponsoring permit can be submitted for it: its
// nonces(address) answers a uint256 (a token without it reverts or
// answers nothing; its DOMAIN_SEPARATOR() was read at network.Open). A
// chain that cannot be asked now says no, as a bind that cannot read
// Permit2's code does.
func hasEIP2612(ctx context.Context, n *network.Network, env scheme.Env) bool {
	el, out := evm.CallData(n.Token, append(append([]byte(nil), noncesSelector...), make([]byte, 32)...))
	err := n.Pool.Batch(ctx, []rpc.BatchElem{el})
	if err == nil {
		err = el.Error
	}
	if err == nil && len(*out) == 32 {
		return true
	}
	env.Logger.Info("the token has no EIP-2612 permit (its nonces(address) did not answer a uint256), or the chain could not say; the eip2612GasSponsoring extension is not offered on this network",
		zap.String("network", n.Cfg.Name), zap.String("token", n.Token.Hex()), zap.Int("answer_bytes", len(*out)), zap.Error(err))
	return false
}

// Needs is what a chain must have for payments through proxy: Permit2
// and the proxy at their canonical addresses (the Needs of upto's
// Mechanism and of exact's Permit2 flavour).
func Needs(proxy permit2.Proxy) doctor.Needs {
	return doctor.Needs{Contracts: []doctor.Contract{
		{Name: "Permit2", Address: permit2.Address},
		{Name: "x402 " + proxy.String() + " Permit2 proxy", Address: proxy.Address()},
	}}
}

// missingContracts lists the canonical addresses of Permit2 and the proxy
// that hold no code on the chain.
func missingContracts(ctx context.Context, n *network.Network, proxy permit2.Proxy) ([]string, error) {
	codes, err := doctor.CodeAt(ctx, n.Pool, doctor.Addresses(Needs(proxy).Contracts)...)
	if err != nil {
		return nil, err
	}
	var missing []string
	for _, c := range codes {
		if c.Err != nil {
			return nil, fmt.Errorf("eth_getCode %s: %w", c.Address.Hex(), c.Err)
		}
		if !c.Has {
			missing = append(missing, c.Address.Hex())
		}
	}
	return missing, nil
}

// bound is upto, or exact through Permit2, on one network (scheme.Bound).
type bound struct {
	*network.Network
	env    scheme.Env
	hasher *permit2.Hasher
	proxy  permit2.Proxy
	permit bool // the token has EIP-2612 permit (hasEIP2612)
}

// upto reports whether the bound is upto's (else exact through Permit2).
func (b *bound) upto() bool { return b.proxy == permit2.UptoProxy }

// name is the bound's scheme as its records name it.
func (b *bound) name() string {
	if b.upto() {
		return x402.SchemeUpto
	}
	return x402.SchemeExactPermit2
}

// Extra is what the upto requirements' extra carries: the token's
// EIP-712 name and version (for an eip2612GasSponsoring permit) and
// facilitatorAddress, the signer that settles (witness.facilitator). With
// several signer keys it is the first; a payment naming any of them is
// accepted and settled from the one it names.
func (b *bound) Extra() any {
	out := map[string]any{"name": b.Domain.Name, "version": b.Domain.Version}
	if !b.upto() {
		out["assetTransferMethod"] = "permit2"
		return out
	}
	if s := b.Engine.Signers(); len(s) > 0 {
		out["facilitatorAddress"] = s[0].Hex()
	}
	return out
}

// SupportedExtra is the extra /supported lists with upto's kinds.
func (b *bound) SupportedExtra() any { return b.Extra() }

// SponsorsEIP2612 reports whether the bound takes the
// eip2612GasSponsoring extension: the token has EIP-2612 permit.
func (b *bound) SponsorsEIP2612() bool { return b.permit }

// V2Only keeps upto out of /supported's x402 v1 kinds: v1 has no upto.
func (b *bound) V2Only() bool { return true }

// The optional abilities the core finds on upto's Bound.
var (
	_ scheme.SupportedExtra = (*bound)(nil)
	_ scheme.EIP2612Sponsor = (*bound)(nil)
	_ scheme.V2Only         = (*bound)(nil)
)

// Spent reads Permit2's nonceBitmap and the token's Transfer logs.
func (b *bound) Spent() engine.Spent {
	return permit2Spent{Spent: permit2.Spent{Token: b.Token}, proxy: b.proxy}
}
