package facilitator

import (
	"context"
	"errors"
	"fmt"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/caddy-x402/caddy-x402/facilitator/engine"
	"github.com/caddy-x402/caddy-x402/facilitator/store"
)

// Settlement reports a settlement by any of its transaction hashes, from
// the journal: payment.settled, payment.failed, or payment.failed with
// "Settlement pending" while it waits for its block.
//
// A transaction the journal does not hold (compacted after the journal
// retention) is looked up on every network's chain: a mined
// transferWithAuthorization to the network's token answers
// payment.settled, or payment.failed when it reverted. One that is not
// found is ErrSettlementNotFound; a chain that cannot be reached is
// another error, never ErrSettlementNotFound.
func (f *Facilitator) Settlement(txHash string) (*SettleResponse, error) {
	rec, err := f.journal.ByTx(txHash)
	if errors.Is(err, ErrSettlementNotFound) {
		b, derr := hexutil.Decode(txHash)
		if derr != nil || len(b) != common.HashLength {
			return nil, err
		}
		ctx, cancel := context.WithTimeout(f.ctx, chainLookupTimeout)
		defer cancel()
		return f.settlementOnChain(ctx, common.BytesToHash(b))
	}
	if err != nil {
		return nil, err
	}
	res := responseOf(rec)
	if res.TxHash == "" {
		res.TxHash = txHash
	}
	return res, nil
}

// SettlementByAuthorization reports the settlement of an authorization,
// found by network (name or alias), payer address and authorization nonce
// (0x and 64 hex digits), from the journal: what a seller who lost the
// settle answer needs. The answer is as Settlement's. A malformed argument
// or an unknown network is a StatusError 400.
//
// An authorization the journal does not hold (never journaled, compacted
// after the journal retention, or lost by a store that lost acknowledged
// writes) is read on chain: unused is ErrSettlementNotFound (match it
// with errors.Is): nothing moved; used is answered as Settlement answers
// the transaction that used it, found by the token's AuthorizationUsed
// log within the journal retention. A chain that cannot be reached is
// another error, never ErrSettlementNotFound.
func (f *Facilitator) SettlementByAuthorization(network, from, nonce string) (*SettleResponse, error) {
	ctx, cancel := context.WithTimeout(f.ctx, authLookupTimeout)
	defer cancel()
	return f.settlementByAuthorization(ctx, network, from, nonce, false)
}

// OwnSettlementByAuthorization is SettlementByAuthorization for a caller
// that must know this facilitator made the settlement (the paywall, to
// deliver a payment whose records were lost): a settlement the journal
// does not hold is answered from the chain only when one of this
// facilitator's signer keys sent the transaction that used the
// authorization; otherwise it is ErrSettledElsewhere, as is one the
// journal holds as asked for through the facilitator's HTTP routes (a
// paywall elsewhere on the same pay_to may have delivered it). A journal
// record that says failed is checked on chain too. The look-up ends with
// ctx.
func (f *Facilitator) OwnSettlementByAuthorization(ctx context.Context, network, from, nonce string) (*SettleResponse, error) {
	ctx, cancel := context.WithTimeout(ctx, authLookupTimeout)
	defer cancel()
	return f.settlementByAuthorization(ctx, network, from, nonce, true)
}

func (f *Facilitator) settlementByAuthorization(ctx context.Context, requested, from, nonce string, own bool) (*SettleResponse, error) {
	n := f.networkNamed(requested)
	if n == nil {
		return nil, badRequest("network %q is not served by this facilitator", requested)
	}
	if !IsAddress(from) {
		return nil, badRequest("from must be a 0x-prefixed 20-byte hex address, got %q", from)
	}
	nb, err := hexutil.Decode(nonce)
	if err != nil || len(nb) != 32 {
		return nil, badRequest("nonce must be 0x and 64 hex digits, got %q", nonce)
	}
	rec, err := f.journal.ByID(engine.RecordID(n.Cfg.Name, common.HexToAddress(from), [32]byte(nb)))
	// A record that says failed, for a caller that asks because the
	// authorization is used on chain, may be older than a settlement
	// whose record was lost: the chain says which.
	if errors.Is(err, ErrSettlementNotFound) || (own && err == nil && rec.Status == StatusFailed) {
		return f.authorizationOnChain(ctx, n, common.HexToAddress(from), [32]byte(nb), own)
	}
	if err != nil {
		return nil, err
	}
	if own && rec.Via == store.ViaAPI {
		return nil, fmt.Errorf("settled through the facilitator's HTTP routes, for a seller there: %w", ErrSettledElsewhere)
	}
	return responseOf(rec), nil
}
