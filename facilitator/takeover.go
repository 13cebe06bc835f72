package facilitator

import (
	"context"
	"time"

	"go.uber.org/zap"

	"github.com/caddy-x402/caddy-x402/facilitator/store"
)

// takeOverInterval is how often a facilitator on a shared journal looks
// for the pending settlements of instances that died.
const takeOverInterval = time.Second

// startTakeOver, on a shared journal (several instances on one
// PostgreSQL store), looks every takeOverInterval for the pending
// settlements of instances whose lease ran out (killed, paused, cut off)
// on this facilitator's networks, takes them over and follows them to
// their blocks, sending their transactions again: their buyers' retries
// get the outcome from any instance, and no nonce of the key stays a gap.
func (f *Facilitator) startTakeOver() {
	shared, ok := f.journal.(store.Shared)
	if !ok {
		return
	}
	names := make([]string, len(f.networks))
	for i, n := range f.networks {
		names[i] = n.Cfg.Name
	}
	f.every(takeOverInterval, func() { f.takeOver(shared, names) }, false)
}

// takeOver runs one look for settlements to take over.
func (f *Facilitator) takeOver(shared store.Shared, names []string) {
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
