package memory_test

import (
	"testing"

	"github.com/caddy-x402/caddy-x402/facilitator/store"
	"github.com/caddy-x402/caddy-x402/facilitator/store/memory"
	"github.com/caddy-x402/caddy-x402/facilitator/store/storetest"
)

func TestMemory(t *testing.T) {
	storetest.Journal(t, storetest.Backend[store.Journal]{
		New: func(t testing.TB) store.Journal { return memory.NewJournal() },
	})
	storetest.Redemptions(t, storetest.Backend[store.Redemptions]{
		New: func(t testing.TB) store.Redemptions { return memory.NewRedemptions() },
	})
	storetest.Claims(t, func(t testing.TB) store.Claims { return memory.NewClaims() })
	storetest.Grants(t, storetest.Backend[store.Grants]{
		New: func(t testing.TB) store.Grants { return memory.NewRedemptions().(store.Grants) },
	})
	storetest.CoolOffs(t, storetest.Backend[store.CoolOffs]{
		New: func(t testing.TB) store.CoolOffs { return memory.NewJournal().(store.CoolOffs) },
	})
	// The paywall's cooling-offs (settle after) beside the redemptions.
	storetest.CoolOffs(t, storetest.Backend[store.CoolOffs]{
		New: func(t testing.TB) store.CoolOffs { return memory.NewRedemptions().(store.CoolOffs) },
	})
	storetest.Channels(t, storetest.Backend[store.Channels]{
		New: func(t testing.TB) store.Channels { return memory.NewRedemptions().(store.Channels) },
	})
}

func TestCatalogMemory(t *testing.T) {
	storetest.Catalog(t, storetest.Backend[store.Catalog]{
		New: func(t testing.TB) store.Catalog { return memory.NewJournal().(store.Catalog) },
	})
}

// BenchmarkChannelCharge: one paid request's state write (Charge), serial
// and parallel (storetest.BenchmarkCharge).
func BenchmarkChannelCharge(b *testing.B) {
	storetest.BenchmarkCharge(b, func(b *testing.B) store.Channels {
		return memory.NewRedemptions().(store.Channels)
	})
}
