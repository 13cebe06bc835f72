package batchsettlement

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"time"

	"go.uber.org/zap"

	"github.com/caddy-x402/caddy-x402/facilitator/batch"
	"github.com/caddy-x402/caddy-x402/facilitator/engine"
	"github.com/caddy-x402/caddy-x402/facilitator/network"
	"github.com/caddy-x402/caddy-x402/facilitator/scheme"
	"github.com/caddy-x402/caddy-x402/facilitator/store"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// gasMarginPercent is added to a deposit's gas estimate.
const gasMarginPercent = 25

// Claim is not offered: a channel payment is not held for a later settle
// (the paywall side of channels charges vouchers in its store).
func (b *bound) Claim(ctx context.Context, sp scheme.Payment, requested string) (scheme.Claim, string, error) {
	return nil, ErrInvalidPayloadType, nil
}

// Settle settles a deposit through the network's engine: the deposit's
// EIP-3009 authorization is held (engine Claim), its amount reserved
// against the payer's balance, the deposit journaled before it is
// broadcast, and the outcome awaited; a settled answer carries the
// channel's state after it. A voucher or a plain refund is not settled (as
// the published facilitator: ErrInvalidPayloadType).
func (b *bound) Settle(ctx context.Context, sp scheme.Payment, requested string, deadline time.Time) (*x402.SettleResponse, error) {
	c := sp.(*payment)
	if c.kind != "deposit" {
		return x402.Failed(requested, ErrInvalidPayloadType), nil
	}
	n := b.Network
	if len(n.Engine.Signers()) == 0 {
		return nil, scheme.Unavailable(fmt.Sprintf("network %s has no signer key, so this facilitator cannot settle on it; configure a signer key", n.Cfg.Name), nil)
	}
	held, err := n.Engine.Claim(ctx, c.cfg.Payer, c.nonce)
	if err != nil {
		return nil, scheme.Unavailable(scheme.TextStoreUnreachable, err)
	}
	if !held {
		return x402.Failed(requested, x402.ErrTextAlreadyUsed), nil
	}
	submitted := false
	defer func() {
		if !submitted {
			n.Engine.Release(c.cfg.Payer, c.nonce)
		}
	}()
	signer := n.Engine.PickSigner()
	rd, err := b.newReads(c, signer, true)
	if err != nil {
		return x402.Failed(requested, ErrInvalidPayloadType), nil
	}
	q, fetch, wait := n.Fees.Get()
	var fr *network.FeeRead
	base := len(rd.elems)
	elems := rd.elems
	if fetch {
		fr = network.NewFeeRead()
		elems = append(elems, fr.Elems...)
	}
	err = n.Pool.BatchShared(ctx, elems)
	rd.elems = elems[:base]
	if fetch {
		if err == nil {
			q = fr.Quote(elems[base:])
		}
		n.Fees.Put(q)
	}
	if err != nil {
		return nil, scheme.Unavailable(fmt.Sprintf("cannot reach the chain of network %s; nothing was broadcast, try again shortly", n.Cfg.Name), err)
	}
	st, payerBalance, err := rd.state()
	if err != nil {
		return x402.Failed(requested, ErrRPCReadFailed), nil
	}
	if reason := decide(c, st, payerBalance); reason != "" {
		return x402.Failed(requested, reason), nil
	}
	if rd.simErr() != nil {
		return x402.Failed(requested, ErrDepositSimulationFailed), nil
	}
	ok, err := n.Engine.Reserve(ctx, c.cfg.Payer, c.nonce, c.amount, payerBalance, uint64(rd.block))
	if err != nil {
		return nil, scheme.Unavailable(scheme.TextStoreUnreachable, err)
	}
	if !ok {
		return x402.Failed(requested, ErrInsufficientBalance), nil
	}
	if wait != nil {
		q = n.Fees.Await(ctx, wait, n.Pool)
	}
	if q == nil || q.Err != nil {
		return nil, scheme.Unavailable(fmt.Sprintf("cannot read gas prices on network %s; nothing was broadcast, try again shortly", n.Cfg.Name), nil)
	}
	fe := &engine.Fees{GasLimit: uint64(rd.gas) * (100 + gasMarginPercent) / 100}
	if q.BaseFee != nil {
		fe.TipCap = new(big.Int).Set(q.Tip)
		fe.FeeCap = new(big.Int).Add(new(big.Int).Mul(q.BaseFee, big.NewInt(2)), fe.TipCap)
	} else {
		fe.GasPrice = new(big.Int).Set(q.GasPrice)
	}
	data, _ := b.depositCalldata(c) // encoded once already by newReads
	job := &engine.Job{Requested: requested, Scheme: Scheme, To: batch.SettlementAddress, Via: scheme.Via(ctx),
		Auth:      x402.Authorization{From: c.cfg.Payer, To: batch.SettlementAddress, Value: c.amount, ValidAfter: c.validAfter, ValidBefore: c.validBefore, Nonce: c.nonce},
		Signature: c.depositSig, Calldata: data, Fees: fe, Signer: signer, Deadline: deadline}
	t, err := n.Engine.Submit(job)
	if err != nil {
		var ns *engine.NotSentError
		b.env.Logger.Error("sending the deposit failed; nothing was broadcast", zap.String("network", n.Cfg.Name), zap.Error(err))
		if errors.Is(err, store.ErrFenced) || errors.Is(err, store.ErrUnavailable) {
			return nil, scheme.Unavailable(scheme.TextStoreUnreachable, err)
		}
		if errors.As(err, &ns) && ns.NoGas {
			return nil, scheme.Unavailable(fmt.Sprintf("the facilitator's signer %s has too little gas money on network %s; nothing was sent, try again after the operator funds it", signer.Hex(), n.Cfg.Name), err)
		}
		return nil, scheme.Unavailable(fmt.Sprintf("cannot send the transaction on network %s; nothing was broadcast, try again shortly", n.Cfg.Name), err)
	}
	submitted = true
	timer := time.NewTimer(time.Until(deadline))
	defer timer.Stop()
	select {
	case <-t.Done():
		rec := t.Record()
		res := engine.ResponseOf(rec)
		res.From = c.cfg.Payer.Hex()
		if rec.Status == store.StatusFailed && rec.TxHash != "" {
			res.Error = ErrDepositTransactionFailed
		}
		if res.Settled() {
			b.addState(ctx, c, res)
		}
		return res, nil
	case <-timer.C:
	case <-ctx.Done():
	case <-t.Stopped():
	}
	res := x402.Failed(requested, x402.ErrTextPending)
	res.TxHash = t.TxHash().Hex()
	return res, nil
}

// addState adds the channel's state after a settled deposit to the answer
// (extra.channelState), read at the latest block; a failed read leaves it
// out (the deposit is settled all the same).
func (b *bound) addState(ctx context.Context, c *payment, res *x402.SettleResponse) {
	rd, err := b.newReads(&payment{kind: "voucher", cfg: c.cfg, id: c.id}, b.authorizer, false)
	if err != nil {
		return
	}
	if err := b.Pool.BatchShared(ctx, rd.elems); err != nil {
		return
	}
	if st, _, err := rd.state(); err == nil {
		res.Extra = map[string]any{"channelState": channelStateExtra(c.id, st)}
	}
}
