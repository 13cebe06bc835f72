package cluster

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
)

// textLeaseRanOut is the instance's log when its lease had run out and it
// registered anew (store/postgres/lease.go).
const textLeaseRanOut = "this instance's lease in the shared store had run out"

// leaseWatch polls every instance's /healthcheck and counts the moments
// its lease did not hold and the changes of its identity (a lease that ran
// out and was taken anew).
type leaseWatch struct {
	mu       sync.Mutex
	samples  int
	notHeld  map[string]int    // instance name -> samples with leaseHolds false
	ids      map[string]string // instance name -> its last identity
	changes  map[string]int    // instance name -> identity changes
	failures map[string]int    // instance name -> health checks not answered 200
	stop     chan struct{}
	done     chan struct{}
}

func (c *cluster) watchLeases(every time.Duration) *leaseWatch {
	w := &leaseWatch{notHeld: map[string]int{}, ids: map[string]string{}, changes: map[string]int{}, failures: map[string]int{},
		stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(w.done)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			var wg sync.WaitGroup
			for _, in := range c.nodes {
				wg.Go(func() {
					a := in.get("/healthcheck", nil, 5*time.Second)
					var h struct {
						Storage struct {
							Instance   string `json:"instance"`
							LeaseHolds bool   `json:"leaseHolds"`
						} `json:"storage"`
					}
					w.mu.Lock()
					defer w.mu.Unlock()
					if a.status != http.StatusOK || json.Unmarshal(a.body, &h) != nil {
						w.failures[in.name]++
						return
					}
					if !h.Storage.LeaseHolds {
						w.notHeld[in.name]++
					}
					if old := w.ids[in.name]; old != "" && old != h.Storage.Instance {
						w.changes[in.name]++
					}
					w.ids[in.name] = h.Storage.Instance
				})
			}
			wg.Wait()
			w.mu.Lock()
			w.samples++
			w.mu.Unlock()
			select {
			case <-w.stop:
				return
			case <-t.C:
			}
		}
	}()
	return w
}

// end stops the watch and returns its counts: health samples, samples
// with a lease that did not hold, identity changes, unanswered checks.
func (w *leaseWatch) end() (samples, notHeld, changes, failures int) {
	close(w.stop)
	<-w.done
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, n := range w.notHeld {
		notHeld += n
	}
	for _, n := range w.changes {
		changes += n
	}
	for _, n := range w.failures {
		failures += n
	}
	return w.samples, notHeld, changes, failures
}

// slowPhase is one store delay of TestSlowStore and what it measured.
type slowPhase struct {
	name     string
	each     time.Duration // the proxy's delay each way
	n        int           // payments
	idle     time.Duration // idle watch before the payments
	firstOK  int
	fives    int // 500s
	leases   int // lease losses: health samples not held, identity changes, logged re-registrations
	samples  int
	lat      []time.Duration // first answers' latencies, 200s only
	firsts   map[string]int
	finalBad int
}

