package cluster

import (
	"encoding/hex"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/caddy-x402/caddy-x402/internal/pgtest"
)

// TestLostWrites: PostgreSQL loses acknowledged writes. The database's
// sessions commit asynchronously (ALTER DATABASE ... SET
// synchronous_commit = off), so a commit is acknowledged while its WAL is
// still in shared memory, for the WAL writer to write later; the WAL
// writer is slow (wal_writer_delay 10 s, its longest) and, for the burst,
// does not run at all (SIGSTOP, as a WAL writer starved of CPU, or as an
// asynchronous replica seconds behind when it is promoted). PostgreSQL is
// killed (SIGKILL, postmaster and backends) in the middle of a burst of 24
// payments over three instances and restarted: what was not written is
// gone. Six payments delivered and checkpointed before keep their records. Every instance warned of
// the setting at start. After the restart, the test reads which payments
// used on chain lost both their journal and their redemption rows (it
// fails if none did: the fault did not happen). Then every payment is
// sent again until it is answered for good: the six are refused
// "Authorization already used" (delivered), each one of the burst is
// delivered (200 with its on-chain transaction), those whose records were
// lost from the chain, each once more although two copies of it go to
// two instances at the same moment (the other copy, and one more request,
// are refused "Authorization already used"), and the chain holds each authorization
// in one transaction, the payee's balance up by the price once per
// payment.
func TestLostWrites(t *testing.T) {
	if noSharedStore {
		t.Skip("there is no shared store to lose writes")
	}
	pg := pgtest.Start(t)
	c := newCluster(t, options{pg: pg, dontStart: true})
	conn := c.connect()
	var db string
	if err := conn.QueryRow(bg, "SELECT current_database()").Scan(&db); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		"ALTER DATABASE " + pgx.Identifier{db}.Sanitize() + " SET synchronous_commit = off",
		"ALTER SYSTEM SET wal_writer_delay = '10s'",
		"SELECT pg_reload_conf()",
	} {
		if _, err := conn.Exec(bg, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	c.start(c.nodes...)
	for _, in := range c.nodes {
		if in.logCount("synchronous_commit is off") == 0 {
			t.Errorf("%s did not warn of synchronous_commit=off at start", in.name)
		}
	}

	var walWriter int
	if err := conn.QueryRow(bg, "SELECT pid FROM pg_stat_activity WHERE backend_type = 'walwriter'").Scan(&walWriter); err != nil {
		t.Fatalf("finding the WAL writer: %v", err)
	}
	t.Cleanup(func() { _ = syscall.Kill(walWriter, syscall.SIGCONT) })

	const n, kept = 30, 6
	reqs := c.requirements(c.nodes[0], "/paid/lost")
	payments := make([]*payment, n)
	for i := range payments {
		payments[i] = c.sign(c.chain.Buyers()[i%20], reqs, fmt.Sprintf("/paid/lost-%d", i))
	}
	payee0 := c.balance(c.payTo)
	c.waitIdle(time.Minute)
	block0 := c.head()

	// A few payments delivered before the fault, and made durable (a
	// checkpoint writes the WAL): their records survive the crash.
	for i := range kept {
		if a := c.nodes[i%3].pay(payments[i], 0); a.status != http.StatusOK {
			t.Fatalf("payment %d before the fault: %v", i, a)
		}
	}
	if _, err := conn.Exec(bg, "CHECKPOINT"); err != nil {
		t.Fatal(err)
	}

	if err := syscall.Kill(walWriter, syscall.SIGSTOP); err != nil {
		t.Fatalf("stopping the WAL writer: %v", err)
	}
	first := make([]answer, n)
	var wg sync.WaitGroup
	for i, p := range payments[kept:] {
		wg.Go(func() {
			time.Sleep(time.Duration(i) * 50 * time.Millisecond)
			first[kept+i] = c.nodes[i%3].pay(p, 0)
		})
	}
	time.Sleep(1200 * time.Millisecond)
	pg.Kill(t)
	wg.Wait()
	t.Logf("PostgreSQL killed (SIGKILL) 1.2 s into the burst; the answers:%s", fmtCounts(counts(first[kept:])))
	pg.Restart(t)

	// Which payments used on chain lost every record.
	check := c.connect()
	ids := func(table string) []string {
		rows, err := check.Query(bg, "SELECT lower(id) FROM "+table)
		if err != nil {
			t.Fatal(err)
		}
		out, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	journal, redemptions := ids("x402_settlements"), ids("x402_redemptions")
	has := func(rows []string, p *payment) bool {
		nonce := hex.EncodeToString(p.nonce[:])
		for _, id := range rows {
			if strings.Contains(id, nonce) {
				return true
			}
		}
		return false
	}
	lost := map[int]bool{}
	used := 0
	for i, p := range payments {
		if !c.used(p) {
			continue
		}
		used++
		if !has(journal, p) && !has(redemptions, p) {
			lost[i] = true
		}
	}
	t.Logf("after the restart: %d payments used on chain, of which %d have neither a journal nor a redemption row (journal rows %d, redemption rows %d)",
		used, len(lost), len(journal), len(redemptions))
	if len(lost) == 0 {
		t.Fatal("no payment used on chain lost its records: the fault did not happen")
	}
	for i := range kept {
		if lost[i] {
			t.Errorf("payment %d, delivered and checkpointed before the fault, lost its records", i)
		}
	}
	runsBefore := make([]int, n)
	for i, p := range payments {
		runsBefore[i] = c.up.runs(p.path)
	}

	// Every payment sent again until it is answered for good; one whose
	// records were lost, to two instances at the same moment.
	final, twin := make([]answer, n), make([]answer, n)
	gate := make(chan struct{})
	for i, p := range payments {
		wg.Go(func() {
			<-gate
			all := deliver(p, c.nodes[i%3:i%3+1], time.Now().Add(2*time.Minute), 0)
			final[i] = all[len(all)-1]
		})
		if lost[i] {
			wg.Go(func() {
				<-gate
				all := deliver(p, c.nodes[(i+1)%3:(i+1)%3+1], time.Now().Add(2*time.Minute), 0)
				twin[i] = all[len(all)-1]
			})
		}
	}
	close(gate)
	wg.Wait()
	// The copy of the two that was not served is refused as used.
	for i := range lost {
		if twin[i].status == http.StatusOK {
			final[i], twin[i] = twin[i], final[i]
		}
		if a := twin[i]; a.status != http.StatusPaymentRequired || a.json().Error != textAlreadyUsed {
			t.Errorf("payment %d lost its records; of two copies sent at once to two instances, the second answered %v; want 402 %q", i, a, textAlreadyUsed)
		}
	}
	t.Logf("sent again, the final answers:%s", fmtCounts(counts(final)))
	for i, p := range payments {
		a := final[i]
		switch {
		case !c.used(p):
			t.Errorf("payment %d is not used on chain after its retries: %v", i, a)
		case i >= kept && a.status == http.StatusOK && string(a.body) == "content "+p.path+" tx="+a.txHash():
		case i < kept && a.status == http.StatusPaymentRequired && a.json().Error == textAlreadyUsed:
			// Delivered before the fault, its record kept: refused.
		default:
			t.Errorf("payment %d (first %v, records lost %v): sent again %v; want its content", i, first[i], lost[i], a)
		}
	}
	for i := range lost {
		p := payments[i]
		if a := final[i]; a.status != http.StatusOK {
			t.Errorf("payment %d lost its records; sent again: %v, want 200 from the chain", i, a)
		}
		if got := c.up.runs(p.path) - runsBefore[i]; got != 1 {
			t.Errorf("payment %d lost its records; the upstream ran %d times for its copies, want once", i, got)
		}
		if a := c.nodes[(i+1)%3].pay(p, 0); a.status != http.StatusPaymentRequired || a.json().Error != textAlreadyUsed {
			t.Errorf("payment %d, delivered from the chain, sent once more elsewhere: %v; want 402 %q", i, a, textAlreadyUsed)
		}
	}
	recovered := 0
	for _, in := range c.nodes {
		recovered += in.logCount("delivering a payment settled on chain whose records were lost")
	}
	if recovered < len(lost) {
		t.Errorf("the instances logged %d deliveries from the chain; want at least %d", recovered, len(lost))
	}

	c.waitIdle(2 * time.Minute)
	l := c.scan(block0+1, c.head())
	l.check(t)
	if d := delta(payee0, c.balance(c.payTo)); d != int64(l.transfers)*price || l.transfers != n {
		t.Errorf("payee's balance rose by %d with %d transfers; want %d × %d", d, l.transfers, n, price)
	}
}
