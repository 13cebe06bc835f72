package paywall

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"go.uber.org/zap"

	"github.com/caddy-x402/caddy-x402/facilitator"
	"github.com/caddy-x402/caddy-x402/facilitator/batchsettlement/batch"
	"github.com/caddy-x402/caddy-x402/facilitator/store"
)

// The withdraw watch: a payer may ask to withdraw its channel's unclaimed
// balance (initiateWithdraw) and take it withdrawDelay later
// (finalizeWithdraw), vouchers charged and not claimed by then included.
// The claiming instance scans the contract's WithdrawInitiated and
// WithdrawFinalized logs from the last block read (one eth_getLogs per
// scan, whatever the number of channels; reading every open channel's
// state would cost three calls per channel per scan), reads the state of
// the channels it holds that the logs name, and records it (Sync:
// withdrawRequestedAt, or the balance the withdrawal left). A channel
// whose payer asked to withdraw is claimed at once and at every scan
// while it has charges unclaimed, and is charged no more once the delay
// is within withdrawMargin of its end, so that what it was charged is
// claimed before the payer can take it.
//
// The next block to read is kept in the channel store too, where it keeps
// watch marks (store.WatchMarks: PostgreSQL), so that an instance taking
// the claiming role over resumes where the last one stopped; only a watch
// with no mark (the first ever) reads withdrawLookback blocks back. The
// channels with a pending withdrawal are read page by page, every one of
// them, however many.

// maxWatchEvery is the longest time between two scans.
const maxWatchEvery = 30 * time.Second

// withdrawLookback is how many blocks the first scan (when no scan was
// recorded: neither by this process nor in the store) reads back: a
// withdraw request older
// than that was asked more than the withdraw delay ago on any chain with
// blocks at least 0.1 s apart.
const withdrawLookback = 10_000

// maxScanSpans bounds one scan's eth_getLogs calls; the next scan goes on.
const maxScanSpans = 10

// withdrawMargin is how long before a withdrawal can complete the
// channel is charged no more: a third of the delay, ten scans at least.
const withdrawMargin = DefaultWithdrawDelay / 3 * time.Second

// withdrawClosing says whether a channel whose payer asked to withdraw is
// past the point where a charge could still be claimed before the
// withdrawal completes.
func withdrawClosing(c *store.Channel, now time.Time) bool {
	if c.WithdrawRequestedAt.IsZero() {
		return false
	}
	end := c.WithdrawRequestedAt.Add(time.Duration(c.Config.WithdrawDelay) * time.Second)
	return !now.Before(end.Add(-withdrawMargin))
}

// withdrawChain is what the withdraw watch reads of the chain: the
// embedded facilitator (a test gives its own to see what is asked).
type withdrawChain interface {
	ChainHead(ctx context.Context, network string) (uint64, error)
	WithdrawLogs(ctx context.Context, network string, from, to uint64) ([]common.Hash, error)
	ChannelState(ctx context.Context, network string, id common.Hash, block uint64) (batch.ChannelState, error)
}

// watchChain is the chain the withdraw watch reads.
func (rt *chanRoute) watchChain() withdrawChain {
	if rt.chain != nil {
		return rt.chain
	}
	return facilitatorChain{rt.fac}
}

// facilitatorChain is the embedded facilitator as the withdraw watch reads
// it: a network's head, and the channel reads of its batch-settlement
// Bound there (batch.ChannelReader).
type facilitatorChain struct{ f *facilitator.Facilitator }

// ChainHead is the network's newest block number.
func (c facilitatorChain) ChainHead(ctx context.Context, network string) (uint64, error) {
	return c.f.ChainHead(ctx, network)
}

// WithdrawLogs lists the channels asked to withdraw in blocks from..to
// (batch.ChannelReader).
func (c facilitatorChain) WithdrawLogs(ctx context.Context, network string, from, to uint64) ([]common.Hash, error) {
	r, err := c.reader(network)
	if err != nil {
		return nil, err
	}
	return r.WithdrawLogs(ctx, from, to)
}

// ChannelState reads a channel's state at a block (batch.ChannelReader).
func (c facilitatorChain) ChannelState(ctx context.Context, network string, id common.Hash, block uint64) (batch.ChannelState, error) {
	r, err := c.reader(network)
	if err != nil {
		return batch.ChannelState{}, err
	}
	return r.ChannelState(ctx, id, block)
}

// reader is the channel reader of the network's batch-settlement Bound.
func (c facilitatorChain) reader(network string) (batch.ChannelReader, error) {
	b, _ := c.f.Bound(network, SchemeChannel)
	r, ok := b.(batch.ChannelReader)
	if !ok {
		return nil, fmt.Errorf("no network %q with batch-settlement", network)
	}
	return r, nil
}

// watchKey is the store key of option i's withdraw watch mark.
func (rt *chanRoute) watchKey(i int) string {
	return "withdraw-watch|" + rt.pricing.options[i].reqs.Network + "|" + strings.ToLower(rt.opts[i].payTo.Hex())
}

