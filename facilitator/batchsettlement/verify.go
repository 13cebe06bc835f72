package batchsettlement

import (
	"context"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/rpc"
	"go.uber.org/zap"

	"github.com/caddy-x402/caddy-x402/facilitator/batchsettlement/batch"
	"github.com/caddy-x402/caddy-x402/facilitator/evm"
	"github.com/caddy-x402/caddy-x402/facilitator/permit2"
	"github.com/caddy-x402/caddy-x402/facilitator/scheme"
)

// reads are the chain reads of a verify or a settle, in one shared batch:
// the channel's three reads, the payer's token balance and the block
// number; for a deposit its simulation (a settle's gas estimate) too.
type reads struct {
	elems []rpc.BatchElem
	outs  [4]*hexutil.Bytes
	block hexutil.Uint64
	gas   hexutil.Uint64
	// allowed is a Permit2 deposit's allowance to Permit2, read last
	// (at allowAt) when it brings no EIP-2612 permit.
	allowed *hexutil.Bytes
	allowAt int
}

func (b *bound) newReads(c *payment, from common.Address, estimate bool) (*reads, error) {
	rd := &reads{}
	calls := batch.ChannelReadCalls(c.id)
	for i, data := range calls {
		rd.elems = append(rd.elems, rpc.BatchElem{})
		rd.elems[i], rd.outs[i] = evm.CallData(batch.SettlementAddress, data)
	}
	el, out := evm.ViewCall(b.Token, "balanceOf", c.cfg.Payer)
	rd.elems, rd.outs[3] = append(rd.elems, el), out
	rd.elems = append(rd.elems, rpc.BatchElem{Method: "eth_blockNumber", Result: &rd.block})
	if c.kind == "deposit" {
		data, err := b.depositCalldata(c)
		if err != nil {
			return nil, err
		}
		args := evm.CallArgs{From: from, To: batch.SettlementAddress, Data: data}
		if estimate {
			rd.elems = append(rd.elems, rpc.BatchElem{Method: "eth_estimateGas", Args: []any{args}, Result: &rd.gas})
		} else {
			var sim hexutil.Bytes
			rd.elems = append(rd.elems, rpc.BatchElem{Method: "eth_call", Args: []any{args, "latest"}, Result: &sim})
		}
	}
	if c.permit2 && c.permit == nil {
		var el rpc.BatchElem
		el, rd.allowed = permit2.AllowanceCall(b.Token, c.cfg.Payer)
		rd.allowAt, rd.elems = len(rd.elems), append(rd.elems, el)
	}
	return rd, nil
}

// allowance is the read allowance to Permit2 (nil: not read, or the read
// failed).
func (rd *reads) allowance() *big.Int {
	if rd.allowed == nil || rd.elems[rd.allowAt].Error != nil {
		return nil
	}
	v, err := permit2.ReadUint256("allowance", *rd.allowed)
	if err != nil {
		return nil
	}
	return v
}

// simErr is the deposit simulation's error (nil when it ran, or for
// another payload).
func (rd *reads) simErr() error {
	if len(rd.elems) > 5 && (rd.allowed == nil || rd.allowAt != 5) {
		return rd.elems[5].Error
	}
	return nil
}

// state reads the answered channel reads and payer balance.
func (rd *reads) state() (batch.ChannelState, *big.Int, error) {
	for _, e := range rd.elems[:5] {
		if e.Error != nil {
			return batch.ChannelState{}, nil, e.Error
		}
	}
	st, err := batch.UnpackChannelState([3][]byte{*rd.outs[0], *rd.outs[1], *rd.outs[2]})
	if err != nil {
		return st, nil, err
	}
	if len(*rd.outs[3]) != 32 {
		return st, nil, fmt.Errorf("balanceOf answered %d bytes", len(*rd.outs[3]))
	}
	return st, new(big.Int).SetBytes(*rd.outs[3]), nil
}

// depositCalldata is deposit(config, amount, collector, collectorData):
// the ERC-3009 collector's, or the Permit2 collector's.
func (b *bound) depositCalldata(c *payment) ([]byte, error) {
	if c.permit2 {
		cd, err := permit2CollectorData(c)
		if err != nil {
			return nil, err
		}
		return batch.DepositCalldata(c.cfg, c.amount, batch.Permit2CollectorAddress, cd)
	}
	cd, err := batch.ERC3009CollectorData(c.validAfter, c.validBefore, c.salt, c.depositSig)
	if err != nil {
		return nil, err
	}
	return batch.DepositCalldata(c.cfg, c.amount, batch.ERC3009CollectorAddress, cd)
}

// Verify reads the channel (and for a deposit the payer's balance and a
// simulated deposit) in one shared batch and decides as the published
// facilitator does.
func (b *bound) Verify(ctx context.Context, sp scheme.Payment) (string, error) {
	c := sp.(*payment)
	if c.kind == "claim" || c.kind == "settle" {
		return ErrInvalidPayloadType, nil // settled, never verified (as published)
	}
	if c.verifyReason != "" {
		return c.verifyReason, nil
	}
	rd, err := b.newReads(c, b.authorizer, false)
	if err != nil {
		return ErrInvalidPayloadType, nil
	}
	if err := b.Pool.BatchShared(ctx, rd.elems); err != nil {
		b.env.Logger.Warn("batch-settlement verify: RPC unreachable", zap.String("network", b.Cfg.Name), zap.Error(err))
		return "", scheme.Unavailable("cannot reach the chain of network "+b.Cfg.Name+" to check the payment; try again shortly", err)
	}
	st, payerBalance, err := rd.state()
	if err != nil {
		return ErrRPCReadFailed, nil
	}
	reason := allowanceReason(c, rd.allowance())
	if reason == "" {
		reason = decide(c, st, payerBalance)
	}
	if reason == "" && rd.simErr() != nil {
		reason = ErrDepositSimulationFailed
	}
	c.state, c.valid = &st, reason == ""
	return reason, nil
}

// decide is the published facilitator's verdict on the chain's state.
func decide(c *payment, st batch.ChannelState, payerBalance *big.Int) string {
	if c.kind == "deposit" {
		if payerBalance.Cmp(c.amount) < 0 {
			return ErrInsufficientBalance
		}
		if c.max.Cmp(new(big.Int).Add(st.Balance, c.amount)) > 0 {
			return ErrCumulativeExceedsBalance
		}
		if c.max.Cmp(st.TotalClaimed) <= 0 {
			return ErrCumulativeAmountBelowClaimed
		}
		return ""
	}
	if st.Balance.Sign() == 0 {
		return ErrChannelNotFound
	}
	if c.max.Cmp(st.Balance) > 0 {
		return ErrCumulativeExceedsBalance
	}
	if cmp := c.max.Cmp(st.TotalClaimed); cmp < 0 || (cmp == 0 && c.kind != "refund") {
		return ErrCumulativeAmountBelowClaimed
	}
	return ""
}
