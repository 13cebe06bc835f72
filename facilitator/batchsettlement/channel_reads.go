package batchsettlement

import (
	"context"
	"fmt"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/caddy-x402/caddy-x402/facilitator/batchsettlement/batch"
	"github.com/caddy-x402/caddy-x402/facilitator/evm"
)

// Chain reads for a paywall's payment channels (its withdraw watch),
// through the network's RPC endpoints: the bound is a batch.ChannelReader.

var _ batch.ChannelReader = (*bound)(nil)

// WithdrawLogs lists the ids of the payment channels whose payer asked to
// withdraw, or finalized a withdrawal, in blocks from..to of the network
// (the batch settlement contract's WithdrawInitiated and WithdrawFinalized
// logs), at most batch.MaxWithdrawLogSpan blocks, in log order, each id
// once.
func (b *bound) WithdrawLogs(ctx context.Context, from, to uint64) ([]common.Hash, error) {
	if to < from || to-from >= batch.MaxWithdrawLogSpan {
		return nil, fmt.Errorf("withdraw logs of blocks %d..%d: at most %d blocks at once", from, to, batch.MaxWithdrawLogSpan)
	}
	topics := []common.Hash{batch.ABI.Events["WithdrawInitiated"].ID, batch.ABI.Events["WithdrawFinalized"].ID}
	var logs []types.Log
	filter := map[string]any{"address": batch.SettlementAddress, "fromBlock": hexutil.EncodeUint64(from),
		"toBlock": hexutil.EncodeUint64(to), "topics": [][]common.Hash{topics}}
	if err := b.Pool.Call(ctx, &logs, "eth_getLogs", filter); err != nil {
		return nil, err
	}
	seen := map[common.Hash]bool{}
	var ids []common.Hash
	for _, l := range logs {
		if l.Removed || len(l.Topics) < 2 || seen[l.Topics[1]] {
			continue
		}
		seen[l.Topics[1]] = true
		ids = append(ids, l.Topics[1])
	}
	return ids, nil
}

// ChannelState reads a payment channel's state on the network at a block.
func (b *bound) ChannelState(ctx context.Context, id common.Hash, block uint64) (batch.ChannelState, error) {
	calls := batch.ChannelReadCalls(id)
	elems := make([]rpc.BatchElem, len(calls))
	var outs [3]*hexutil.Bytes
	for i, data := range calls {
		elems[i], outs[i] = evm.CallDataAt(batch.SettlementAddress, block, data)
	}
	if err := b.Pool.Batch(ctx, elems); err != nil {
		return batch.ChannelState{}, err
	}
	for _, e := range elems {
		if e.Error != nil {
			return batch.ChannelState{}, e.Error
		}
	}
	return batch.UnpackChannelState([3][]byte{*outs[0], *outs[1], *outs[2]})
}