// TestSlowStore: three instances whose PostgreSQL answers through a TCP
// proxy that delays each direction: none, 300 ms (a 0.6 s round trip)
// and 1 s (2 s). At each delay, idle for longer than a lease and then
// with payments arriving over three instances, no instance loses its
// lease (its health says it holds, its identity stays, its log has no
// re-registration), no paid request is answered 500, at least 80% are
// served at their first try, and every other first answer says to try
// again (503 or 409 with Retry-After, or pending); sent again, each is
// served. In the end every authorization moved money once: the payee
// rose by exactly the payments, the upstream ran once per payment.
func TestSlowStore(t *testing.T) {
	if noSharedStore {
		t.Skip("there is no shared store to slow")
	}
	c := newCluster(t, options{storeProxy: true})
	phases := []*slowPhase{
		{name: "0 s", each: 0, n: 24, idle: time.Second},
		{name: "0.6 s", each: 300 * time.Millisecond, n: 24, idle: 7 * time.Second},
		{name: "2 s", each: time.Second, n: 9, idle: 7 * time.Second},
	}
	if only := os.Getenv("SLOWSTORE_ONLY"); only != "" {
		var keep []*slowPhase
		for _, ph := range phases {
			if slices.Contains(strings.Split(only, ","), ph.name) {
				keep = append(keep, ph)
			}
		}
		phases = keep
	}
	reqs := c.requirements(c.nodes[0], "/paid/slow")
	buyers := c.chain.Buyers()
	payee0 := c.balance(c.payTo)
	nonce0 := c.waitIdle(time.Minute)
	block0 := c.head()
	var all []*payment
	buyerPaid := map[common.Address]int64{}
	before := map[common.Address]int64{}
	for _, b := range buyers {
		before[b.Address] = c.balance(b.Address).Int64()
	}
	for _, ph := range phases {
		c.proxy.SetDelay(ph.each, ph.each)
		logged0 := make([]int, len(c.nodes))
		for i, in := range c.nodes {
			logged0[i] = in.logCount(textLeaseRanOut)
		}
		w := c.watchLeases(200 * time.Millisecond)
		time.Sleep(ph.idle)
		payments := make([]*payment, ph.n)
		for i := range payments {
			b := buyers[(len(all)+i)%len(buyers)]
			payments[i] = c.sign(b, reqs, fmt.Sprintf("/paid/slow-%s-%d", strings.ReplaceAll(ph.name, " ", ""), i))
			buyerPaid[b.Address] += price
		}
		all = append(all, payments...)
		first := make([]answer, ph.n)
		var wg sync.WaitGroup
		for i, p := range payments {
			wg.Go(func() {
				time.Sleep(time.Duration(i) * 150 * time.Millisecond)
				first[i] = c.nodes[i%len(c.nodes)].pay(p, 0)
			})
		}
		wg.Wait()
		final := make([]answer, ph.n)
		tries := make([][]answer, ph.n)
		for i, a := range first {
			final[i] = a
			switch {
			case a.status == http.StatusOK:
				ph.firstOK++
				ph.lat = append(ph.lat, a.at.Sub(a.sent))
				continue
			case a.status == http.StatusInternalServerError:
				ph.fives++
			}
			wg.Go(func() {
				tries[i] = deliver(payments[i], []*instance{c.nodes[(i+1)%3], c.nodes[(i+2)%3], c.nodes[i%3]}, time.Now().Add(3*time.Minute), 0)
				final[i] = tries[i][len(tries[i])-1]
			})
		}
		wg.Wait()
		samples, notHeld, changes, failures := w.end()
		ph.samples, ph.leases = samples, notHeld+changes
		if failures > 0 {
			t.Errorf("%s: %d health checks not answered 200", ph.name, failures)
		}
		for i, in := range c.nodes {
			ph.leases += in.logCount(textLeaseRanOut) - logged0[i]
		}
		ph.firsts = counts(first)
		for i, a := range final {
			p := payments[i]
			if a.status != http.StatusOK || string(a.body) != "content "+p.path+" tx="+a.txHash() {
				ph.finalBad++
				t.Errorf("%s: payment %d (%s): first %v, in the end %v, want 200 with its content", ph.name, i, p.path, first[i], a)
			}
		}
		for i, a := range first {
			if a.status == http.StatusOK {
				continue
			}
			ra := a.header.Get("Retry-After")
			j := a.json()
			switch {
			case a.status == http.StatusServiceUnavailable && ra != "" && j.Error != "":
			case a.status == http.StatusConflict && ra != "" && j.Error == textBusyElsewhere:
			case a.status == http.StatusPaymentRequired && j.Error == textPending:
			default:
				t.Errorf("%s: payment %d: first answer %v, want 200, or 503/409 with Retry-After, or pending", ph.name, i, a)
			}
		}
		sort.Slice(ph.lat, func(i, j int) bool { return ph.lat[i] < ph.lat[j] })
		t.Logf("%s round trip (%v each way): %d/%d served at the first try (%.0f%%), %d answered 500, %d lease losses (%d health samples); first-try latency %s; first answers:%s",
			ph.name, ph.each, ph.firstOK, ph.n, 100*float64(ph.firstOK)/float64(ph.n), ph.fives, ph.leases, ph.samples, latencies(ph.lat), fmtCounts(ph.firsts))
	}
	c.proxy.SetDelay(0, 0)
	for _, ph := range phases {
		if ph.each == 0 {
			continue
		}
		if ph.leases != 0 {
			t.Errorf("%s: %d lease losses, want none", ph.name, ph.leases)
		}
		if ph.fives != 0 {
			t.Errorf("%s: %d paid requests answered 500, want none", ph.name, ph.fives)
		}
		if ph.firstOK*5 < ph.n*4 {
			t.Errorf("%s: %d of %d payments served at the first try, want at least 80%%", ph.name, ph.firstOK, ph.n)
		}
	}

	c.waitIdle(2 * time.Minute)
	l := c.scan(block0+1, c.head())
	l.check(t)
	for _, p := range all {
		if !c.used(p) || c.up.runs(p.path) != 1 || len(l.byAuth[p.key()]) != 1 {
			t.Errorf("%s: used on chain %v in %d transactions, upstream ran %d times; want used once, run once", p.path, c.used(p), len(l.byAuth[p.key()]), c.up.runs(p.path))
		}
	}
	if d := delta(payee0, c.balance(c.payTo)); d != int64(len(all))*price {
		t.Errorf("the payee's balance rose by %d, want exactly %d × %d", d, len(all), price)
	}
	for a, paid := range buyerPaid {
		if got := c.balance(a).Int64(); before[a]-got != paid {
			t.Errorf("buyer %s paid %d, want exactly %d", a, before[a]-got, paid)
		}
	}
	latest, _ := c.nonces()
	t.Logf("signer: nonce %d → %d: %d transfers, %d fills", nonce0, latest, l.transfers, l.fills)
}

// latencies prints sorted durations as min / median / max.
func latencies(d []time.Duration) string {
	if len(d) == 0 {
		return "(none served)"
	}
	r := func(x time.Duration) time.Duration { return x.Round(10 * time.Millisecond) }
	return fmt.Sprintf("min %v, median %v, max %v", r(d[0]), r(d[len(d)/2]), r(d[len(d)-1]))
}
