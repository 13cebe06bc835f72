package paywall

import (
	"context"
	"strings"
	"sync"

	"go.uber.org/zap"
)

// One claiming instance: the claim rounds (and the withdraw watch) of a
// receiver on a network run in one place at a time. In this process, the
// routes paid to the same pay_to (and a config replaced by a reload) take
// turns; across the instances sharing a PostgreSQL store, one instance
// holds the role (store.Leader, fenced by its lease) for as long as it
// runs: another takes it when it stops (Resign) or dies (its lease runs
// out). The others charge vouchers into the shared store; the claiming
// instance claims them all.

// claimTurns are this process's turns, one per role key.
var claimTurns sync.Map // role key -> chan struct{} (capacity 1)

// claimRole is the role of claiming option i's channels.
func (rt *chanRoute) claimRole(i int) string {
	return "channel-claims|" + rt.pricing.options[i].reqs.Network + "|" + strings.ToLower(rt.opts[i].payTo.Hex())
}

// takeClaims takes the role of claiming option i's channels: this
// process's turn (a route that finds another one's round under way skips
// its own, which would claim the same rows; final waits for it) and, with
// a shared store, the role across instances. It returns the function that
// gives the turn back, or nil when another route or instance claims.
func (rt *chanRoute) takeClaims(ctx context.Context, i int, final bool) func() {
	key := rt.claimRole(i)
	v, _ := claimTurns.LoadOrStore(key, make(chan struct{}, 1))
	turn := v.(chan struct{})
	if final {
		select {
		case turn <- struct{}{}:
		case <-ctx.Done():
			return nil
		}
	} else {
		select {
		case turn <- struct{}{}:
		default:
			return nil
		}
	}
	done := func() { <-turn }
	lead, err := rt.redeem.Lead(ctx, key)
	if err != nil {
		rt.logger.Warn("claim round: the shared store could not say which instance claims; this instance skips the round and asks again at the next",
			zap.String("role", key), zap.Error(err))
	}
	if lead != rt.led[key] && rt.redeem.Shared() {
		if lead {
			rt.logger.Info("this instance now claims the payment channels of this receiver and network (the other instances charge, this one claims)", zap.String("role", key))
		} else if err == nil {
			rt.logger.Info("another instance claims the payment channels of this receiver and network now", zap.String("role", key))
		}
	}
	if err == nil || !lead {
		rt.led[key] = lead
		rt.setClaiming(i, lead)
	}
	if !lead {
		done()
		return nil
	}
	return done
}

// resignClaims gives up, at graceful stop after the last round, the roles
// this route took, so that another instance claims at once.
func (rt *chanRoute) resignClaims(ctx context.Context) {
	for key, lead := range rt.led {
		if !lead {
			continue
		}
		if err := rt.redeem.Resign(ctx, key); err != nil {
			rt.logger.Warn("the claiming role could not be given up; another instance takes it when this instance's lease runs out",
				zap.String("role", key), zap.Error(err))
		}
		delete(rt.led, key)
	}
	for i := range rt.pricing.options {
		rt.setClaiming(i, false)
	}
}

// setClaiming sets the x402_channel_claiming gauge of option i.
func (rt *chanRoute) setClaiming(i int, lead bool) {
	if m := &channelMetrics; m.claiming != nil {
		v := 0.0
		if lead {
			v = 1
		}
		m.claiming.WithLabelValues(rt.pricing.options[i].reqs.Network, rt.opts[i].payTo.Hex()).Set(v)
	}
}
