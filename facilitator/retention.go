package facilitator

import (
	"time"

	"go.uber.org/zap"

	"github.com/caddy-x402/caddy-x402/facilitator/engine"
)

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
	c, ok := f.journal.(engine.Compacter)
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
