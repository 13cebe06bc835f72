package facilitator

import (
	"context"
	"fmt"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/caddy-x402/caddy-x402/facilitator/batch"
	"github.com/caddy-x402/caddy-x402/facilitator/evm"
)

// Chain reads for a paywall's payment channels (its withdraw watch),
// through the network's RPC endpoints.

// MaxWithdrawLogSpan is the most blocks one WithdrawLogs call asks for
// (what public endpoints accept in one eth_getLogs).
const MaxWithdrawLogSpan = 2000

// ChainHead is the newest block number of a network.
func (f *Facilitator) ChainHead(ctx context.Context, network string) (uint64, error) {
	n := f.networkNamed(network)
	if n == nil {
		return 0, fmt.Errorf("no network %q", network)
	}
	var head hexutil.Uint64
	if err := n.Pool.Call(ctx, &head, "eth_blockNumber"); err != nil {
		return 0, err
	}
	return uint64(head), nil
}

// WithdrawLogs lists the ids of the payment channels whose payer asked to
// withdraw, or finalized a withdrawal, in blocks from..to of a network
// (the batch settlement contract's WithdrawInitiated and WithdrawFinalized
// logs), at most MaxWithdrawLogSpan blocks, in log order, each id once.
func (f *Facilitator) WithdrawLogs(ctx context.Context, network string, from, to uint64) ([]common.Hash, error) {
	n := f.networkNamed(network)
	switch {
	case n == nil:
		return nil, fmt.Errorf("no network %q", network)
	case to < from || to-from >= MaxWithdrawLogSpan:
		return nil, fmt.Errorf("withdraw logs of blocks %d..%d: at most %d blocks at once", from, to, MaxWithdrawLogSpan)
	}
	topics := []common.Hash{batch.ABI.Events["WithdrawInitiated"].ID, batch.ABI.Events["WithdrawFinalized"].ID}
	var logs []types.Log
	filter := map[string]any{"address": batch.SettlementAddress, "fromBlock": hexutil.EncodeUint64(from),
		"toBlock": hexutil.EncodeUint64(to), "topics": [][]common.Hash{topics}}
	if err := n.Pool.Call(ctx, &logs, "eth_getLogs", filter); err != nil {
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

// ChannelState reads a payment channel's state on a network at a block.
func (f *Facilitator) ChannelState(ctx context.Context, network string, id common.Hash, block uint64) (batch.ChannelState, error) {
	n := f.networkNamed(network)
	if n == nil {
		return batch.ChannelState{}, fmt.Errorf("no network %q", network)
	}
	calls := batch.ChannelReadCalls(id)
	elems := make([]rpc.BatchElem, len(calls))
	var outs [3]*hexutil.Bytes
	for i, data := range calls {
		elems[i], outs[i] = evm.CallDataAt(batch.SettlementAddress, block, data)
	}
	if err := n.Pool.Batch(ctx, elems); err != nil {
		return batch.ChannelState{}, err
	}
	for _, e := range elems {
		if e.Error != nil {
			return batch.ChannelState{}, e.Error
		}
	}
	return batch.UnpackChannelState([3][]byte{*outs[0], *outs[1], *outs[2]})
}
