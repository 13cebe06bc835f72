package batchsettlement

import (
	"context"
	"fmt"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/caddy-x402/caddy-x402/facilitator/batchsettlement/batch"
	"github.com/caddy-x402/caddy-x402/facilitator/evm"
	"github.com/caddy-x402/caddy-x402/facilitator/scheme"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// The receiver side: claim (many vouchers in one claimWithSignature),
// settle (what is claimed, to the receiver) and the enriched refund
// (refundWithSignature, after the claims it carries in one multicall).
// Each is idempotent or bound to a nonce on chain; here each is also
// refused before broadcast when it would change nothing, so a replay
// costs no gas.

// claimSignature is the rows' receiver-authorizer signature: the one
// given, or ours when every row names our authorizer.
func (b *bound) claimSignature(rows []batch.VoucherClaim, given []byte) ([]byte, string) {
	if len(given) > 0 {
		return given, ""
	}
	for _, r := range rows {
		if r.Voucher.Channel.ReceiverAuthorizer != b.authorizer {
			return nil, ErrAuthorizerAddressMismatch
		}
	}
	sig, err := batch.SignClaimBatch(b.authorizerKey, b.ChainID, rows)
	if err != nil {
		return nil, ErrInvalidPayloadType
	}
	return sig, ""
}

// channelReads reads channels(id) of each distinct channel of rows.
type channelReads struct {
	ids   []common.Hash
	outs  []*hexutil.Bytes
	elems []rpc.BatchElem
}

func (b *bound) readChannels(rows []batch.VoucherClaim) (*channelReads, error) {
	cr := &channelReads{}
	seen := map[common.Hash]bool{}
	for _, r := range rows {
		id, err := r.Voucher.Channel.ID(b.ChainID)
		if err != nil {
			return nil, err
		}
		if seen[id] {
			continue
		}
		seen[id] = true
		el, out := evm.CallData(batch.SettlementAddress, batch.ChannelReadCalls(id)[0])
		cr.ids, cr.outs, cr.elems = append(cr.ids, id), append(cr.outs, out), append(cr.elems, el)
	}
	return cr, nil
}

// claimed is the channels' totalClaimed as read.
func (cr *channelReads) claimed(elems []rpc.BatchElem) (map[common.Hash]*big.Int, error) {
	out := map[common.Hash]*big.Int{}
	for i, id := range cr.ids {
		if elems[i].Error != nil {
			return nil, elems[i].Error
		}
		v, err := batch.ABI.Unpack("channels", *cr.outs[i])
		if err != nil {
			return nil, err
		}
		out[id] = v[1].(*big.Int)
	}
	return out, nil
}

// increase is what rows claim beyond what their channels have claimed.
func (b *bound) increase(rows []batch.VoucherClaim, claimed map[common.Hash]*big.Int) *big.Int {
	sum := new(big.Int)
	for _, r := range rows {
		id, _ := r.Voucher.Channel.ID(b.ChainID)
		if d := new(big.Int).Sub(r.TotalClaimed, claimed[id]); d.Sign() > 0 {
			sum.Add(sum, d)
			claimed[id] = r.TotalClaimed
		}
	}
	return sum
}

// settleClaim sends claimWithSignature of the payload's rows.
func (b *bound) settleClaim(ctx context.Context, c *payment, requested string, deadline time.Time) (*x402.SettleResponse, error) {
	sig, reason := b.claimSignature(c.claims, c.claimSig)
	if reason != "" {
		return x402.Failed(requested, reason), nil
	}
	data, err := batch.ClaimWithSignatureCalldata(c.claims, sig)
	if err != nil {
		return x402.Failed(requested, ErrInvalidPayloadType), nil
	}
	cr, err := b.readChannels(c.claims)
	if err != nil {
		return x402.Failed(requested, ErrInvalidPayloadType), nil
	}
	o := &op{from: b.authorizer, nonce: opNonce(data), value: new(big.Int), validAfter: new(big.Int), validBefore: farFuture(b.env.Now()),
		calldata: data, reads: cr.elems, simFail: ErrClaimSimulationFailed, txFail: ErrClaimTransactionFailed}
	o.decide = func(uint64) (string, error) {
		claimed, err := cr.claimed(o.reads)
		if err != nil {
			return ErrRPCReadFailed, nil
		}
		o.value = b.increase(c.claims, claimed)
		if o.value.Sign() == 0 {
			return ErrNothingToClaim, nil
		}
		return "", nil
	}
	return b.send(ctx, o, requested, deadline)
}

// settleReceiver sends settle(receiver, token): everything claimed and
// not settled, in one transfer.
func (b *bound) settleReceiver(ctx context.Context, c *payment, requested string, deadline time.Time) (*x402.SettleResponse, error) {
	data, err := batch.SettleCalldata(c.receiver, c.token)
	if err != nil {
		return x402.Failed(requested, ErrInvalidPayloadType), nil
	}
	// The hold key includes the receiver's totalClaimed, read first: each
	// settle round is its own record.
	read := func() (batch.ReceiverState, rpc.BatchElem, *hexutil.Bytes) {
		el, out := evm.CallData(batch.SettlementAddress, batch.ReceiverReadCall(c.receiver, c.token))
		return batch.ReceiverState{}, el, out
	}
	_, el, out := read()
	if err := b.Pool.BatchShared(ctx, []rpc.BatchElem{el}); err != nil {
		return nil, scheme.Unavailable(fmt.Sprintf("cannot reach the chain of network %s; nothing was broadcast, try again shortly", b.Cfg.Name), err)
	}
	first, err := batch.UnpackReceiverState(*out)
	if el.Error != nil || err != nil {
		return x402.Failed(requested, ErrRPCReadFailed), nil
	}
	if first.Unsettled().Sign() <= 0 {
		return x402.Failed(requested, ErrNothingToSettle), nil
	}
	_, el, out = read()
	o := &op{from: c.receiver, nonce: opNonce(append(append([]byte{}, data...), common.BigToHash(first.TotalClaimed).Bytes()...)),
		value: new(big.Int), validAfter: new(big.Int), validBefore: farFuture(b.env.Now()),
		calldata: data, reads: []rpc.BatchElem{el}, simFail: ErrSettleSimulationFailed, txFail: ErrSettleTransactionFailed}
	o.decide = func(uint64) (string, error) {
		st, err := batch.UnpackReceiverState(*out)
		if o.reads[0].Error != nil || err != nil {
			return ErrRPCReadFailed, nil
		}
		if st.Unsettled().Sign() <= 0 {
			return ErrNothingToSettle, nil
		}
		o.value = st.Unsettled()
		return "", nil
	}
	return b.send(ctx, o, requested, deadline)
}

// settleRefund sends refundWithSignature (after the payload's claims, in
// one multicall): the amount asked, capped on chain to what is unclaimed.
func (b *bound) settleRefund(ctx context.Context, c *payment, requested string, deadline time.Time) (*x402.SettleResponse, error) {
	r := c.refund
	sig := r.sig
	if len(sig) == 0 {
		if c.cfg.ReceiverAuthorizer != b.authorizer {
			return x402.Failed(requested, ErrAuthorizerAddressMismatch), nil
		}
		var err error
		if sig, err = batch.SignRefund(b.authorizerKey, b.ChainID, c.id, r.nonce, r.amount); err != nil {
			return x402.Failed(requested, ErrInvalidPayloadType), nil
		}
	}
	data, err := batch.RefundWithSignatureCalldata(c.cfg, r.amount, r.nonce, sig)
	if err != nil {
		return x402.Failed(requested, ErrInvalidPayloadType), nil
	}
	if len(c.claims) > 0 {
		csig, reason := b.claimSignature(c.claims, c.claimSig)
		if reason != "" {
			return x402.Failed(requested, reason), nil
		}
		claim, err := batch.ClaimWithSignatureCalldata(c.claims, csig)
		if err != nil {
			return x402.Failed(requested, ErrInvalidPayloadType), nil
		}
		if data, err = batch.MulticallCalldata([][]byte{claim, data}); err != nil {
			return x402.Failed(requested, ErrInvalidPayloadType), nil
		}
	}
	rd, _ := b.newReads(&payment{kind: "voucher", cfg: c.cfg, id: c.id}, b.authorizer, false)
	var pre batch.ChannelState
	o := &op{from: c.cfg.Payer, nonce: opNonce(data), value: new(big.Int), validAfter: new(big.Int), validBefore: farFuture(b.env.Now()),
		calldata: data, reads: rd.elems, simFail: ErrRefundSimulationFailed, txFail: ErrRefundTransactionFailed}
	o.decide = func(uint64) (string, error) {
		rd.elems = o.reads
		st, _, err := rd.state()
		if err != nil {
			return ErrRPCReadFailed, nil
		}
		pre = st
		claimed := st.TotalClaimed
		for _, row := range c.claims {
			if id, _ := row.Voucher.Channel.ID(b.ChainID); id == c.id && row.TotalClaimed.Cmp(claimed) > 0 {
				claimed = row.TotalClaimed
			}
		}
		avail := new(big.Int).Sub(st.Balance, claimed)
		if avail.Sign() <= 0 || r.amount.Sign() == 0 {
			return ErrRefundNoBalance, nil
		}
		if r.amount.Cmp(avail) < 0 {
			avail = r.amount
		}
		o.value = avail
		return "", nil
	}
	o.after = func(ctx context.Context, res *x402.SettleResponse) {
		res.From = c.cfg.Payer.Hex()
		b.addState(ctx, c.cfg, c.id, res)
		if cs, ok := res.Extra["channelState"].(map[string]any); ok {
			if post, ok := new(big.Int).SetString(cs["balance"].(string), 10); ok {
				res.Value = new(big.Int).Sub(pre.Balance, post).String()
			}
		}
	}
	return b.send(ctx, o, requested, deadline)
}
