package facilitator

import (
	"time"

	"go.uber.org/zap"

	"github.com/caddy-x402/caddy-x402/facilitator/engine"
)

// DefaultJournalRetention is how long finished settlements stay in the
// journal by default: 30 days.
const DefaultJournalRetention = 30 * 24 * time.Hour

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
	f.wg.Add(1)
	go func() {
		defer f.wg.Done()
		compact()
		t := time.NewTicker(compactEvery)
		defer t.Stop()
		for {
			select {
			case <-f.ctx.Done():
				return
			case <-t.C:
				compact()
			}
		}
	}()
}
