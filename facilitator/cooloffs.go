package facilitator

import (
	"time"

	"github.com/caddy-x402/caddy-x402/facilitator/store"
	"github.com/caddy-x402/caddy-x402/facilitator/store/memory"
)

// The cooling-offs of smart-contract wallets live beside the journal and
// are shared by every network and scheme: the facilitator keeps the store
// and its settings, and prunes it; the exact scheme decides when a wallet
// cools off (exact/cooloff.go).

// Defaults of the cooling-off.
const (
	// DefaultRevertCoolOff is the first cooling-off of a wallet whose
	// settlement reverted.
	DefaultRevertCoolOff = 15 * time.Minute
	// DefaultRevertCoolOffMax is the longest cooling-off.
	DefaultRevertCoolOffMax = 24 * time.Hour
	// coolOffForget is how long a wallet's strikes are remembered after
	// its cooling-off ended.
	coolOffForget = 7 * 24 * time.Hour
)

// coolOff is the facilitator's cooling-off state: the store and its
// settings.
type coolOff struct {
	store     store.CoolOffs
	base, max time.Duration
}

// newCoolOff keeps the cooling-offs beside the journal (in memory for a
// journal that keeps none).
func newCoolOff(j store.Journal, first, longest time.Duration) *coolOff {
	cool, ok := j.(store.CoolOffs)
	c := &coolOff{store: cool, base: orDefault(first, DefaultRevertCoolOff), max: orDefault(longest, DefaultRevertCoolOffMax)}
	if !ok {
		c.store = memory.NewCoolOffs()
	}
	c.max = max(c.max, c.base)
	return c
}
