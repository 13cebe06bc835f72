package cluster

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/caddy-x402/caddy-x402/facilitator/batchsettlement/batch"
	"github.com/caddy-x402/caddy-x402/internal/pgtest"
)

// TestChannelLoadCluster is the two-instance load of docs/benchmarks.md
// (skipped unless X402_LOAD=1), the cluster's TestChannelLoad: a channel
// route (price 1000, claim_every 2s, answered by `respond`) on two Caddy
// processes on one PostgreSQL; per number of buyers (X402_LOAD_BUYERS,
// default "1,16"; one channel each, all at once) the buyers make
// X402_LOAD_REQUESTS paid requests in all (default 10,000: a deposit each,
// then vouchers signed before the clock starts), each buyer's requests
// sent alternately to the two instances, while as many unpaid requests
// get their 402 from the same route on both, in alternating slices
// (X402_LOAD_SLICES, default 10) so that both meet the same load of the
// machine. It reports both rates and their ratio, waits for the claim
// rounds to pay the seller exactly price x paid requests, and counts the
// gas payer's transactions by method, and says the CPU per request of
// Caddy, PostgreSQL and this process in each kind of slice. Each load runs
// in each layout of X402_LOAD_LAYOUTS (default "shared,db-core"): every
// process on every core, then PostgreSQL on a core of its own (layout_test.go).
// With CLUSTER_NO_SHARED_STORE=1 the
// instances run on bbolt files of their own, and each buyer sends all its
// requests to one instance: the baseline of the same two processes.
//
//	X402_LOAD=1 go test ./e2e/cluster -run TestChannelLoadCluster -v -count=1 -timeout 30m
func TestChannelLoadCluster(t *testing.T) {
	if os.Getenv("X402_LOAD") != "1" {
		t.Skip("the load script: set X402_LOAD=1 (see docs/benchmarks.md)")
	}
	requests, slices := loadEnv(t, "X402_LOAD_REQUESTS", 10_000), loadEnv(t, "X402_LOAD_SLICES", 10)
	c := newCluster(t, options{instances: 2})
	salt := time.Now().UnixNano()
	buyers := os.Getenv("X402_LOAD_BUYERS")
	if buyers == "" {
		buyers = "1,16"
	}
	layouts := os.Getenv("X402_LOAD_LAYOUTS")
	if layouts == "" {
		layouts = string(sharedCores) + "," + string(dbCore)
	}
	for _, f := range strings.Split(buyers, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 || n > len(c.chain.Buyers()) || n > requests {
			t.Fatalf("X402_LOAD_BUYERS: %q (1..%d)", f, len(c.chain.Buyers()))
		}
		for _, l := range strings.Split(layouts, ",") {
			l := layout(strings.TrimSpace(l))
			salt += int64(n) * 1000
			t.Run(fmt.Sprintf("2-instances/buyers=%d/%s", n, l), func(t *testing.T) {
				if err := c.place(l); err != nil {
					t.Fatal(err)
				}
				defer func() {
					if err := c.place(sharedCores); err != nil {
						t.Error(err)
					}
				}()
				c.channelLoad(t, n, requests, slices, salt, l)
			})
		}
	}
}

func loadEnv(t *testing.T, k string, def int) int {
	s := os.Getenv(k)
	if s == "" {
		return def
	}
	v, err := strconv.Atoi(s)
	if err != nil || v < 1 {
		t.Fatalf("%s: want a positive number", k)
	}
	return v
}

