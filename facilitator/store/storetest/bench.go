package storetest

import (
	"context"
	"math/big"
	"sync/atomic"
	"testing"

	"github.com/caddy-x402/caddy-x402/facilitator/store"
)

// BenchmarkCharge measures one paid request's state write (Charge) on the
// channels open returns: serial on one channel, and parallel on a channel
// per goroutine (several buyers at once; bbolt then shares fsyncs). Each
// backend's BenchmarkChannelCharge runs it. Besides the time, it reports
// cpu-ns/op: this process's CPU per charge (for PostgreSQL the client's
// side, the server being a process of its own; 0 where not read).
func BenchmarkCharge(b *testing.B, open func(b *testing.B) store.Channels) {
	ctx := context.Background()
	balance := new(big.Int).Lsh(big.NewInt(1), 127)
	price := big.NewInt(1000)
	var next atomic.Int64
	deposit := func(b *testing.B, s store.Channels) string {
		n := int(next.Add(1))
		if _, err := s.Sync(ctx, ChannelID(n), "net", ChannelCfg(), store.ChainState{Balance: balance, Claimed: new(big.Int), Block: 1}); err != nil {
			b.Fatal(err)
		}
		return ChannelID(n)
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
	b.Run("serial", func(b *testing.B) {
		s := open(b)
		id := deposit(b, s)
		b.ReportAllocs()
		b.ResetTimer()
		cpu := processCPU()
		i := 0
		charge(b, s, id, func() bool { i++; return i <= b.N })
		b.ReportMetric(float64(processCPU()-cpu)/float64(b.N), "cpu-ns/op")
	})
	b.Run("parallel", func(b *testing.B) {
		s := open(b)
		b.ReportAllocs()
		b.SetParallelism(4)
		cpu := processCPU()
		b.RunParallel(func(pb *testing.PB) {
			charge(b, s, deposit(b, s), pb.Next)
		})
		b.ReportMetric(float64(processCPU()-cpu)/float64(b.N), "cpu-ns/op")
	})
}
