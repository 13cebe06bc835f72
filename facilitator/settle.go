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
	broadcast := false
	defer func() {
		if !broadcast {
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
	if f.serial {
		s.serial.Lock()
		defer s.serial.Unlock()
	}
	st := newSettlement(c, network, s, fee, f.now())
	if err := s.submit(st); err != nil {
		var se *sendError
		log := f.logger.With(zap.String("network", n.cfg.Name), zap.String("signer", s.addr.Hex()), zap.Error(err))
		if errors.As(err, &se) && se.noGas {
			log.Error("signer cannot pay gas; fund it")
			return nil, unavailable(fmt.Sprintf("the facilitator's signer %s has too little gas money on network %s; nothing was sent, try again after the operator funds it", s.addr.Hex(), n.cfg.Name), err)
		}
		log.Error("sending the settlement failed; nothing was broadcast")
		return nil, unavailable(fmt.Sprintf("cannot send the transaction on network %s; nothing was broadcast, try again shortly", n.cfg.Name), err)
	}
	broadcast = true // the watcher releases the authorization when its outcome is known
	n.watch.add(st)
	f.logger.Debug("settlement broadcast", zap.String("id", st.rec.ID), zap.String("tx", st.current().Hash().Hex()), zap.Uint64("tx_nonce", st.rec.TxNonce))

	timer := time.NewTimer(f.settleTimeout)
	defer timer.Stop()
	select {
	case <-st.done:
		return st.result, nil
	case <-timer.C:
	case <-ctx.Done():
	case <-f.ctx.Done():
	}
	res := failed(network, ErrTextPending)
	res.TxHash = st.current().Hash().Hex()
	f.logger.Warn("settlement not confirmed in time; answered pending", zap.String("id", st.rec.ID), zap.String("tx", res.TxHash), zap.Duration("timeout", f.settleTimeout))
	return res, nil
}

// prepare runs the on-chain checks and reads what the transaction needs
// (gas estimate, fees), all in one batched round trip.
func (f *Facilitator) prepare(ctx context.Context, c *checked, s *signer) (*fees, string, error) {
	n := c.n
	b := evm.NewBatchChecks(n.token, s.addr, &c.p.Authorization, c.transferCalldata())
	var gas hexutil.Uint64
	var tip, gasPrice hexutil.Big
	var head struct {
		BaseFee *hexutil.Big `json:"baseFeePerGas"`
	}
	elems := append(b.Elems,
		rpc.BatchElem{Method: "eth_estimateGas", Args: []any{evm.CallArgs{From: s.addr, To: n.token, Data: c.transferCalldata()}}, Result: &gas},
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
	if reason := onchainReason(st, c.p.Authorization.Value); reason != "" {
		return nil, reason, nil
	}
	if err := elems[3].Error; err != nil {
		if r, ok := evm.RevertReason(err); ok {
			return nil, verifyTextForRevert(r), nil
		}
		return nil, "", unavailable(fmt.Sprintf("gas estimation failed on network %s; nothing was broadcast, try again shortly", n.cfg.Name), err)
	}
	fe := &fees{gasLimit: uint64(gas) * (100 + gasMarginPercent) / 100}
	switch {
	case elems[6].Error == nil && head.BaseFee != nil:
		fe.tipCap = big.NewInt(0)
		if elems[4].Error == nil {
			fe.tipCap = tip.ToInt()
		}
		// Twice the base fee leaves room for six full blocks of rises.
		fe.feeCap = new(big.Int).Add(new(big.Int).Mul(head.BaseFee.ToInt(), big.NewInt(2)), fe.tipCap)
	case elems[5].Error == nil:
		fe.gasPrice = gasPrice.ToInt()
	default:
		return nil, "", unavailable(fmt.Sprintf("cannot read gas prices on network %s; nothing was broadcast, try again shortly", n.cfg.Name), errors.Join(elems[5].Error, elems[6].Error))
	}
	return fe, "", nil
}

// authorizationUsed reads authorizationState(from, nonce) on chain.
func (n *network) authorizationUsed(ctx context.Context, p *Payment) (bool, error) {
	el, out := evm.ViewCall(n.token, "authorizationState", p.Authorization.From, p.Authorization.Nonce)
	if err := n.rpc.Call(ctx, out, el.Method, el.Args...); err != nil {
		return false, err
	}
	vals, err := evm.TokenABI.Unpack("authorizationState", *out)
	if err != nil {
		return false, err
	}
	return vals[0].(bool), nil
}

// Settlement reports a settlement by any of its transaction hashes, from
// the journal: payment.settled, payment.failed, or payment.failed with
// "Settlement pending" while it waits for its block.
func (f *Facilitator) Settlement(txHash string) (*SettleResponse, error) {
	rec, err := f.journal.ByTx(txHash)
	if err != nil {
		return nil, err
	}
	res := rec.response()
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
	rec, err := f.journal.ByID(recordID(n.cfg.Name, common.HexToAddress(from), [32]byte(nb)))
	if err != nil {
		return nil, err
	}
	return rec.response(), nil
}
