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
)

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
	network := req.PaymentRequirements.Network
	c, reason := f.checkOffchain(req)
	if reason != "" {
		return failed(network, settleText(reason)), nil
	}
	n := c.n
	if len(n.eng.Signers()) == 0 {
		return nil, unavailable(fmt.Sprintf("network %s has no signer key, so this facilitator cannot settle on it; configure a signer key", n.cfg.Name), nil)
	}
	a := &c.p.Authorization
	if !n.eng.Hold(a.From, a.Nonce) {
		return failed(network, ErrTextAlreadyUsed), nil
	}
	submitted := false
	defer func() {
		if !submitted {
			n.eng.Release(a.From, a.Nonce)
		}
	}()

	signer := n.eng.PickSigner()
	fee, reason, err := f.prepare(ctx, c, signer)
	if err != nil {
		return nil, err
	}
	if reason != "" {
		return failed(network, settleText(reason)), nil
	}
	job := &engine.Job{Requested: network, Auth: *a, Signature: c.p.Signature, Calldata: c.transferCalldata(), Fees: fee, Signer: signer, Deadline: deadline}
	t, err := n.eng.Submit(job)
	var ns *engine.NotSentError
	if errors.As(err, &ns) && ns.NoGas {
		// Nothing was sent: another signer with gas money takes it.
		if other, ok := n.eng.PickOtherSigner(signer); ok {
			f.logger.Warn("signer cannot pay gas; settling from another signer", zap.String("network", n.cfg.Name), zap.String("signer", signer.Hex()), zap.String("other", other.Hex()))
			signer, job.Signer = other, other
			t, err = n.eng.Submit(job)
		}
	}
	if err != nil {
		log := f.logger.With(zap.String("network", n.cfg.Name), zap.String("signer", signer.Hex()), zap.Error(err))
		if errors.As(err, &ns) && ns.NoGas {
			log.Error("signer cannot pay gas; fund it")
			return nil, unavailable(fmt.Sprintf("the facilitator's signer %s has too little gas money on network %s; nothing was sent, try again after the operator funds it", signer.Hex(), n.cfg.Name), err)
		}
		log.Error("sending the settlement failed; nothing was broadcast")
		return nil, unavailable(fmt.Sprintf("cannot send the transaction on network %s; nothing was broadcast, try again shortly", n.cfg.Name), err)
	}
	submitted = true // the engine releases the authorization when its outcome is known

	timer := time.NewTimer(time.Until(deadline))
	defer timer.Stop()
	select {
	case <-t.Done():
		return responseOf(t.Record()), nil
	case <-timer.C:
	case <-ctx.Done():
	case <-f.ctx.Done():
	}
	res := failed(network, ErrTextPending)
	res.TxHash = t.TxHash().Hex()
	f.logger.Warn("settlement not confirmed in time; answered pending", zap.String("tx", res.TxHash), zap.Duration("timeout", f.settleTimeout))
	return res, nil
}

// prepare runs the on-chain checks and reads what the transaction needs
// (gas estimate, fees), all in one batched round trip.
func (f *Facilitator) prepare(ctx context.Context, c *checked, signer common.Address) (*engine.Fees, string, error) {
	n := c.n
	b := evm.NewBatchChecks(n.token, signer, &c.p.Authorization, c.transferCalldata())
	var gas hexutil.Uint64
	var tip, gasPrice hexutil.Big
	var head struct {
		BaseFee *hexutil.Big `json:"baseFeePerGas"`
	}
	elems := append(b.Elems,
		rpc.BatchElem{Method: "eth_estimateGas", Args: []any{evm.CallArgs{From: signer, To: n.token, Data: c.transferCalldata()}}, Result: &gas},
		rpc.BatchElem{Method: "eth_maxPriorityFeePerGas", Result: &tip},
		rpc.BatchElem{Method: "eth_gasPrice", Result: &gasPrice},
		rpc.BatchElem{Method: "eth_getBlockByNumber", Args: []any{"latest", false}, Result: &head},
	)
	b.Elems = elems[:3]
	if err := n.rpc.Batch(ctx, elems); err != nil {
		f.logger.Warn("settle: RPC unreachable before broadcast", zap.String("network", n.cfg.Name), zap.Error(err))
		return nil, "", unavailable(fmt.Sprintf("cannot reach the chain of network %s; nothing was broadcast, try again shortly", n.cfg.Name), err)
	}
	st, err := b.State()
	if err != nil {
		return nil, "", unavailable(fmt.Sprintf("the chain of network %s gave an unreadable answer; nothing was broadcast, try again shortly", n.cfg.Name), err)
	}
	if err := simulationError(n, st); err != nil {
		return nil, "", err
	}
	if reason := onchainReason(st, c.p.Authorization.Value); reason != "" {
		return nil, reason, nil
	}
	if err := elems[3].Error; err != nil {
		if r, ok := evm.RevertReason(err); ok {
			return nil, verifyTextForRevert(r), nil
		}
		return nil, "", unavailable(fmt.Sprintf("gas estimation failed on network %s; nothing was broadcast, try again shortly", n.cfg.Name), err)
	}
	fe := &engine.Fees{GasLimit: uint64(gas) * (100 + gasMarginPercent) / 100}
	switch {
	case elems[6].Error == nil && head.BaseFee != nil:
		fe.TipCap = big.NewInt(0)
		if elems[4].Error == nil {
			fe.TipCap = tip.ToInt()
		}
		// Twice the base fee leaves room for six full blocks of rises.
		fe.FeeCap = new(big.Int).Add(new(big.Int).Mul(head.BaseFee.ToInt(), big.NewInt(2)), fe.TipCap)
	case elems[5].Error == nil:
		fe.GasPrice = gasPrice.ToInt()
	default:
		return nil, "", unavailable(fmt.Sprintf("cannot read gas prices on network %s; nothing was broadcast, try again shortly", n.cfg.Name), errors.Join(elems[5].Error, elems[6].Error))
	}
	return fe, "", nil
}

// Settlement reports a settlement by any of its transaction hashes, from
// the journal: payment.settled, payment.failed, or payment.failed with
// "Settlement pending" while it waits for its block.
func (f *Facilitator) Settlement(txHash string) (*SettleResponse, error) {
	rec, err := f.journal.ByTx(txHash)
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
// or an unknown network is a StatusError 400; an authorization this
// facilitator never journaled is ErrSettlementNotFound (match it with
// errors.Is).
func (f *Facilitator) SettlementByAuthorization(network, from, nonce string) (*SettleResponse, error) {
	n := f.network(network)
	if n == nil {
		return nil, badRequest("network %q is not served by this facilitator", network)
	}
	if !IsAddress(from) {
		return nil, badRequest("from must be a 0x-prefixed 20-byte hex address, got %q", from)
	}
	nb, err := hexutil.Decode(nonce)
	if err != nil || len(nb) != 32 {
		return nil, badRequest("nonce must be 0x and 64 hex digits, got %q", nonce)
	}
	rec, err := f.journal.ByID(engine.RecordID(n.cfg.Name, common.HexToAddress(from), [32]byte(nb)))
	if err != nil {
		return nil, err
	}
	return responseOf(rec), nil
}
