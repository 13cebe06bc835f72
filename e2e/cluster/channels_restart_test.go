package cluster

import (
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/caddy-x402/caddy-x402/internal/pgtest"
)

// TestChannelsPostgresRestart is issue 35's cluster case for the grouped
// channel charges: two instances on one PostgreSQL, buyers sending their
// vouchers alternately to both at once (so that each instance's charge
// queue groups the charges of several channels), PostgreSQL restarted
// (a fast shutdown, then a start) mid-load. A voucher answered 503 while
// it was down (the store-down text, Retry-After 2) is sent again, to the
// other instance, until it is answered: nothing is charged twice (no
// cumulative step served twice, each channel's charged total is what was
// served), nothing is lost (every voucher served in the end), and the
// claim rounds pay the seller exactly price x served.
func TestChannelsPostgresRestart(t *testing.T) {
	if noSharedStore {
		t.Skip("there is no shared store to restart")
	}
	pg := pgtest.Start(t)
	c := newCluster(t, options{pg: pg, instances: 2})
	const buyers, steps, deposit = 8, 60, 100 * price
	offer := c.offerV2(c.nodes[0], "/chan/r")
	seller0 := c.balance(c.payTo)
	bs := make([]*chanBuyer, buyers)
	for i := range bs {
		bs[i] = c.chanBuyer(c.chain.Buyers()[i], offer, time.Now().UnixNano()+int64(i))
	}
	var (
		wg                sync.WaitGroup
		done, down, other atomic.Int64
	)
	restarted := make(chan struct{})
	go func() {
		defer close(restarted)
		for done.Load() < buyers*steps/2 {
			time.Sleep(5 * time.Millisecond)
		}
		pg.Restart(t)
	}()
	served := make([]int64, buyers) // cumulative steps served, the deposit's first
	for i, b := range bs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := int64(1); n <= steps; n++ {
				max, dep := n*price, int64(0)
				if n == 1 {
					dep = deposit
				}
				hdr := b.header(c, max, dep)
				for try := 0; ; try++ {
					in := c.nodes[(i+int(n)+try)%2] // alternately, and the other one on a retry
					a := in.get("/chan/r", hdr, 60*time.Second)
					if a.status == http.StatusOK && chargedOf(a) == max {
						served[i] = max
						break
					}
					if a.status == http.StatusServiceUnavailable && a.json().Error == textStoreDown && a.header.Get("Retry-After") == "2" && try < 100 {
						down.Add(1)
						time.Sleep(100 * time.Millisecond)
						continue
					}
					// A 402 stating max charged would be a charge whose
					// answer was lost: charged, not served.
					other.Add(1)
					t.Errorf("buyer %d, voucher %d at %s (try %d): %v (charged stated %d)", i, max, in.name, try, a, chargedOf(a))
					return
				}
				done.Add(1)
			}
		}()
	}
	wg.Wait()
	<-restarted
	if t.Failed() {
		t.FailNow()
	}
	t.Logf("PostgreSQL restarted after %d of %d vouchers; %d answers were 503 store-down, sent again", buyers*steps/2, buyers*steps, down.Load())

	// Each channel's charged total, as an instance states it (a corrective
	// 402 to a stale voucher), is what was served.
	var total int64
	for i, b := range bs {
		a := c.nodes[i%2].get("/chan/r", b.header(c, price, 0), 30*time.Second)
		if a.status != http.StatusPaymentRequired || chargedOf(a) != served[i] || served[i] != steps*price {
			t.Errorf("buyer %d: charged %d (%v), served %d of %d", i, chargedOf(a), a.status, served[i], steps*price)
		}
		total += served[i]
	}
	deadline := time.Now().Add(60 * time.Second)
	for delta(seller0, c.balance(c.payTo)) != total {
		if time.Now().After(deadline) {
			t.Fatalf("the seller received %d, want %d (price x served)", delta(seller0, c.balance(c.payTo)), total)
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Logf("the seller received %d: price x %d vouchers served", total, total/price)
}
