package batchsettlement

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/rpc"
	"go.uber.org/zap"

	"github.com/caddy-x402/caddy-x402/facilitator/batchsettlement/batch"
	"github.com/caddy-x402/caddy-x402/facilitator/engine"
	"github.com/caddy-x402/caddy-x402/facilitator/evm"
	"github.com/caddy-x402/caddy-x402/facilitator/network"
	"github.com/caddy-x402/caddy-x402/facilitator/scheme"
	"github.com/caddy-x402/caddy-x402/facilitator/store"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
	"github.com/caddy-x402/caddy-x402/internal/paytrace"
)

// gasMarginPercent is added to a transaction's gas estimate.
const gasMarginPercent = 25

// op is one transaction to the settlement contract, sent through the
// network's engine: held by (from, nonce), journaled before it is
// broadcast, followed to its receipt and recovered after a restart like
// every settlement. A deposit's (from, nonce) is its EIP-3009
// authorization; a claim's, settle's or refund's is (the account it
// serves, keccak256 of its calldata), so the same operation is held once.
type op struct {
	from        common.Address
	nonce       common.Hash
	value       *big.Int
	validAfter  *big.Int
	validBefore *big.Int
	signature   []byte
	calldata    []byte
	// reads are read in the batch of the gas estimate; decide then says
	// a reason not to send (the estimate's error is simFail's).
	reads  []rpc.BatchElem
	decide func(block uint64) (string, error)
	// simFail and txFail are the reasons of a failed estimate and of a
	// mined transaction that reverted.
	simFail, txFail string
	// after adds to a settled answer (the channel's state, an amount).
	after func(ctx context.Context, res *x402.SettleResponse)
	// scheme is the engine's name of the op: its nonce space and Spent
	// ("": Scheme).
	scheme string
}

// opNonce is the hold key of a claim, settle or refund: keccak256 of its
// calldata.
func opNonce(calldata []byte) common.Hash { return crypto.Keccak256Hash(calldata) }

// send holds, checks, estimates and submits o, then awaits its outcome
// until deadline.
func (b *bound) send(ctx context.Context, o *op, requested string, deadline time.Time) (*x402.SettleResponse, error) {
	n := b.Network
	if len(n.Engine.Signers()) == 0 {
		return nil, scheme.Unavailable(fmt.Sprintf("network %s has no signer key, so this facilitator cannot settle on it; configure a signer key", n.Cfg.Name), nil)
	}
	if o.scheme == "" {
		o.scheme = Scheme
	}
	held, err := n.Engine.ClaimScheme(ctx, o.scheme, o.from, o.nonce)
	if err != nil {
		return nil, scheme.Unavailable(scheme.TextStoreUnreachable, err)
	}
	if !held {
		return x402.Failed(requested, x402.ErrTextAlreadyUsed), nil
	}
	submitted := false
	defer func() {
		if !submitted {
			n.Engine.ReleaseScheme(o.scheme, o.from, o.nonce)
		}
	}()
	signer := n.Engine.PickSigner()
	var gas, block hexutil.Uint64
	elems := append(append([]rpc.BatchElem{}, o.reads...),
		rpc.BatchElem{Method: "eth_blockNumber", Result: &block},
		rpc.BatchElem{Method: "eth_estimateGas", Args: []any{evm.CallArgs{From: signer, To: batch.SettlementAddress, Data: o.calldata}}, Result: &gas})
	base := len(elems)
	q, fetch, wait := n.Fees.Get()
	var fr *network.FeeRead
	if fetch {
		fr = network.NewFeeRead()
		elems = append(elems, fr.Elems...)
	}
	err = n.Pool.BatchShared(ctx, elems)
	if fetch {
		if err == nil {
			q = fr.Quote(elems[base:])
		}
		n.Fees.Put(q)
	}
	if err != nil {
		return nil, scheme.Unavailable(fmt.Sprintf("cannot reach the chain of network %s; nothing was broadcast, try again shortly", n.Cfg.Name), err)
	}
	copy(o.reads, elems[:len(o.reads)])
	if elems[base-2].Error != nil {
		return x402.Failed(requested, ErrRPCReadFailed), nil
	}
	if o.decide != nil {
		reason, err := o.decide(uint64(block))
		if err != nil || reason != "" {
			return failedWith(requested, reason), err
		}
	}
	if e := elems[base-1].Error; e != nil {
		b.env.Logger.Info("batch-settlement transaction refused: its simulation reverts; nothing was broadcast", zap.String("network", n.Cfg.Name), zap.String("reason", o.simFail), zap.Error(e))
		return x402.Failed(requested, o.simFail), nil
	}
	if wait != nil {
		q = n.Fees.Await(ctx, wait, n.Pool)
	}
	if q == nil || q.Err != nil {
		return nil, scheme.Unavailable(fmt.Sprintf("cannot read gas prices on network %s; nothing was broadcast, try again shortly", n.Cfg.Name), nil)
	}
	fe := &engine.Fees{GasLimit: uint64(gas) * (100 + gasMarginPercent) / 100}
	if q.BaseFee != nil {
		fe.TipCap = new(big.Int).Set(q.Tip)
		fe.FeeCap = new(big.Int).Add(new(big.Int).Mul(q.BaseFee, big.NewInt(2)), fe.TipCap)
	} else {
		fe.GasPrice = new(big.Int).Set(q.GasPrice)
	}
	job := &engine.Job{Requested: requested, Scheme: o.scheme, To: batch.SettlementAddress, Via: scheme.Via(ctx), Trace: paytrace.FromContext(ctx).Carry(),
		Auth:      x402.Authorization{From: o.from, To: batch.SettlementAddress, Value: o.value, ValidAfter: o.validAfter, ValidBefore: o.validBefore, Nonce: o.nonce},
		Signature: o.signature, Calldata: o.calldata, Fees: fe, Signer: signer, Deadline: deadline}
	t, err := n.Engine.Submit(job)
	if err != nil {
		var ns *engine.NotSentError
		b.env.Logger.Error("sending the batch-settlement transaction failed; nothing was broadcast", zap.String("network", n.Cfg.Name), zap.Error(err))
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
		if rec.Status == store.StatusFailed && rec.TxHash != "" {
			res.Error = o.txFail
		}
		if res.Settled() && o.after != nil {
			o.after(ctx, res)
		}
		return res, nil
	case <-timer.C:
	case <-ctx.Done():
	case <-t.Stopped():
	}
	res := x402.Failed(requested, x402.ErrTextPending)
	res.TxHash = t.TxHash().Hex()
	b.env.Logger.Warn("batch-settlement transaction not confirmed in time; answered pending", zap.String("tx", res.TxHash))
	return res, nil
}

// failedWith is a failed answer with reason, or nil when there is none
// (an error instead).
func failedWith(requested, reason string) *x402.SettleResponse {
	if reason == "" {
		return nil
	}
	return x402.Failed(requested, reason)
}

// farFuture is the validity end of a claim, settle or refund job: they
// bind no authorization window; an hour bounds how long the engine keeps
// bumping one.
func farFuture(now time.Time) *big.Int { return big.NewInt(now.Add(time.Hour).Unix()) }
