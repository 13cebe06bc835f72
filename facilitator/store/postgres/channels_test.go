package postgres_test

import (
	"context"
	"errors"
	"math/big"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/caddy-x402/caddy-x402/facilitator/store"
	"github.com/caddy-x402/caddy-x402/facilitator/store/storetest"
	"github.com/caddy-x402/caddy-x402/internal/pgtest"
)

// TestPostgresChannelsKilled: PostgreSQL killed (SIGKILL, a crash) while
// charges run: every charge in flight answers store.ErrUnavailable, and
// after the restart a new instance finds each channel either before or
// after the charge in flight (its voucher with it), never in between nor
// beyond, and charges on from there.
func TestPostgresChannelsKilled(t *testing.T) {
	srv := pgtest.Start(t)
	dsn := srv.DSN(t)
	ctx := context.Background()
	s := openPG(t, dsn, 0).Redemptions()
	const channels = 4
	for n := 1; n <= channels; n++ {
		if _, err := s.Sync(ctx, storetest.ChannelID(n), "net", storetest.ChannelCfg(), store.ChainState{Balance: big.NewInt(1 << 40), Claimed: new(big.Int), Block: 1}); err != nil {
			t.Fatal(err)
		}
	}
	type outcome struct {
		lastOK, attempt *big.Int
		err             error
	}
	var (
		out  [channels]outcome
		wins atomic.Int64
		each [channels]atomic.Int64 // charges answered per channel
		wg   sync.WaitGroup
	)
	for n := 0; n < channels; n++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			id, prev := storetest.ChannelID(n+1), new(big.Int)
			for {
				next := new(big.Int).Add(prev, big.NewInt(7))
				if _, err := s.Charge(ctx, id, prev, next, storetest.Voucher(next)); err != nil {
					out[n] = outcome{prev, next, err}
					return
				}
				wins.Add(1)
				each[n].Add(1)
				prev = next
			}
		}()
	}
	// Every channel has a charge answered before the kill: on a loaded
	// machine one goroutine could otherwise get none in, and its channel
	// would have no voucher to check (CI saw it once).
	started := func() bool {
		for i := range each {
			if each[i].Load() == 0 {
				return false
			}
		}
		return true
	}
	for wins.Load() < 200 || !started() {
		time.Sleep(time.Millisecond)
	}
	srv.Kill(t)
	wg.Wait()
	srv.Restart(t)
	s2 := openPG(t, dsn, 0).Redemptions()
	for n, o := range out {
		if !errors.Is(o.err, store.ErrUnavailable) {
			t.Errorf("channel %d: the charge in flight at the kill answered %v, want ErrUnavailable", n+1, o.err)
		}
		c, err := s2.Channel(ctx, storetest.ChannelID(n+1))
		if err != nil || c == nil {
			t.Fatalf("channel %d after the restart: %+v, %v", n+1, c, err)
		}
		if c.Charged.Cmp(o.lastOK) != 0 && c.Charged.Cmp(o.attempt) != 0 {
			t.Errorf("channel %d charged %s after the restart; want %s (the last charge answered) or %s (the one in flight)", n+1, c.Charged, o.lastOK, o.attempt)
		}
		if c.VoucherMax.Cmp(c.Charged) != 0 || string(c.VoucherSignature) != "sig:"+c.Charged.String() {
			t.Errorf("channel %d: charged %s with the voucher of %s (%q)", n+1, c.Charged, c.VoucherMax, c.VoucherSignature)
		}
		next := new(big.Int).Add(c.Charged, big.NewInt(7))
		if _, err := s2.Charge(ctx, c.ID, c.Charged, next, storetest.Voucher(next)); err != nil {
			t.Errorf("channel %d: charging on after the restart: %v", n+1, err)
		}
		t.Logf("channel %d: last answered %s, in flight %s, stored %s", n+1, o.lastOK, o.attempt, c.Charged)
	}
}
