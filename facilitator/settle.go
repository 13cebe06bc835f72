package facilitator

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/rpc"
	"go.uber.org/zap"
)

// gasMarginPercent is added to eth_estimateGas's figure.
const gasMarginPercent = 25

// Settle re-checks a payment as Verify does, submits transferWithAuthorization
// from one of the network's signer keys, waits until the transaction is in a
// block and answers payment.settled, or payment.failed with the reason.
//
// An error is returned only when there is no settlement result to give: a
// malformed request (StatusError 400), or a chain or signer that cannot be
// used right now with nothing broadcast (StatusError 503, with the
// payment.failed body in the handler).
func (f *Facilitator) Settle(ctx context.Context, req *Request) (*SettleResponse, error) {
	if err := validateRequest(req); err != nil {
		return nil, err
	}
	network := req.PaymentRequirements.Network
	c, reason := f.checkOffchain(req)
	if reason != "" {
		return failed(network, settleText(reason)), nil
	}
	n := c.n
	if len(n.signers) == 0 {
		return nil, unavailable(fmt.Sprintf("network %s has no signer key, so this facilitator cannot settle on it; configure a signer key", n.cfg.Name), nil)
	}
	key := keyOf(c.p)
	if !n.settling.acquire(key) {
		return failed(network, ErrTextAlreadyUsed), nil
	}
	held := true
	defer func() {
		if held {
			n.settling.release(key)
		}
	}()

	s := n.pickSigner()
	fee, reason, err := f.prepare(ctx, c, s)
	if err != nil {
		return nil, err
	}
	if reason != "" {
		return failed(network, settleText(reason)), nil
	}

	log := f.logger.With(zap.String("network", n.cfg.Name), zap.String("from", c.p.Authorization.From.Hex()),
		zap.String("nonce", hexutil.Encode(c.p.Authorization.Nonce[:])), zap.String("signer", s.addr.Hex()))
	tx, err := s.send(ctx, n.rpc, n.chainID, n.token, c.transferCalldata(), fee)
	var se *sendError
	switch {
	case err == nil:
	case errors.As(err, &se) && se.broadcast:
		log.Warn("sending the transaction failed midway; watching for it in case it reached the node", zap.String("tx", tx.Hash().Hex()), zap.Error(err))
	case errors.As(err, &se) && se.noGas:
		log.Error("signer cannot pay gas; fund it", zap.Error(err))
		return nil, unavailable(fmt.Sprintf("the facilitator's signer %s has too little gas money on network %s; nothing was sent, try again after the operator funds it", s.addr.Hex(), n.cfg.Name), err)
	default:
		log.Error("sending the transaction failed; nothing was broadcast", zap.Error(err))
		return nil, unavailable(fmt.Sprintf("cannot send the transaction on network %s; nothing was broadcast, try again shortly", n.cfg.Name), err)
	}
	log = log.With(zap.String("tx", tx.Hash().Hex()))
	log.Info("settlement broadcast", zap.Uint64("tx_nonce", tx.Nonce()))

	waitCtx, cancel := context.WithTimeout(ctx, f.settleTimeout)
	defer cancel()
	receipt, err := n.confirm.wait(waitCtx, tx.Hash())
	if err != nil {
		// Still pending: keep the authorization held until its fate is known.
		held = false
		f.watch(n, key, tx, log)
		res := failed(network, ErrTextPending)
		res.TxHash = tx.Hash().Hex()
		log.Warn("settlement not confirmed before the timeout; answered pending", zap.Duration("timeout", f.settleTimeout))
		return res, nil
	}
	return f.outcome(ctx, c, network, tx, receipt, log), nil
}