// channelLoad runs one load of n buyers on the cluster's two instances.
func (c *cluster) channelLoad(t *testing.T, n, requests, slices int, salt int64, l layout) {
	const path = "/chanload/x"
	offer := c.offerV2(c.nodes[0], path)
	seller0 := c.balance(c.payTo)
	block0 := c.head()
	per := int64(requests / n)
	bs := make([]*chanBuyer, n)
	for i := range bs {
		bs[i] = c.chanBuyer(c.chain.Buyers()[i], offer, salt+int64(i))
	}
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4 * n, MaxConnsPerHost: 4 * n}, Timeout: 30 * time.Second}
	urls := []string{c.nodes[0].base() + path, c.nodes[1].base() + path}
	get := func(node int, hdr map[string]string, want int) error {
		req, _ := http.NewRequest(http.MethodGet, urls[node%2], nil)
		req.Host = host
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		resp, err := hc.Do(req)
		if err != nil {
			return err
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != want {
			return fmt.Errorf("status %d %s, want %d", resp.StatusCode, body, want)
		}
		return nil
	}
	var wg sync.WaitGroup
	for i, b := range bs {
		wg.Add(1)
		deposit := func() {
			defer wg.Done()
			if err := get(i, b.header(c, price, (per+10)*price), http.StatusOK); err != nil { // buyer i's instance
				t.Errorf("deposit of buyer %d: %v", i, err)
			}
		}
		if noSharedStore {
			// The two instances' one gas payer has no shared journal to
			// share its nonces through: deposits sent at once on both
			// would sign the same nonce.
			deposit()
		} else {
			go deposit()
		}
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	headers := make([][]map[string]string, n)
	for i, b := range bs {
		for v := int64(2); v <= per; v++ {
			headers[i] = append(headers[i], b.header(c, v*price, 0))
		}
	}

	var cpu402, cpuPaid phaseCPU
	run := func(into *phaseCPU, each func(g, k int) error, count func(g int) int) time.Duration {
		cpu0 := c.cpu()
		defer func() { into.add(cpu0, c.cpu()) }()
		start := time.Now()
		var wg sync.WaitGroup
		for g := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for k := range count(g) {
					if err := each(g, k); err != nil {
						t.Error(err)
						return
					}
				}
			}()
		}
		wg.Wait()
		return time.Since(start)
	}
	if !noSharedStore {
		defer c.logStatements(t)() // what the database did during the load
	}
	var t402, tPaid time.Duration
	var count int
	next := make([]int, n)
	for s := range slices {
		share := func(g int) int {
			all := len(headers[g])
			return all*(s+1)/slices - all*s/slices
		}
		t402 += run(&cpu402, func(g, k int) error { return get(g+k, nil, http.StatusPaymentRequired) }, share)
		if dir := os.Getenv("X402_LOAD_PROFILE"); dir != "" && s == 0 {
			go c.nodes[0].profile(t, filepath.Join(dir, fmt.Sprintf("paid-%d.pprof", n)))
		}
		tPaid += run(&cpuPaid, func(g, k int) error {
			h := headers[g][next[g]]
			next[g]++
			if noSharedStore {
				return get(g, h, http.StatusOK) // each instance has channels of its own
			}
			return get(g+next[g], h, http.StatusOK) // alternately to both instances
		}, share)
		for g := range n {
			count += share(g)
		}
	}
	if t.Failed() {
		t.FailNow()
	}
	rate402, ratePaid := float64(count)/t402.Seconds(), float64(count)/tPaid.Seconds()
	storeName := "postgres"
	if noSharedStore {
		storeName = "bbolt (each buyer on one instance)"
	}
	t.Logf("LOAD %s, 2 instances, buyers=%d, layout %s: unpaid 402 %.0f req/s, paid by voucher %.0f req/s, ratio %.2f (%d + %d requests in %d slices)",
		storeName, n, l, rate402, ratePaid, ratePaid/rate402, count, count, slices)
	t.Logf("LOAD %s, 2 instances, buyers=%d, layout %s: CPU per request, unpaid 402: %s; paid by voucher: %s",
		storeName, n, l, cpu402.per(count), cpuPaid.per(count))

	// The seller is paid exactly price x paid requests by the claim rounds.
	paid := per * int64(n)
	deadline := time.Now().Add(90 * time.Second)
	for delta(seller0, c.balance(c.payTo)) != paid*price {
		if time.Now().After(deadline) {
			t.Fatalf("the seller received %d after the claim rounds, want %d (price x %d paid requests)", delta(seller0, c.balance(c.payTo)), paid*price, paid)
		}
		time.Sleep(200 * time.Millisecond)
	}
	kinds := map[string]int{}
	for _, s := range c.scan(block0, c.head()).txs {
		name := "other"
		if tx, _, err := c.chain.Client().TransactionByHash(bg, s.hash); err == nil && tx.To() != nil && *tx.To() == batch.SettlementAddress && len(tx.Data()) >= 4 {
			if m, err := batch.ABI.MethodById(tx.Data()[:4]); err == nil {
				name = m.Name
			}
		}
		kinds[name]++
	}
	t.Logf("LOAD %s, 2 instances, buyers=%d: %d paid requests (%d deposits + %d vouchers), the seller paid exactly; gas payer's transactions %v",
		storeName, n, paid, n, paid-int64(n), kinds)
	// A round is a claim and a settle; a round under way at either end of
	// the count has one without the other.
	if claims, settles := kinds["claimWithSignature"]+kinds["claim"], kinds["settle"]; kinds["deposit"] != n || kinds["other"] != 0 ||
		claims == 0 || settles == 0 || claims > settles+2 || settles > claims+2 {
		t.Errorf("the gas payer's transactions %v: want %d deposits and a claim and a settle per round", kinds, n)
	}
}

