package facilitator

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/rpc"
	"go.uber.org/zap"

	"github.com/caddy-x402/caddy-x402/facilitator/engine"
	"github.com/caddy-x402/caddy-x402/facilitator/evm"
	"github.com/caddy-x402/caddy-x402/facilitator/network"
	"github.com/caddy-x402/caddy-x402/facilitator/store"
)

// textStoreUnreachable is the 503 of a settle that the shared store
// (PostgreSQL) could not take: nothing was broadcast.
const textStoreUnreachable = "the facilitator's settlement store (PostgreSQL) cannot be reached; nothing was broadcast, try again shortly"

// gasMarginPercent is added to eth_estimateGas's figure.
const gasMarginPercent = 25

// Settle re-checks a payment as Verify does, submits transferWithAuthorization
// from one of the network's signer keys, waits until the transaction is in a
// block and answers payment.settled, or payment.failed with the reason.
// Every settlement is journaled before its transaction is broadcast.
//
// When the transaction is not in a block within the settle timeout, the
// answer is payment.failed with "Settlement pending" and the txHash; the
// outcome is then found with Settlement.
//
// An error is returned only when there is no settlement result to give: a
// malformed request (StatusError 400), or a chain or signer that cannot be
// used right now with nothing broadcast (StatusError 503).
func (f *Facilitator) Settle(ctx context.Context, req *Request) (*SettleResponse, error) {
	if err := validateRequest(req); err != nil {
		return nil, err
	}
	// The settle timeout bounds the whole call: checks, send and confirmation.
	deadline := time.Now().Add(f.settleTimeout)
	ctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	requested := req.PaymentRequirements.Network
	c, reason := f.checkOffchain(req)
	if reason != "" {
		return failed(requested, settleText(reason)), nil
	}
	reason, err := f.hold(ctx, c)
	if err != nil {
		return nil, err
	}
	if reason != "" {
		return failed(requested, reason), nil
	}
	return f.settleHeld(ctx, c, requested, deadline)
}

// hold holds a checked payment's authorization for a settle (engine Claim)
// and, for a smart-contract wallet's payment, its payer (one settlement
// at a time: holdPayer). A reason refuses it: ErrTextAlreadyUsed when
// another settle holds the authorization, ReasonWalletBusy when another
// settlement holds the wallet.
func (f *Facilitator) hold(ctx context.Context, c *checked) (string, error) {
	n := c.n
	if len(n.Engine.Signers()) == 0 {
		return "", unavailable(fmt.Sprintf("network %s has no signer key, so this facilitator cannot settle on it; configure a signer key", n.Cfg.Name), nil)
	}
	a := &c.p.Authorization
	held, err := n.Engine.Claim(ctx, a.From, a.Nonce)
	if err != nil {
		f.logger.Error("the shared settlement store cannot be reached; nothing was broadcast", zap.String("network", n.Cfg.Name), zap.Error(err))
		return "", unavailable(textStoreUnreachable, err)
	}
	if !held {
		return ErrTextAlreadyUsed, nil
	}
	if c.smart != nil {
		if reason, err := f.holdPayer(ctx, c); reason != "" || err != nil {
			n.Engine.Release(a.From, a.Nonce)
			return reason, err
		}
	}
	return "", nil
}

