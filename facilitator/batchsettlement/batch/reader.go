package batch

import (
	"context"

	"github.com/ethereum/go-ethereum/common"
)

// MaxWithdrawLogSpan is the most blocks one ChannelReader.WithdrawLogs
// call asks for (what public endpoints accept in one eth_getLogs).
const MaxWithdrawLogSpan = 2000

// ChannelReader reads a network's payment channels on chain, for a
// paywall's withdraw watch: the facilitator's batch-settlement Bound on
// that network is one (facilitator.Facilitator.Bound).
type ChannelReader interface {
	// WithdrawLogs lists the ids of the channels whose payer asked to
	// withdraw, or finalized a withdrawal, in blocks from..to (at most
	// MaxWithdrawLogSpan blocks), in log order, each id once.
	WithdrawLogs(ctx context.Context, from, to uint64) ([]common.Hash, error)
	// ChannelState reads a channel's state at a block.
	ChannelState(ctx context.Context, id common.Hash, block uint64) (ChannelState, error)
}
