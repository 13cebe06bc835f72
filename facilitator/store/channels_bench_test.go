package store_test

import (
	"context"
	"math/big"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/caddy-x402/caddy-x402/facilitator/store"
	"github.com/caddy-x402/caddy-x402/facilitator/store/storetest"
	"github.com/caddy-x402/caddy-x402/internal/pgtest"
)

// BenchmarkChannelCharge: one paid request's state write (Charge) per
// backend: serial on one channel, and parallel on a channel per
// goroutine (several buyers at once; bbolt then shares fsyncs).
func BenchmarkChannelCharge(b *testing.B) {
	backends := []struct {
		name string
		open func(b *testing.B) store.Channels
	}{
		{"memory", func(b *testing.B) store.Channels { return store.ChannelsOf(store.NewMemoryRedemptions()) }},
		{"bbolt", func(b *testing.B) store.Channels {
			r, err := store.OpenBoltRedemptions(filepath.Join(b.TempDir(), "redemptions.db"))
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { r.Close() })
			return store.ChannelsOf(r)
		}},
		{"postgres", func(b *testing.B) store.Channels {
			return store.ChannelsOf(openPG(b, pgtest.Shared(b).DSN(b), 0).Redemptions())
		}},
	}
	ctx := context.Background()
	balance := new(big.Int).Lsh(big.NewInt(1), 127)
	price := big.NewInt(1000)
	var next atomic.Int64
	open := func(b *testing.B, s store.Channels) string {
		n := int(next.Add(1))
		if _, err := s.Sync(ctx, storetest.ChannelID(n), "net", storetest.ChannelCfg(), store.ChainState{Balance: balance, Claimed: new(big.Int), Block: 1}); err != nil {
			b.Fatal(err)
		}
		return storetest.ChannelID(n)
	}
	// charge runs n charges on channel id.
	charge := func(b *testing.B, s store.Channels, id string, n func() bool) {
		prev := new(big.Int)
		sig := make([]byte, 65)
		for n() {
			cur := new(big.Int).Add(prev, price)
			if _, err := s.Charge(ctx, id, prev, cur, store.ChannelVoucher{Max: cur, Signature: sig}); err != nil {
				b.Fatal(err)
			}
			prev = cur
		}
	}
	for _, be := range backends {
		b.Run(be.name+"/serial", func(b *testing.B) {
			s := be.open(b)
			id := open(b, s)
			b.ReportAllocs()
			b.ResetTimer()
			i := 0
			charge(b, s, id, func() bool { i++; return i <= b.N })
		})
		b.Run(be.name+"/parallel", func(b *testing.B) {
			s := be.open(b)
			b.ReportAllocs()
			b.SetParallelism(4)
			b.RunParallel(func(pb *testing.PB) {
				charge(b, s, open(b, s), pb.Next)
			})
		})
	}
}