// phaseCPU is the CPU time the load's processes used in the slices of one
// kind: the two Caddy processes, PostgreSQL (server and backends) and this
// one (the buyers' clients and the devnet).
type phaseCPU struct{ caddy, postgres, load time.Duration }

// cpu is the CPU each kind of process has used so far.
func (c *cluster) cpu() phaseCPU {
	var p phaseCPU
	for _, in := range c.nodes {
		in.mu.Lock()
		if in.cmd != nil && in.cmd.Process != nil {
			p.caddy += pgtest.ProcessCPU(in.cmd.Process.Pid, false)
		}
		in.mu.Unlock()
	}
	p.postgres = c.pg.CPU()
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
		p.load = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	return p
}

// add adds to p the CPU used between two readings of cluster.cpu.
func (p *phaseCPU) add(start, end phaseCPU) {
	p.caddy += end.caddy - start.caddy
	p.postgres += end.postgres - start.postgres
	p.load += end.load - start.load
}

// per says the CPU per request of n requests, by kind of process.
func (p phaseCPU) per(n int) string {
	us := func(d time.Duration) float64 { return float64(d.Microseconds()) / float64(n) }
	return fmt.Sprintf("Caddy %.0f us, PostgreSQL %.0f us, load and devnet %.0f us, all %.0f us",
		us(p.caddy), us(p.postgres), us(p.load), us(p.caddy+p.postgres+p.load))
}

// logStatements resets PostgreSQL's statement counts (pg_stat_statements,
// which pgtest preloads) and returns a func that logs the 15 statements
// that took the most time since, with their calls and rows.
func (c *cluster) logStatements(t *testing.T) func() {
	conn := c.connect()
	for _, q := range []string{`CREATE EXTENSION IF NOT EXISTS pg_stat_statements`, `SELECT pg_stat_statements_reset()`} {
		if _, err := conn.Exec(bg, q); err != nil {
			t.Logf("statement counts: %v", err)
			return func() {}
		}
	}
	return func() {
		rows, err := conn.Query(bg, `SELECT calls, round(total_exec_time::numeric, 1)::text, rows,
			left(regexp_replace(query, '\s+', ' ', 'g'), 110) FROM pg_stat_statements ORDER BY total_exec_time DESC LIMIT 15`)
		if err != nil {
			t.Logf("statement counts: %v", err)
			return
		}
		defer rows.Close()
		for rows.Next() {
			var calls, n int64
			var ms, q string
			if err := rows.Scan(&calls, &ms, &n, &q); err != nil {
				t.Logf("statement counts: %v", err)
				return
			}
			t.Logf("STATEMENT %7d calls %9s ms %7d rows  %s", calls, ms, n, q)
		}
	}
}

// profile writes 4 s of the instance's CPU profile (Caddy's admin
// /debug/pprof) to path.
func (in *instance) profile(t *testing.T, path string) {
	resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/debug/pprof/profile?seconds=4", in.admin))
	if err != nil {
		t.Errorf("profile: %v", err)
		return
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Errorf("profile: %v", err)
	}
}