// settleHeld settles a held payment: it reserves the payment's value
// against its payer (unless reserved already), broadcasts and waits for the
// outcome until deadline. The hold is released when nothing is submitted.
func (f *Facilitator) settleHeld(ctx context.Context, c *checked, requested string, deadline time.Time) (*SettleResponse, error) {
	n, a := c.n, &c.p.Authorization
	submitted := false
	defer func() {
		if !submitted {
			n.Engine.Release(a.From, a.Nonce)
			c.releasePayer()
		}
	}()

	signer := n.Engine.PickSigner()
	fee, reason, err := f.prepare(ctx, c, signer)
	if err != nil {
		return nil, err
	}
	if reason != "" {
		return failed(requested, settleText(reason)), nil
	}
	job := &engine.Job{Requested: requested, Via: viaOf(ctx), Auth: *a, Signature: c.p.Signature, Calldata: c.transferCalldata(), Fees: fee, Signer: signer, Deadline: deadline,
		PayerHeld: c.payerHeld}
	if c.deploy {
		job.Calldata, job.Create = c.deployCode(), true
	}
	t, err := n.Engine.Submit(job)
	var ns *engine.NotSentError
	if errors.As(err, &ns) && ns.NoGas {
		// Nothing was sent: another signer with gas money takes it.
		if other, ok := n.Engine.PickOtherSigner(signer); ok {
			f.logger.Warn("signer cannot pay gas; settling from another signer", zap.String("network", n.Cfg.Name), zap.String("signer", signer.Hex()), zap.String("other", other.Hex()))
			signer, job.Signer = other, other
			t, err = n.Engine.Submit(job)
		}
	}
	if err != nil {
		log := f.logger.With(zap.String("network", n.Cfg.Name), zap.String("signer", signer.Hex()), zap.Error(err))
		if errors.As(err, &ns) && ns.NoGas {
			log.Error("signer cannot pay gas; fund it")
			return nil, unavailable(fmt.Sprintf("the facilitator's signer %s has too little gas money on network %s; nothing was sent, try again after the operator funds it", signer.Hex(), n.Cfg.Name), err)
		}
		if errors.Is(err, store.ErrFenced) {
			log.Error("this instance's lease in the shared store does not hold (the database was out of reach); nothing was broadcast")
			return nil, unavailable(textStoreUnreachable, err)
		}
		log.Error("sending the settlement failed; nothing was broadcast")
		return nil, unavailable(fmt.Sprintf("cannot send the transaction on network %s; nothing was broadcast, try again shortly", n.Cfg.Name), err)
	}
	submitted = true // the engine releases the authorization when its outcome is known

	timer := time.NewTimer(time.Until(deadline))
	defer timer.Stop()
	select {
	case <-t.Done():
		rec := t.Record()
		if c.smart != nil {
			f.countSmartSettled(c, rec)
			if rec.Status == StatusFailed && rec.TxHash != "" {
				f.strikeDone(ctx, rec.ID, deadline)
			}
		}
		return responseOf(rec), nil
	case <-timer.C:
	case <-ctx.Done():
	case <-t.Stopped():
		// A facilitator closing (a reload replacing it) goes on waiting
		// while the settlement engine, shared with the new one, follows
		// the transaction; only an engine that stops answers pending.
	}
	res := failed(requested, ErrTextPending)
	res.TxHash = t.TxHash().Hex()
	f.logger.Warn("settlement not confirmed in time; answered pending", zap.String("tx", res.TxHash), zap.Duration("timeout", f.settleTimeout))
	return res, nil
}

