// Package batchsettlement is the x402 `batch-settlement` scheme (payment
// channels) on EVM networks, facilitator side: verify of the deposit,
// voucher and refund payloads and settle of deposit (through the network's
// engine and journal), as @x402/evm 2.27's facilitator answers them. The
// channel's typed data, calldata and reads come from its sub-package
// batch (facilitator/batchsettlement/batch), a leaf (the devnet imports
// it); this package is the one that knows the engine and the network.
package batchsettlement

import (
	"context"
	"crypto/ecdsa"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/rpc"
	"go.uber.org/zap"

	"github.com/caddy-x402/caddy-x402/facilitator/batchsettlement/batch"
	"github.com/caddy-x402/caddy-x402/facilitator/doctor"
	"github.com/caddy-x402/caddy-x402/facilitator/engine"
	"github.com/caddy-x402/caddy-x402/facilitator/network"
	"github.com/caddy-x402/caddy-x402/facilitator/permit2"
	"github.com/caddy-x402/caddy-x402/facilitator/scheme"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// Scheme is the requirements' scheme of payment channels.
const Scheme = x402.SchemeBatchSettlement

func init() { scheme.Register(mechanism{}) }

// mechanism is batch-settlement on eip155 (scheme.Mechanism).
type mechanism struct{}

func (mechanism) Name() string   { return Scheme }
func (mechanism) Family() string { return "eip155" }

// Needs is the settlement contract (the escrow) and the ERC-3009 deposit
// collector at their canonical addresses, EIP-1153 and a signer key (the
// receiver authorizer) (scheme.Needer).
func (mechanism) Needs() doctor.Needs {
	return doctor.Needs{
		Contracts: []doctor.Contract{
			{Name: "x402 batch settlement (escrow)", Address: batch.SettlementAddress},
			{Name: "x402 ERC-3009 deposit collector", Address: batch.ERC3009CollectorAddress},
		},
		TransientStorage: true,
		SignerKey:        true,
	}
}

var _ scheme.Needer = mechanism{}

// Bind readies batch-settlement on a network that has the settlement
// contract and the ERC-3009 deposit collector at their canonical
// addresses, runs EIP-1153 (doctor.SupportsTransientStorage), and has a
// signer key (the receiver authorizer). Elsewhere it
// declines (nil, nil), saying why in the log: the network serves its
// other schemes.
func (mechanism) Bind(ctx context.Context, n *network.Network, env scheme.Env) (scheme.Bound, error) {
	log := env.Logger.With(zap.String("network", n.Cfg.Name))
	if len(n.Cfg.SignerKeys) == 0 {
		log.Info("batch-settlement not offered: the network has no signer key to authorize claims and refunds")
		return nil, scheme.Decline("the network has no signer key to authorize claims and refunds: give it a signer_key")
	}
	contracts := mechanism{}.Needs().Contracts
	codes, err := doctor.CodeAt(ctx, doctor.BatchFunc(n.Pool.BatchShared), doctor.Addresses(contracts)...)
	if err != nil {
		log.Warn("batch-settlement not offered: the chain could not be asked for the contracts' code at start; restart when it answers", zap.Error(err))
		return nil, scheme.Decline(fmt.Sprintf("the chain's RPC did not answer at start (%v): restart when it answers", err))
	}
	for _, c := range codes {
		if !c.Has {
			log.Info("batch-settlement not offered: no contract at its canonical address", zap.String("address", c.Address.Hex()))
			return nil, scheme.Decline(fmt.Sprintf("the chain has no contract at %s (the x402 batch settlement contracts' canonical address)", c.Address.Hex()))
		}
	}
	// The contracts use transient storage (EIP-1153): on a chain that does
	// not run it (before Cancun) every deposit and claim would revert.
	var transient bool
	err = n.Pool.Do(ctx, func(ctx context.Context, c *rpc.Client) error {
		var err error
		transient, err = doctor.SupportsTransientStorage(ctx, ethclient.NewClient(c))
		return err
	})
	switch {
	case err != nil:
		log.Warn("batch-settlement not offered: the chain could not be probed for EIP-1153 (transient storage) at start; restart when it answers", zap.Error(err))
		return nil, scheme.Decline(fmt.Sprintf("the chain could not be probed for EIP-1153 (transient storage) at start (%v): restart when it answers", err))
	case !transient:
		log.Warn("batch-settlement not offered: the chain does not run EIP-1153 (transient storage, Cancun), which the channel contracts need; it is offered once the chain has enabled it and the facilitator restarts")
		return nil, scheme.Decline("the chain does not run EIP-1153 (transient storage, Cancun), which the channel contracts need")
	}
	key := n.Cfg.SignerKeys[0]
	return &bound{Network: n, env: env, authorizerKey: key, authorizer: crypto.PubkeyToAddress(key.PublicKey)}, nil
}

// bound is batch-settlement on one network (scheme.Bound).
type bound struct {
	*network.Network
	env scheme.Env
	// authorizerKey signs ClaimBatch and Refund for channels whose
	// receiverAuthorizer is authorizer: the network's first signer key.
	authorizerKey *ecdsa.PrivateKey
	authorizer    common.Address
	// permit2 says this is the bound of Permit2 deposits (permit2.go).
	permit2 bool
}

// Extra is what the requirements' extra must carry for a channel with this
// facilitator: receiverAuthorizer, and the token's EIP-712 name and version
// (the ERC-3009 deposit is signed under them).
func (b *bound) Extra() any {
	return map[string]any{"receiverAuthorizer": b.authorizer.Hex(), "name": b.Domain.Name, "version": b.Domain.Version}
}

// SupportedExtra is /supported's extra of the kind, as the published
// facilitator's getExtra: the receiver authorizer.
func (b *bound) SupportedExtra() any {
	return map[string]any{"receiverAuthorizer": b.authorizer.Hex()}
}

// V2Only: x402 v1 has no batch-settlement; /supported lists it under the
// CAIP-2 id only.
func (b *bound) V2Only() bool { return true }

// The optional abilities the core finds on batch-settlement's Bound.
var (
	_ scheme.SupportedExtra = (*bound)(nil)
	_ scheme.V2Only         = (*bound)(nil)
)

// Spent reads a deposit's EIP-3009 authorization on the token: the ERC-3009
// collector uses receiveWithAuthorization with the nonce
// batch.ERC3009DepositNonce, so the token's authorizationState and
// AuthorizationUsed log tell a deposit used.
func (b *bound) Spent() engine.Spent {
	if b.permit2 {
		return permit2DepositSpent{permit2.Spent{Token: b.Token}}
	}
	return depositSpent{token: b.Token}
}

// name is the engine's name of this bound's deposits.
func (b *bound) name() string {
	if b.permit2 {
		return SchemePermit2Deposit
	}
	return Scheme
}

// Recognize reads a mined deposit back: payer, the settlement contract (the
// escrow) and the amount.
func (b *bound) Recognize(to common.Address, input []byte) (from, payee common.Address, value *big.Int, ok bool) {
	if to != batch.SettlementAddress || len(input) < 4 {
		return common.Address{}, common.Address{}, nil, false
	}
	m, err := batch.ABI.MethodById(input)
	if err != nil || m.Name != "deposit" {
		return common.Address{}, common.Address{}, nil, false
	}
	if _, err := m.Inputs.Unpack(input[4:]); err != nil {
		return common.Address{}, common.Address{}, nil, false
	}
	// The config is a static tuple, encoded in place: payer is the first
	// word, the amount the eighth.
	w := input[4:]
	return common.BytesToAddress(w[12:32]), batch.SettlementAddress, new(big.Int).SetBytes(w[7*32 : 8*32]), true
}
