package paywall

import (
	"context"
	"math/big"
	"time"

	"go.uber.org/zap"

	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// Claim rounds: every claim_every (and at graceful stop), the channels
// charged beyond what is claimed on chain are claimed in one
// claimWithSignature transaction per network (up to maxClaimRows
// channels each), through the embedded facilitator's engine; then what
// is claimed is settled to the receivers.

// maxClaimRows bounds one claim transaction (about 10M gas at 400 rows).
const maxClaimRows = 400

// finalClaimTimeout bounds the claim round at graceful stop.
const finalClaimTimeout = 30 * time.Second

// claimEvery is claim_every, or its default.
func (m *Metering) claimEvery() time.Duration {
	if m.ClaimEvery > 0 {
		return time.Duration(m.ClaimEvery)
	}
	return DefaultClaimEvery
}

// watchEvery is the time between two scans: claim_every, at most
// maxWatchEvery.
func (rt *chanRoute) watchEvery() time.Duration { return min(rt.claimEvery, maxWatchEvery) }

// claimLoop runs, until the route is cleaned up, the withdraw watch
// (every watchEvery) and the claim rounds (every claim_every, and at once
// for a channel whose payer asked to withdraw), where this instance holds
// the claiming role; then one last round, and gives the roles up.
func (rt *chanRoute) claimLoop() {
	defer close(rt.done)
	every := rt.watchEvery()
	t := time.NewTicker(every)
	defer t.Stop()
	last := time.Now()
	for {
		select {
		case <-rt.quit:
			ctx, cancel := context.WithTimeout(context.Background(), finalClaimTimeout)
			rt.claimRound(ctx, true, true)
			rt.settleRefunded(ctx) // channel_refund.go
			rt.resignClaims(ctx)
			cancel()
			return
		case <-t.C:
			due := time.Since(last) >= rt.claimEvery-every/2
			if due {
				last = time.Now()
			}
			ctx, cancel := context.WithTimeout(context.Background(), max(rt.claimEvery, maxWatchEvery))
			rt.claimRound(ctx, due, false)
			if due {
				rt.refundRound(ctx) // channel_refund.go
			}
			cancel()
		}
	}
}

// claimRound, for each option whose claiming role this instance takes,
// watches for withdraw requests and claims when due (or when a payer of a
// charged channel asked to withdraw). final waits for this process's
// other round of a role and does not watch.
func (rt *chanRoute) claimRound(ctx context.Context, due, final bool) {
	if due {
		defer rt.readChannelStats(ctx)
	}
	for i := range rt.pricing.options {
		done := rt.takeClaims(ctx, i, final)
		if done == nil {
			continue
		}
		if !final && rt.watchWithdraws(ctx, i) {
			due = true
		}
		if due {
			cctx, sp := rt.traceRound(ctx, spanClaimRound, rt.pricing.options[i].reqs.Network) // trace.go
			rt.claimOption(cctx, i)
			sp.End()
		}
		done()
	}
}

// stop ends the claim loop after its last round, then lets go of the
// facilitator and store it held for that round (Cleanup). A nil route, or
// one with no claim loop (caddy validate, tests), has nothing to stop.
func (rt *chanRoute) stop() error {
	if rt == nil || rt.quit == nil {
		return nil
	}
	close(rt.quit)
	<-rt.done
	rt.quit = nil
	return rt.release()
}

// claimOption claims option i's channels charged beyond their claim and
// settles the claimed funds. A failed round is simply run again: a claim
// is idempotent on chain (a row at or below the channel's claimed total
// pays nothing).
func (rt *chanRoute) claimOption(ctx context.Context, i int) {
	opt := &rt.pricing.options[i]
	co := &rt.opts[i]
	// What is charged and final: the charged read minus what requests
	// still held may give back (channel_held.go), so that a claim never
	// takes more than the receipts state.
	mark, end := heldCharges.begin()
	defer end()
	list, err := rt.store.ToClaim(ctx, opt.reqs.Network, maxClaimRows)
	if err != nil {
		rt.logger.Warn("claim round: the channel store could not be read; the next round tries again", zap.Error(err))
		return
	}
	var rows []claimRow
	var ids []int
	var totals []*big.Int
	for j, c := range list {
		// A route claims the channels paid to its pay_to (routes with
		// the same pay_to share them).
		if c.VoucherMax == nil || !co.owns(c, opt.reqs.Network) {
			continue
		}
		total := new(big.Int).Sub(c.Charged, heldCharges.pending(c.ID, mark))
		if total.Cmp(c.Claimed) <= 0 {
			continue // nothing final beyond the claimed total yet: a later round
		}
		// Requests held on other instances sharing the store are not in
		// heldCharges: the fence keeps them from giving back below the
		// total once it is claimed (their price then stands, and their
		// receipts say so).
		if fenced, err := rt.store.FenceClaim(ctx, c.ID, total); err != nil || !fenced {
			if err != nil {
				rt.logger.Warn("claim round: a channel's claim could not be fenced in the store; the next round claims it", zap.String("channel", c.ID), zap.Error(err))
			}
			continue // lowered since the read (another instance gave back): a later round
		}
		rows, ids, totals = append(rows, newClaimRow(c.Config, c.VoucherMax, c.VoucherSignature, total)), append(ids, j), append(totals, total)
	}
	if len(rows) == 0 {
		return
	}
	claimed, refused := rt.claimRows(ctx, i, rows)
	if len(rows) > 1 && refused {
		// One bad row (a channel withdrawn below what it was charged)
		// reverts the whole claim: the rows go one by one.
		for k := range rows {
			if one, _ := rt.claimRows(ctx, i, rows[k:k+1]); len(one) == 1 {
				claimed = append(claimed, k)
			}
		}
	}
	for _, k := range claimed {
		j := ids[k]
		if err := rt.store.MarkClaimed(ctx, list[j].ID, totals[k]); err != nil {
			rt.logger.Warn("claim round: a claim could not be recorded; the next round claims it again (paying nothing twice)", zap.Error(err))
		}
	}
	if len(claimed) == 0 {
		return
	}
	rt.logger.Info("claim round: claimed", zap.String("network", opt.reqs.Network), zap.Int("channels", len(claimed)))
	rt.settleToPayTo(ctx, i, "claim round")
}

// claimRows claims rows in one transaction and returns the indexes of
// the rows now claimed on chain (all, or none); refused says the
// facilitator refused the claim (its simulation or transaction failed),
// rather than could not be asked.
func (rt *chanRoute) claimRows(ctx context.Context, i int, rows []claimRow) (claimed []int, refused bool) {
	network := rt.pricing.options[i].reqs.Network
	sr, err := rt.channelOp(ctx, i, map[string]any{"type": "claim", "claims": rows})
	switch {
	case err != nil:
		countClaim(network, "failed")
		rt.logger.Warn("claim round: the claim could not be sent; the next round tries again", zap.Int("channels", len(rows)), zap.Error(err))
		return nil, false
	case !sr.Settled() && sr.Error != "invalid_batch_settlement_evm_nothing_to_claim":
		rt.logger.Warn("claim round: the claim failed; the next round tries again", zap.Int("channels", len(rows)),
			zap.String("error", sr.Error), zap.String("tx_hash", sr.TxHash))
		countClaim(network, "refused")
		return nil, sr.Error != x402.ErrTextPending
	}
	if sr.Settled() {
		countClaim(network, "claimed")
	}
	claimed = make([]int, len(rows))
	for k := range claimed {
		claimed[k] = k
	}
	return claimed, false
}