// prepare runs the on-chain checks and reads what the transaction needs
// (gas estimate, fees), all in one batched round trip, shared with the
// other settles and verifies of the moment (Pool.Gather).
func (f *Facilitator) prepare(ctx context.Context, c *checked, signer common.Address) (*engine.Fees, string, error) {
	n := c.n
	// The gas estimate runs the transfer as the signer would send it, so it
	// is the simulation too: a revert fails it with the token's reason.
	b := evm.NewBatchChecks(n.Token, signer, &c.p.Authorization, nil)
	var gas hexutil.Uint64
	elems := append(b.Elems,
		rpc.BatchElem{Method: "eth_estimateGas", Args: []any{evm.CallArgs{From: signer, To: n.Token, Data: c.transferCalldata()}}, Result: &gas})
	// The gas prices are shared by the settles of a moment: read with one
	// of them, at most every feeQuoteTTL; the settles that come while that
	// read is on its way wait for it (below) rather than read their own.
	q, fetch, wait := n.Fees.Get()
	var fr *network.FeeRead
	if fetch {
		fr = network.NewFeeRead()
		elems = append(elems, fr.Elems...)
	}
	var sp *smartPrepare
	if c.smart != nil {
		sp, elems = c.smartElems(signer, elems)
	}
	err := n.Pool.Gather(ctx, elems)
	b.Elems = elems[:evm.ChecksElems] // the answered elements (appends may have moved them)
	if fetch {
		if err == nil {
			q = fr.Quote(elems[evm.ChecksElems+1:])
		}
		n.Fees.Put(q)
	}
	if err != nil {
		f.logger.Warn("settle: RPC unreachable before broadcast", zap.String("network", n.Cfg.Name), zap.Error(err))
		return nil, "", unavailable(fmt.Sprintf("cannot reach the chain of network %s; nothing was broadcast, try again shortly", n.Cfg.Name), err)
	}
	st, err := b.State()
	if err != nil {
		return nil, "", unavailable(fmt.Sprintf("the chain of network %s gave an unreadable answer; nothing was broadcast, try again shortly", n.Cfg.Name), err)
	}
	if sp != nil {
		if reason, err := f.smartTx(ctx, c, st, sp, elems, &elems[evm.ChecksElems], &gas); reason != "" || err != nil {
			return nil, reason, err
		}
	} else {
		if err := simulationError(n, st); err != nil {
			return nil, "", err
		}
		if reason := onchainReason(st, c.p.Authorization.Value); reason != "" {
			return nil, reason, nil
		}
	}
	if reason, err := f.reserve(ctx, c, st); reason != "" || err != nil {
		return nil, reason, err
	}
	if err := elems[evm.ChecksElems].Error; err != nil && !c.deploy {
		if r, ok := evm.RevertReason(err); ok {
			return nil, verifyTextForRevert(r), nil
		}
		return nil, "", unavailable(fmt.Sprintf("gas estimation failed on network %s; nothing was broadcast, try again shortly", n.Cfg.Name), err)
	}
	if wait != nil {
		q = n.Fees.Await(ctx, wait, n.Pool)
	}
	if q == nil || q.Err != nil {
		var qerr error
		if q != nil {
			qerr = q.Err
		}
		return nil, "", unavailable(fmt.Sprintf("cannot read gas prices on network %s; nothing was broadcast, try again shortly", n.Cfg.Name), qerr)
	}
	fe := &engine.Fees{GasLimit: uint64(gas) * (100 + gasMarginPercent) / 100}
	if q.BaseFee != nil {
		fe.TipCap = new(big.Int).Set(q.Tip)
		// Twice the base fee leaves room for six full blocks of rises.
		fe.FeeCap = new(big.Int).Add(new(big.Int).Mul(q.BaseFee, big.NewInt(2)), fe.TipCap)
	} else {
		fe.GasPrice = new(big.Int).Set(q.GasPrice)
	}
	return fe, "", nil
}

// reserve reserves a held payment's value against its payer's balance as
// read in st (engine Reserve): the token's own "exceeds balance" reason
// when it does not fit beside the payer's other settlements in flight.
func (f *Facilitator) reserve(ctx context.Context, c *checked, st *evm.ChainState) (reason string, err error) {
	a := &c.p.Authorization
	ok, err := c.n.Engine.Reserve(ctx, a.From, a.Nonce, a.Value, st.Balance, st.Block)
	if err != nil {
		f.logger.Error("the shared settlement store cannot be reached; nothing was broadcast", zap.String("network", c.n.Cfg.Name), zap.Error(err))
		return "", unavailable(textStoreUnreachable, err)
	}
	if !ok {
		f.logger.Info("payment refused: the payer's settlements in flight already take its balance",
			zap.String("network", c.n.Cfg.Name), zap.String("from", a.From.Hex()), zap.String("value", a.Value.String()),
			zap.String("balance", st.Balance.String()))
		return ErrTextInsufficientFunds, nil
	}
	return "", nil
}

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
	n := f.network(requested)
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
