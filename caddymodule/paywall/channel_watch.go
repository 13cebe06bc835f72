package paywall

import (
	"context"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"go.uber.org/zap"

	"github.com/caddy-x402/caddy-x402/facilitator"
	"github.com/caddy-x402/caddy-x402/facilitator/store"
)

// The withdraw watch: a payer may ask to withdraw its channel's unclaimed
// balance (initiateWithdraw) and take it withdrawDelay later
// (finalizeWithdraw), vouchers charged and not claimed by then included.
// The claiming instance scans the contract's WithdrawInitiated and
// WithdrawFinalized logs from the last block it saw (one eth_getLogs per
// scan, whatever the number of channels; reading every open channel's
// state would cost three calls per channel per scan), reads the state of
// the channels it holds that the logs name, and records it (Sync:
// withdrawRequestedAt, or the balance the withdrawal left). A channel
// whose payer asked to withdraw is claimed at once and at every scan
// while it has charges unclaimed, and is charged no more once the delay
// is within withdrawMargin of its end, so that what it was charged is
// claimed before the payer can take it.

// maxWatchEvery is the longest time between two scans.
const maxWatchEvery = 30 * time.Second

// withdrawLookback is how many blocks the first scan (when this
// instance takes the claiming role) reads back: a withdraw request older
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

// watchWithdraws scans option i's network for withdraw requests since the
// last scan, records the state of this route's channels they name, and
// says whether one of this route's channels with a pending withdrawal has
// charges to claim.
func (h *Handler) watchWithdraws(ctx context.Context, i int) bool {
	network := h.pricing.options[i].reqs.Network
	fac := h.app.Facilitator()
	head, err := fac.ChainHead(ctx, network)
	if err != nil {
		h.logger.Warn("withdraw watch: the chain could not be read; the next scan tries again", zap.String("network", network), zap.Error(err))
		return h.withdrawPending(ctx, i)
	}
	from, ok := h.chans.scanned[i]
	if !ok {
		from = head - min(head, withdrawLookback)
	}
	for n := 0; from <= head && n < maxScanSpans; n++ {
		to := min(head, from+facilitator.MaxWithdrawLogSpan-1)
		ids, err := fac.WithdrawLogs(ctx, network, from, to)
		if err != nil {
			h.logger.Warn("withdraw watch: the contract's logs could not be read; the next scan reads them", zap.String("network", network),
				zap.Uint64("from", from), zap.Uint64("to", to), zap.Error(err))
			break
		}
		if !h.syncWithdraws(ctx, i, ids, to) {
			break
		}
		from = to + 1
		h.chans.scanned[i] = from
	}
	return h.withdrawPending(ctx, i)
}

// syncWithdraws records, at block, the chain state of the channels of ids
// that this route holds; false when one could not be read or recorded
// (the scan is then read again).
func (h *Handler) syncWithdraws(ctx context.Context, i int, ids []common.Hash, block uint64) bool {
	network := h.pricing.options[i].reqs.Network
	co := &h.chans.opts[i]
	for _, id := range ids {
		rec, err := h.chans.store.Channel(ctx, strings.ToLower(id.Hex()))
		if err != nil {
			h.logger.Warn("withdraw watch: the channel store could not be read; the next scan tries again", zap.Error(err))
			return false
		}
		if rec == nil || rec.Network != network || !strings.EqualFold(rec.Config.Receiver, co.payTo.Hex()) {
			continue // not a channel of this route
		}
		st, err := h.app.Facilitator().ChannelState(ctx, network, id, block)
		if err != nil {
			h.logger.Warn("withdraw watch: a channel's state could not be read; the next scan tries again", zap.String("channel", rec.ID), zap.Error(err))
			return false
		}
		cs := store.ChainState{Balance: st.Balance, Claimed: st.TotalClaimed, Block: block}
		if st.WithdrawRequestedAt > 0 {
			cs.WithdrawRequestedAt = time.Unix(int64(st.WithdrawRequestedAt), 0)
		}
		if _, err := h.chans.store.Sync(ctx, rec.ID, network, rec.Config, cs); err != nil {
			h.logger.Warn("withdraw watch: a channel's state could not be recorded; the next scan tries again", zap.String("channel", rec.ID), zap.Error(err))
			return false
		}
		if cs.WithdrawRequestedAt.IsZero() {
			h.logger.Info("withdraw watch: a payer's withdrawal completed; its channel goes on with the balance left",
				zap.String("channel", rec.ID), zap.String("balance", st.Balance.String()))
		} else {
			h.logger.Info("withdraw watch: a payer asked to withdraw; what its channel was charged is claimed before the delay ends",
				zap.String("channel", rec.ID), zap.Time("withdraw_requested_at", cs.WithdrawRequestedAt),
				zap.String("withdraw_amount", st.WithdrawAmount.String()))
		}
	}
	return true
}

// withdrawPending says whether one of option i's channels with a pending
// withdrawal has charges not claimed yet.
func (h *Handler) withdrawPending(ctx context.Context, i int) bool {
	network := h.pricing.options[i].reqs.Network
	co := &h.chans.opts[i]
	list, err := h.chans.store.Withdrawing(ctx, maxClaimRows)
	if err != nil {
		h.logger.Warn("withdraw watch: the channel store could not be read; the next scan tries again", zap.Error(err))
		return false
	}
	for _, c := range list {
		if c.Network == network && strings.EqualFold(c.Config.Receiver, co.payTo.Hex()) && c.Charged.Cmp(c.Claimed) > 0 {
			return true
		}
	}
	return false
}