// prepare runs the on-chain checks and reads what the transaction needs
// (gas estimate, fees), all in one batched round trip.
func (f *Facilitator) prepare(ctx context.Context, c *checked, s *signer) (*fees, string, error) {
	n := c.n
	b := newBatchChecks(n.token, s.addr, c.p, c.transferCalldata())
	var gas hexutil.Uint64
	var tip, gasPrice hexutil.Big
	var head struct {
		BaseFee *hexutil.Big `json:"baseFeePerGas"`
	}
	elems := append(b.elems,
		rpc.BatchElem{Method: "eth_estimateGas", Args: []any{callArgs{From: s.addr, To: n.token, Data: c.transferCalldata()}}, Result: &gas},
		rpc.BatchElem{Method: "eth_maxPriorityFeePerGas", Result: &tip},
		rpc.BatchElem{Method: "eth_gasPrice", Result: &gasPrice},
		rpc.BatchElem{Method: "eth_getBlockByNumber", Args: []any{"latest", false}, Result: &head},
	)
	b.elems = elems[:3]
	if err := n.rpc.batch(ctx, elems); err != nil {
		f.logger.Warn("settle: RPC unreachable before broadcast", zap.String("network", n.cfg.Name), zap.Error(err))
		return nil, "", unavailable(fmt.Sprintf("cannot reach the chain of network %s; nothing was broadcast, try again shortly", n.cfg.Name), err)
	}
	st, err := b.state()
	if err != nil {
		return nil, "", unavailable(fmt.Sprintf("the chain of network %s gave an unreadable answer; nothing was broadcast, try again shortly", n.cfg.Name), err)
	}
	if reason := st.reason(c.p.Authorization.Value); reason != "" {
		return nil, reason, nil
	}
	if err := elems[3].Error; err != nil {
		if r, ok := revertReason(err); ok {
			return nil, verifyTextForRevert(r), nil
		}
		return nil, "", unavailable(fmt.Sprintf("gas estimation failed on network %s; nothing was broadcast, try again shortly", n.cfg.Name), err)
	}
	fe := &fees{gasLimit: uint64(gas) * (100 + gasMarginPercent) / 100}
	switch {
	case elems[6].Error == nil && head.BaseFee != nil:
		fe.baseFee = head.BaseFee.ToInt()
		fe.tip = big.NewInt(0)
		if elems[4].Error == nil {
			fe.tip = tip.ToInt()
		}
	case elems[5].Error == nil:
		fe.gasPrice = gasPrice.ToInt()
	default:
		return nil, "", unavailable(fmt.Sprintf("cannot read gas prices on network %s; nothing was broadcast, try again shortly", n.cfg.Name), errors.Join(elems[5].Error, elems[6].Error))
	}
	return fe, "", nil
}

// outcome turns a receipt into the settle answer.
func (f *Facilitator) outcome(ctx context.Context, c *checked, network string, tx *types.Transaction, r *types.Receipt, log *zap.Logger) *SettleResponse {
	if r.Status == types.ReceiptStatusSuccessful {
		block := r.BlockNumber.Uint64()
		a := &c.p.Authorization
		log.Info("payment settled", zap.Uint64("block", block), zap.String("value", a.Value.String()))
		return &SettleResponse{
			X402Version: X402Version,
			Event:       EventSettled,
			TxHash:      tx.Hash().Hex(),
			From:        a.From.Hex(),
			To:          a.To.Hex(),
			Value:       a.Value.String(),
			BlockNumber: &block,
			Network:     network,
			Timestamp:   Timestamp(f.now()),
		}
	}
	// The transaction reverted. The common cause is a race with another
	// submitter of the same authorization: tell that apart.
	msg := ErrTextFailedOnChain
	b := newBatchChecks(c.n.token, c.n.simulationSender(), c.p, c.transferCalldata())
	if err := c.n.rpc.batch(ctx, b.elems[:1]); err == nil {
		if st, err := (&batchChecks{elems: append(b.elems[:1], rpc.BatchElem{}, rpc.BatchElem{}), used: b.used, balance: zeroWord()}).state(); err == nil && st.used {
			msg = ErrTextAlreadyUsed
		}
	}
	log.Warn("settlement transaction reverted", zap.Uint64("block", r.BlockNumber.Uint64()), zap.String("error", msg))
	res := failed(network, msg)
	res.TxHash = tx.Hash().Hex()
	return res
}

func zeroWord() *hexutil.Bytes {
	w := hexutil.Bytes(make([]byte, 32))
	return &w
}

// watch keeps an authorization held until its transaction's fate is known,
// after Settle stopped waiting.
func (f *Facilitator) watch(n *network, key authKey, tx *types.Transaction, log *zap.Logger) {
	f.wg.Add(1)
	go func() {
		defer f.wg.Done()
		defer n.settling.release(key)
		ctx, cancel := context.WithTimeout(f.ctx, time.Hour)
		defer cancel()
		r, err := n.confirm.wait(ctx, tx.Hash())
		if err != nil {
			log.Warn("stopped watching an unconfirmed settlement", zap.Error(err))
			return
		}
		log.Info("late settlement outcome", zap.Uint64("status", r.Status), zap.Uint64("block", r.BlockNumber.Uint64()))
	}()
}
