package facilitator

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/rpc"
	"go.uber.org/zap"

	"github.com/caddy-x402/caddy-x402/facilitator/engine"
	"github.com/caddy-x402/caddy-x402/facilitator/network"
	"github.com/caddy-x402/caddy-x402/facilitator/scheme"
	"github.com/caddy-x402/caddy-x402/facilitator/store"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// The journal forgets finished settlements after the journal retention;
// the paywall's redemption records may still need them (a buyer retrying
// a payment answered "Settlement pending"). The settlement look-ups then
// answer from the chain, which never forgets: a transaction of
// transferWithAuthorization to a configured network's token, found by its
// hash or by the authorization's AuthorizationUsed log.

// chainLookupTimeout bounds one look-up of a settlement on chain by its
// transaction.
const chainLookupTimeout = 30 * time.Second

// authLookupTimeout bounds one look-up of a settlement on chain by its
// authorization: a scan of the journal retention's blocks for its log,
// 649 round trips for 30 days of Cronos blocks (engine.findUse), about a
// minute at 100 ms a round trip. A settlement minutes old is found in the
// first.
const authLookupTimeout = 2 * time.Minute

// ErrSettledElsewhere is the answer of OwnSettlementByAuthorization for an
// authorization used on chain by a transaction that none of this
// facilitator's signer keys sent: someone else settled it (match it with
// errors.Is).
var ErrSettledElsewhere = errors.New("the authorization was used on chain by a transaction this facilitator's signer keys did not send")

// errChainUnreachable wraps the error of a chain that could not be asked:
// the settlement may exist there, so it is not store.ErrNotFound.
var errChainUnreachable = errors.New("cannot reach the chain to look the settlement up")

// recognize reads a mined transaction back through the schemes bound to
// its network: payer, payee and value.
func (f *Facilitator) recognize(n *network.Network, to common.Address, input []byte) (from, payee common.Address, value *big.Int, ok bool) {
	for _, m := range scheme.All() {
		if b := f.bound[boundKey{n, m.Name()}]; b != nil {
			if from, payee, value, ok = b.Recognize(to, input); ok {
				return from, payee, value, true
			}
		}
		for _, fb := range f.flavours[boundKey{n, m.Name()}] {
			if from, payee, value, ok = fb.b.Recognize(to, input); ok {
				return from, payee, value, true
			}
		}
	}
	return common.Address{}, common.Address{}, nil, false
}

// chainTx is the part of eth_getTransactionByHash's answer the look-up reads.
type chainTx struct {
	From  common.Address  `json:"from"`
	To    *common.Address `json:"to"`
	Input hexutil.Bytes   `json:"input"`
}

// chainReceipt is the part of eth_getTransactionReceipt's answer the
// look-up reads.
type chainReceipt struct {
	BlockNumber hexutil.Uint64 `json:"blockNumber"`
	Status      hexutil.Uint64 `json:"status"`
}