// scanFrom is the block option i's withdraw watch reads next: the later
// of this process's last scan and the store's mark, or, with neither,
// withdrawLookback blocks before head. A mark beyond the head (a chain
// started anew under the same store) is not followed.
func (rt *chanRoute) scanFrom(ctx context.Context, i int, head uint64) uint64 {
	from, ok := rt.scanned[i]
	if wm, isMarks := rt.store.(store.WatchMarks); isMarks {
		mark, found, err := wm.WatchMark(ctx, rt.watchKey(i))
		switch {
		case err != nil:
			rt.logger.Warn("withdraw watch: where the last scan stopped could not be read from the store; this scan starts from this instance's own last scan, or a fixed span back",
				zap.String("network", rt.pricing.options[i].reqs.Network), zap.Error(err))
		case found && mark > head+1:
			rt.logger.Warn("withdraw watch: the store's mark of the last scan is beyond the chain's newest block (a chain started anew?); scanning a fixed span back instead",
				zap.String("network", rt.pricing.options[i].reqs.Network), zap.Uint64("mark", mark), zap.Uint64("head", head))
		case found && (!ok || mark > from):
			from, ok = mark, true
		}
	}
	if !ok {
		from = head - min(head, withdrawLookback)
	}
	return from
}

// watchWithdraws scans option i's network for withdraw requests since the
// last scan, records the state of this route's channels they name, and
// says whether one of this route's channels with a pending withdrawal has
// charges to claim.
func (rt *chanRoute) watchWithdraws(ctx context.Context, i int) bool {
	network := rt.pricing.options[i].reqs.Network
	fac := rt.watchChain()
	head, err := fac.ChainHead(ctx, network)
	if err != nil {
		rt.logger.Warn("withdraw watch: the chain could not be read; the next scan tries again", zap.String("network", network), zap.Error(err))
		return rt.withdrawPending(ctx, i)
	}
	from := rt.scanFrom(ctx, i, head)
	wm, _ := rt.store.(store.WatchMarks)
	for n := 0; from <= head && n < maxScanSpans; n++ {
		to := min(head, from+batch.MaxWithdrawLogSpan-1)
		ids, err := fac.WithdrawLogs(ctx, network, from, to)
		if err != nil {
			rt.logger.Warn("withdraw watch: the contract's logs could not be read; the next scan reads them", zap.String("network", network),
				zap.Uint64("from", from), zap.Uint64("to", to), zap.Error(err))
			break
		}
		if !rt.syncWithdraws(ctx, i, ids, to) {
			break
		}
		from = to + 1
		rt.scanned[i] = from
		if wm != nil {
			if err := wm.SetWatchMark(ctx, rt.watchKey(i), from); err != nil {
				rt.logger.Warn("withdraw watch: where this scan stopped could not be recorded in the store; an instance taking the watch over would read these blocks again",
					zap.String("network", network), zap.Uint64("next", from), zap.Error(err))
			}
		}
	}
	return rt.withdrawPending(ctx, i)
}

// syncWithdraws records, at block, the chain state of the channels of ids
// that this route holds; false when one could not be read or recorded
// (the scan is then read again).
func (rt *chanRoute) syncWithdraws(ctx context.Context, i int, ids []common.Hash, block uint64) bool {
	network := rt.pricing.options[i].reqs.Network
	ctx, sp := rt.traceWithdraws(ctx, network, len(ids)) // trace.go
	defer sp.End()
	co := &rt.opts[i]
	for _, id := range ids {
		rec, err := rt.store.Channel(ctx, strings.ToLower(id.Hex()))
		if err != nil {
			rt.logger.Warn("withdraw watch: the channel store could not be read; the next scan tries again", zap.Error(err))
			return false
		}
		if rec == nil || rec.Network != network || !strings.EqualFold(rec.Config.Receiver, co.payTo.Hex()) {
			continue // not a channel of this route
		}
		st, err := rt.watchChain().ChannelState(ctx, network, id, block)
		if err != nil {
			rt.logger.Warn("withdraw watch: a channel's state could not be read; the next scan tries again", zap.String("channel", rec.ID), zap.Error(err))
			return false
		}
		cs := store.ChainState{Balance: st.Balance, Claimed: st.TotalClaimed, Block: block}
		if st.WithdrawRequestedAt > 0 {
			cs.WithdrawRequestedAt = time.Unix(int64(st.WithdrawRequestedAt), 0)
		}
		if _, err := rt.store.Sync(ctx, rec.ID, network, rec.Config, cs); err != nil {
			rt.logger.Warn("withdraw watch: a channel's state could not be recorded; the next scan tries again", zap.String("channel", rec.ID), zap.Error(err))
			return false
		}
		if cs.WithdrawRequestedAt.IsZero() {
			rt.logger.Info("withdraw watch: a payer's withdrawal completed; its channel goes on with the balance left",
				zap.String("channel", rec.ID), zap.String("balance", st.Balance.String()))
		} else {
			rt.logger.Info("withdraw watch: a payer asked to withdraw; what its channel was charged is claimed before the delay ends",
				zap.String("channel", rec.ID), zap.Time("withdraw_requested_at", cs.WithdrawRequestedAt),
				zap.String("withdraw_amount", st.WithdrawAmount.String()))
		}
	}
	return true
}

// withdrawPending says whether one of option i's channels with a pending
// withdrawal has charges not claimed yet, reading them all, a page of
// maxClaimRows at a time.
func (rt *chanRoute) withdrawPending(ctx context.Context, i int) bool {
	network := rt.pricing.options[i].reqs.Network
	co := &rt.opts[i]
	var after *store.Channel
	for {
		list, err := rt.store.Withdrawing(ctx, after, maxClaimRows)
		if err != nil {
			rt.logger.Warn("withdraw watch: the channel store could not be read; the next scan tries again", zap.Error(err))
			return false
		}
		for _, c := range list {
			if c.Network == network && strings.EqualFold(c.Config.Receiver, co.payTo.Hex()) && c.Charged.Cmp(c.Claimed) > 0 {
				return true
			}
		}
		if len(list) < maxClaimRows {
			return false
		}
		after = list[len(list)-1]
	}
}
