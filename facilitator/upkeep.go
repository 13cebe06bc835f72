package facilitator

import (
	"context"
	"time"

	"go.uber.org/zap"

	"github.com/caddy-x402/caddy-x402/facilitator/store"
)

// Upkeep: the facilitator's background work besides the engines: journal
// compaction (retention), adopting the pending settlements of instances
// whose lease ran out, and pruning the cooling-offs.

// DefaultJournalRetention is how long finished settlements stay in the
// journal by default: 30 days.
const DefaultJournalRetention = 30 * 24 * time.Hour

// lookupWindow is how far back a look-up by authorization reads the chain
// for a settlement the journal does not hold: the journal retention, so
// that what compaction forgot the chain answers; the default retention
// when the journal keeps everything (negative), since then only a record
// that was never written or was lost is looked for there.
func lookupWindow(retention time.Duration) time.Duration {
	if retention <= 0 {
		return DefaultJournalRetention
	}
	return retention
}

// compactEvery is how often the journal is compacted.
const compactEvery = time.Hour

// startRetention compacts the journal now and then every compactEvery,
// dropping settled and failed records older than retention.
func (f *Facilitator) startRetention(retention time.Duration) {
	if retention < 0 {
		return
	}
	if retention == 0 {
		retention = DefaultJournalRetention
	}
	c, ok := f.journal.(store.Compacter)
	if !ok {
		return
	}
	compact := func() {
		n, err := c.Compact(f.now().Add(-retention))
		switch {
		case err != nil:
			f.logger.Warn("compacting the settlement journal failed; old records stay until the next try", zap.Error(err))
		case n > 0:
			f.logger.Info("settlement journal compacted", zap.Int("records_removed", n), zap.Duration("retention", retention))
		}
	}
	f.every(compactEvery, compact, true)
}

// every runs fn every interval (first at once when now is set) in the
// background until the facilitator closes.
func (f *Facilitator) every(interval time.Duration, fn func(), now bool) {
	f.wg.Add(1)
	go func() {
		defer f.wg.Done()
		if now {
			fn()
		}
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-f.ctx.Done():
				return
			case <-t.C:
				fn()
			}
		}
	}()
}

// takeOverInterval is how often a facilitator on a shared journal looks
// for the pending settlements of instances that died.
const takeOverInterval = time.Second

// startAdoptingOrphans, on a shared journal (several instances on one
// PostgreSQL store), looks every takeOverInterval for the pending
// settlements of instances whose lease ran out (killed, paused, cut off)
// on this facilitator's networks, takes them over and follows them to
// their blocks, sending their transactions again: their buyers' retries
// get the outcome from any instance, and no nonce of the key stays a gap.
func (f *Facilitator) startAdoptingOrphans() {
	shared, ok := f.journal.(store.Shared)
	if !ok {
		return
	}
	names := make([]string, len(f.networks))
	for i, n := range f.networks {
		names[i] = n.Cfg.Name
	}
	f.every(takeOverInterval, func() { f.adoptOrphans(shared, names) }, false)
}

// adoptOrphans runs one look for pending settlements of instances whose
// lease ran out, and takes them over.
func (f *Facilitator) adoptOrphans(shared store.Shared, names []string) {
	ctx, cancel := context.WithTimeout(f.ctx, 10*time.Second)
	defer cancel()
	recs, err := shared.TakeOver(ctx, names)
	if err != nil {
		f.logger.Debug("looking for settlements of instances that died failed; tried again shortly", zap.Error(err))
		return
	}
	if len(recs) == 0 {
		return
	}
	f.logger.Warn("took over the pending settlements of an instance whose lease ran out; following them to their blocks",
		zap.Int("settlements", len(recs)), zap.String("instance", shared.Instance()))
	for _, n := range f.networks {
		n.Engine.Adopt(ctx, recs)
	}
}

// pruneCoolOffs drops, every compactEvery, the cooling-offs that ended
// more than coolOffForget ago, with their strikes.
func (f *Facilitator) pruneCoolOffs() {
	f.every(compactEvery, func() {
		if n, err := f.cool.store.PruneCoolOffs(f.now().Add(-coolOffForget)); err != nil {
			f.logger.Warn("pruning the cooling-offs of smart-contract wallets failed; they stay until the next try", zap.Error(err))
		} else if n > 0 {
			f.logger.Info("cooling-offs of smart-contract wallets forgotten", zap.Int("removed", n))
		}
	}, false)
}