// settlementOnChain looks a transaction up on every configured network, in
// one batch per network (the transaction and its receipt). A mined
// transferWithAuthorization to the network's token answers payment.settled
// (status 1) or payment.failed (status 0); anything else, or a transaction
// no network has mined, is store.ErrNotFound, unless a network that
// could not be reached might hold it: then the error is not
// store.ErrNotFound.
func (f *Facilitator) settlementOnChain(ctx context.Context, hash common.Hash) (*x402.SettleResponse, error) {
	type answer struct {
		res *x402.SettleResponse
		err error
	}
	answers := make([]answer, len(f.networks))
	var wg sync.WaitGroup
	for i, n := range f.networks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, _, err := f.settlementOn(ctx, n, hash)
			answers[i] = answer{res, err}
		}()
	}
	wg.Wait()
	var errs []error
	for _, a := range answers {
		switch {
		case a.res != nil:
			return a.res, nil
		case a.err != nil && !errors.Is(a.err, store.ErrNotFound):
			errs = append(errs, a.err)
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return nil, fmt.Errorf("transaction %s: %w", hash.Hex(), store.ErrNotFound)
}

// settlementOn looks a transaction up on one network (see settlementOnChain)
// and tells who sent it.
func (f *Facilitator) settlementOn(ctx context.Context, n *network.Network, hash common.Hash) (*x402.SettleResponse, common.Address, error) {
	var tx *chainTx
	var rc *chainReceipt
	elems := []rpc.BatchElem{
		{Method: "eth_getTransactionByHash", Args: []any{hash}, Result: &tx},
		{Method: "eth_getTransactionReceipt", Args: []any{hash}, Result: &rc},
	}
	err := n.Pool.Batch(ctx, elems)
	if err == nil {
		err = errors.Join(elems[0].Error, elems[1].Error)
	}
	if err != nil {
		f.logger.Warn("looking a settlement up on chain failed", zap.String("network", n.Cfg.Name), zap.String("tx", hash.Hex()), zap.Error(err))
		return nil, common.Address{}, fmt.Errorf("network %s: %w: %w", n.Cfg.Name, errChainUnreachable, err)
	}
	if tx == nil || rc == nil || tx.To == nil {
		return nil, common.Address{}, store.ErrNotFound
	}
	from, to, value, ok := f.recognize(n, *tx.To, tx.Input)
	if !ok {
		return nil, common.Address{}, store.ErrNotFound
	}
	block := uint64(rc.BlockNumber)
	res := &x402.SettleResponse{X402Version: x402.X402Version, Network: n.Cfg.Name, TxHash: hash.Hex(), Timestamp: x402.Timestamp(f.blockTime(ctx, n, block))}
	if uint64(rc.Status) != types.ReceiptStatusSuccessful {
		res.Event, res.Error = x402.EventFailed, x402.ErrTextFailedOnChain
		return res, tx.From, nil
	}
	res.Event, res.From, res.To, res.Value, res.BlockNumber = x402.EventSettled, from.Hex(), to.Hex(), value.String(), &block
	return res, tx.From, nil
}

// blockTime is the time of a block, or now when it cannot be read.
func (f *Facilitator) blockTime(ctx context.Context, n *network.Network, number uint64) time.Time {
	var head *struct {
		Time hexutil.Uint64 `json:"timestamp"`
	}
	if err := n.Pool.Call(ctx, &head, "eth_getBlockByNumber", hexutil.Uint64(number), false); err != nil || head == nil {
		return f.now()
	}
	return time.Unix(int64(head.Time), 0)
}

// lookupSchemes lists the schemes bound to the network, in registration
// order, each followed by its flavours (exact through Permit2).
func (f *Facilitator) lookupSchemes(n *network.Network) []string {
	names := f.schemesOn(n)
	for _, name := range names {
		for _, fb := range f.flavours[boundKey{n, name}] {
			names = append(names, fb.m.Name())
		}
	}
	return names
}

// usedOnChain asks each of the schemes names bound to the network, in registration
// order, whether (from, nonce) is an authorization of it used on chain
// (exact: the token's authorizationState; upto: Permit2's nonceBitmap),
// and finds the transaction of the first that says so.
//
// A Permit2 nonce used on chain by no transaction of an x402 scheme within
// the look-up window (another Permit2 spender's transfer, the payer's
// invalidateUnorderedNonces: Permit2 logs nothing of the nonces it uses,
// so the scan reads the payer's transfers and finds none of ours) is
// errUsedElsewhere: a final answer, not a chain to ask again.
func (f *Facilitator) usedOnChain(ctx context.Context, n *network.Network, names []string, from common.Address, nonce [32]byte) (bool, common.Hash, error) {
	var elsewhere error
	for _, name := range names {
		used, tx, err := n.Engine.UsedBySchemes(ctx, name, from, nonce)
		if used && errors.Is(err, engine.ErrNoUseLog) && n.Engine.NonceSpace(name) != "" {
			elsewhere = err // another scheme of the space (Permit2's) may have used it: ask it too
			continue
		}
		if err != nil || used {
			return used, tx, err
		}
	}
	if elsewhere != nil {
		return true, common.Hash{}, fmt.Errorf("%w: %w", errUsedElsewhere, elsewhere)
	}
	return false, common.Hash{}, nil
}

// errUsedElsewhere is a Permit2 authorization whose nonce is used on chain
// by no x402 settlement within the look-up window (usedOnChain).
var errUsedElsewhere = errors.New("the Permit2 nonce was used on chain by no x402 settlement within the look-up window")

// authorizationOnChain looks an authorization up on its network's token:
// unused is store.ErrNotFound (nothing moved); used is answered as
// settlementOnChain answers the transaction of its AuthorizationUsed log,
// or, when own is set and none of the network's signer keys sent that
// transaction, ErrSettledElsewhere. A Permit2 nonce used by no x402
// settlement (errUsedElsewhere) is payment.failed with
// ErrTextUsedElsewhere, or ErrSettledElsewhere when own is set. A chain that cannot be reached, or a
// use whose transaction is not found, is an error that is not
// store.ErrNotFound.
func (f *Facilitator) authorizationOnChain(ctx context.Context, n *network.Network, names []string, from common.Address, nonce [32]byte, own bool) (*x402.SettleResponse, error) {
	used, tx, err := f.usedOnChain(ctx, n, names, from, nonce)
	if errors.Is(err, errUsedElsewhere) {
		f.logger.Info("a Permit2 authorization looked up is used on chain, but by no x402 settlement: answered failed (used elsewhere)",
			zap.String("network", n.Cfg.Name), zap.String("from", from.Hex()), zap.Error(err))
		if own {
			return nil, fmt.Errorf("network %s: %w: %w", n.Cfg.Name, ErrSettledElsewhere, err)
		}
		return &x402.SettleResponse{X402Version: x402.X402Version, Event: x402.EventFailed, Network: n.Cfg.Name, Error: x402.ErrTextUsedElsewhere,
			Timestamp: x402.Timestamp(f.now())}, nil
	}
	if err != nil {
		f.logger.Warn("looking an authorization up on chain failed", zap.String("network", n.Cfg.Name), zap.String("from", from.Hex()), zap.Error(err))
		return nil, fmt.Errorf("network %s: %w: %w", n.Cfg.Name, errChainUnreachable, err)
	}
	if !used {
		return nil, fmt.Errorf("authorization unused on network %s: %w", n.Cfg.Name, store.ErrNotFound)
	}
	res, sender, err := f.settlementOn(ctx, n, tx)
	if errors.Is(err, store.ErrNotFound) {
		// The token logged the use: the transaction is on chain, if not
		// one this facilitator reads (another contract's call, say).
		if own {
			return nil, fmt.Errorf("network %s: transaction %s, not a transferWithAuthorization to the token: %w", n.Cfg.Name, tx.Hex(), ErrSettledElsewhere)
		}
		return nil, fmt.Errorf("network %s: authorization used by transaction %s, which is not a transferWithAuthorization to the token", n.Cfg.Name, tx.Hex())
	}
	if err == nil && own && !slices.Contains(n.Engine.Signers(), sender) {
		return nil, fmt.Errorf("network %s: transaction %s sent by %s: %w", n.Cfg.Name, tx.Hex(), sender.Hex(), ErrSettledElsewhere)
	}
	return res, err
}

// Settlement reports a settlement by any of its transaction hashes, from
// the journal: payment.settled, payment.failed, or payment.failed with
// "Settlement pending" while it waits for its block.
//
// A transaction the journal does not hold (compacted after the journal
// retention) is looked up on every network's chain: a mined
// transferWithAuthorization to the network's token answers
// payment.settled, or payment.failed when it reverted. One that is not
// found is store.ErrNotFound; a chain that cannot be reached is
// another error, never store.ErrNotFound.
func (f *Facilitator) Settlement(txHash string) (*x402.SettleResponse, error) {
	rec, err := f.journal.ByTx(txHash)
	if errors.Is(err, store.ErrNotFound) {
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
	res := engine.ResponseOf(rec)
	if res.TxHash == "" {
		res.TxHash = txHash
	}
	return res, nil
}

// SettlementByAuthorization reports the settlement of an authorization,
// found by network (name or alias), payer address and authorization nonce
// (0x and 64 hex digits), from the journal: what a seller who lost the
// settle answer needs. The answer is as Settlement's. A malformed argument
// or an unknown network is an x402.StatusError 400.
//
// An authorization the journal does not hold (never journaled, compacted
// after the journal retention, or lost by a store that lost acknowledged
// writes) is read on chain: unused is store.ErrNotFound (match it
// with errors.Is): nothing moved; used is answered as Settlement answers
// the transaction that used it, found by the token's AuthorizationUsed
// log within the journal retention. A chain that cannot be reached is
// another error, never store.ErrNotFound.
//
// Buyers pick nonces, so one payer may use one nonce for an EIP-3009
// authorization and for a Permit2 one (upto, exact through Permit2): they
// are two authorizations. Without a scheme the EIP-3009 one is answered
// first; SettlementByAuthorizationOf names the scheme.
func (f *Facilitator) SettlementByAuthorization(network, from, nonce string) (*x402.SettleResponse, error) {
	return f.SettlementByAuthorizationOf(network, "", from, nonce)
}

// SettlementByAuthorizationOf is SettlementByAuthorization for an
// authorization of a scheme: "exact" (EIP-3009), "upto" or
// "exact-permit2" (Permit2's nonces, which both share); "" is any, the
// EIP-3009 one first. A scheme the network does not serve is a
// x402.StatusError 400.
func (f *Facilitator) SettlementByAuthorizationOf(network, scheme, from, nonce string) (*x402.SettleResponse, error) {
	ctx, cancel := context.WithTimeout(f.ctx, authLookupTimeout)
	defer cancel()
	return f.settlementByAuthorization(ctx, network, scheme, from, nonce, false)
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
func (f *Facilitator) OwnSettlementByAuthorization(ctx context.Context, network, from, nonce string) (*x402.SettleResponse, error) {
	return f.OwnSettlementByAuthorizationOf(ctx, network, "", from, nonce)
}

// OwnSettlementByAuthorizationOf is OwnSettlementByAuthorization for an
// authorization of a scheme (SettlementByAuthorizationOf).
func (f *Facilitator) OwnSettlementByAuthorizationOf(ctx context.Context, network, scheme, from, nonce string) (*x402.SettleResponse, error) {
	ctx, cancel := context.WithTimeout(ctx, authLookupTimeout)
	defer cancel()
	return f.settlementByAuthorization(ctx, network, scheme, from, nonce, true)
}

func (f *Facilitator) settlementByAuthorization(ctx context.Context, requested, schemeName, from, nonce string, own bool) (*x402.SettleResponse, error) {
	n := f.networkNamed(requested)
	if n == nil {
		return nil, badRequest("network %q is not served by this facilitator", requested)
	}
	names := f.lookupSchemes(n)
	if schemeName != "" {
		if !slices.Contains(names, schemeName) {
			return nil, badRequest("scheme %q is not served on network %q; give one of %s, or none", schemeName, requested, strings.Join(names, ", "))
		}
		space := n.Engine.NonceSpace(schemeName)
		names = slices.DeleteFunc(names, func(s string) bool { return n.Engine.NonceSpace(s) != space })
	}
	if !x402.IsAddress(from) {
		return nil, badRequest("from must be a 0x-prefixed 20-byte hex address, got %q", from)
	}
	nb, err := hexutil.Decode(nonce)
	if err != nil || len(nb) != 32 {
		return nil, badRequest("nonce must be 0x and 64 hex digits, got %q", nonce)
	}
	// Each nonce space's record, in the schemes' order (EIP-3009 first):
	// a Permit2 authorization is journaled apart from the EIP-3009 one of
	// the same payer and nonce.
	var rec *store.Record
	err = store.ErrNotFound
	var spaces []string
	for _, s := range names {
		if sp := n.Engine.NonceSpace(s); !slices.Contains(spaces, sp) {
			spaces = append(spaces, sp)
		}
	}
	for _, sp := range spaces {
		if rec, err = f.journal.ByID(engine.RecordIDIn(n.Cfg.Name, sp, common.HexToAddress(from), [32]byte(nb))); !errors.Is(err, store.ErrNotFound) {
			break
		}
	}
	// A record that says failed, for a caller that asks because the
	// authorization is used on chain, may be older than a settlement
	// whose record was lost: the chain says which.
	if errors.Is(err, store.ErrNotFound) || (own && err == nil && rec.Status == store.StatusFailed) {
		return f.authorizationOnChain(ctx, n, names, common.HexToAddress(from), [32]byte(nb), own)
	}
	if err != nil {
		return nil, err
	}
	if own && rec.Via == store.ViaAPI {
		return nil, fmt.Errorf("settled through the facilitator's HTTP routes, for a seller there: %w", ErrSettledElsewhere)
	}
	return engine.ResponseOf(rec), nil
}
