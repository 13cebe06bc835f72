package cluster

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/caddy-x402/caddy-x402/internal/pgtest"
)

// TestBurst: 300 distinct payments at once, round-robin over three
// instances, from ten buyers with thirty authorizations each. Every one
// is answered 200 with its content (a pending answer, on a slow machine,
// is sent again with the same header and must then be 200); the upstream
// ran once per payment; the payee's balance rose by exactly 300 × price and
// each buyer's fell by exactly its payments; the signer's nonce rose by
// exactly 300: 300 token transfers of 300 distinct authorizations, no
// fill, no gap, no duplicate.
func TestBurst(t *testing.T) {
	c := newCluster(t, options{})
	const n, buyers = 300, 10
	reqs := c.requirements(c.nodes[0], "/paid/burst")
	payments := make([]*payment, n)
	var addrs []common.Address
	for i := range payments {
		b := c.chain.Buyers()[i%buyers]
		if i < buyers {
			addrs = append(addrs, b.Address)
		}
		payments[i] = c.sign(b, reqs, fmt.Sprintf("/paid/burst-%d", i))
	}
	before := c.balances(append(addrs, c.payTo)...)
	nonce0, pending0 := c.nonces()
	if nonce0 != pending0 {
		t.Fatalf("the signer has transactions in the pool before the burst: %d/%d", nonce0, pending0)
	}
	block0 := c.head()

	start := time.Now()
	answers := burst(payments, func(i int) *instance { return c.nodes[i%len(c.nodes)] }, 0)
	took := time.Since(start)
	t.Logf("burst: %d payments over %d instances answered in %v (%.0f paid requests/s); first answers:%s",
		n, len(c.nodes), took.Round(time.Millisecond), float64(n)/took.Seconds(), fmtCounts(counts(answers)))

	// A pending answer (the chain slower than settle_timeout) is sent
	// again, as a buyer is told to; anything else is final.
	retried := 0
	for i, a := range answers {
		if a.status == http.StatusPaymentRequired && a.json().Error == textPending {
			retried++
			all := deliver(payments[i], []*instance{c.nodes[i%len(c.nodes)]}, time.Now().Add(time.Minute), 0)
			answers[i] = all[len(all)-1]
		}
	}
	if retried > 0 {
		t.Logf("burst: %d payments were answered pending first and sent again", retried)
	}
	txs := map[string]bool{}
	for i, a := range answers {
		p := payments[i]
		tx := a.txHash()
		if a.status != http.StatusOK || string(a.body) != "content "+p.path+" tx="+tx || len(tx) != 66 {
			t.Errorf("payment %d (%s): %v, want 200 with its content and transaction", i, p.path, a)
			continue
		}
		if txs[tx] {
			t.Errorf("payment %d: transaction %s served twice", i, tx)
		}
		txs[tx] = true
		if runs := c.up.runs(p.path); runs != 1 {
			t.Errorf("payment %d: the upstream ran %d times for %s, want once", i, runs, p.path)
		}
	}

	nonce1 := c.waitIdle(2 * time.Minute)
	after := c.balances(append(addrs, c.payTo)...)
	if d := delta(before[c.payTo], after[c.payTo]); d != n*price {
		t.Errorf("payee's balance rose by %d, want exactly %d × %d = %d", d, n, price, n*price)
	}
	for _, a := range addrs {
		if d := delta(before[a], after[a]); d != -(n/buyers)*price {
			t.Errorf("buyer %s's balance changed by %d, want exactly -%d", a, d, (n/buyers)*price)
		}
	}
	if nonce1 != nonce0+n {
		t.Errorf("the signer's nonce went from %d to %d, want exactly +%d", nonce0, nonce1, n)
	}
	l := c.scan(block0+1, c.head())
	l.check(t)
	if l.transfers != n || l.fills != 0 || len(l.reverted) != 0 || len(l.byAuth) != n {
		t.Errorf("chain: %d transfers of %d authorizations, %d fills, %d reverted; want %d transfers of %d distinct authorizations, no fill, none reverted",
			l.transfers, len(l.byAuth), l.fills, len(l.reverted), n, n)
	}
	for _, p := range payments {
		if len(l.byAuth[p.key()]) != 1 {
			t.Errorf("chain: the authorization of %s is in %d transactions, want 1", p.path, len(l.byAuth[p.key()]))
		}
	}
	t.Logf("burst: the signer's nonce %d → %d over blocks %d..%d", nonce0, nonce1, block0+1, c.head())
}

// TestMigrationsRaced: three instances started at the same moment on an
// empty database all become ready; the schema was migrated once
// (x402_schema_migrations has exactly one row per version, versions
// 1..latest) and by one instance (one "migrated" log line in all); the
// three hold live leases.
func TestMigrationsRaced(t *testing.T) {
	if noSharedStore {
		t.Skip("without the shared store there is no schema")
	}
	c := newCluster(t, options{dontStart: true})
	start := time.Now()
	c.start(c.nodes...)
	t.Logf("three instances on an empty database ready in %v", time.Since(start).Round(time.Millisecond))

	conn := c.connect()
	rows, err := conn.Query(bg, `SELECT version, count(*) FROM x402_schema_migrations GROUP BY version ORDER BY version`)
	if err != nil {
		t.Fatal(err)
	}
	var versions []int
	for rows.Next() {
		var v, n int
		if err := rows.Scan(&v, &n); err != nil {
			t.Fatal(err)
		}
		if n != 1 {
			t.Errorf("x402_schema_migrations: version %d has %d rows, want 1", v, n)
		}
		versions = append(versions, v)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if len(versions) == 0 {
		t.Fatal("x402_schema_migrations is empty")
	}
	for i, v := range versions {
		if v != i+1 {
			t.Errorf("x402_schema_migrations versions %v, want 1..%d each once", versions, len(versions))
			break
		}
	}
	var live int
	if err := conn.QueryRow(bg, `SELECT count(*) FROM x402_instances WHERE expires_at > clock_timestamp()`).Scan(&live); err != nil {
		t.Fatal(err)
	}
	if live != 3 {
		t.Errorf("%d live leases in x402_instances, want 3", live)
	}
	migrated := 0
	for _, in := range c.nodes {
		migrated += in.logCount("migrated the x402 tables")
	}
	if migrated != 1 {
		t.Errorf("%d instances logged migrating the tables, want exactly 1", migrated)
	}
	t.Logf("schema versions %v, each applied once, by one of three instances", versions)
	// Each serves a paid request.
	reqs := c.requirements(c.nodes[0], "/paid/m")
	for i, in := range c.nodes {
		p := c.sign(c.chain.Buyers()[i], reqs, "/paid/m-"+in.name)
		if a := in.pay(p, 0); a.status != http.StatusOK || !strings.HasPrefix(string(a.body), "content /paid/m-"+in.name) {
			t.Errorf("instance %s: %v", in.name, a)
		}
	}
}

// TestPendingElsewhere: a payment answered "Settlement pending" by A (the
// chain stalls past settle_timeout 1s) is followed by every instance:
// while the chain stalls, B answers pending with the same transaction;
// once it is mined, the same X-PAYMENT on B gets the content; then A and
// C refuse it (402 Authorization already used). The upstream ran once,
// the payee got one price, the signer sent one transaction.
func TestPendingElsewhere(t *testing.T) {
	c := newCluster(t, options{global: "settle_timeout 1s"})
	a, b, cc := c.nodes[0], c.nodes[1], c.nodes[2]
	const path = "/paid/pending"
	p := c.sign(c.chain.Buyers()[0], c.requirements(a, path), path)
	payee0, buyer0 := c.balance(c.payTo), c.balance(p.buyer)
	nonce0 := c.waitIdle(time.Minute)

	c.chain.PauseMining()
	defer c.chain.ResumeMining()
	first := a.pay(p, 0)
	tx := first.json().TxHash
	if first.status != http.StatusPaymentRequired || first.json().Error != textPending || len(tx) != 66 || first.header.Get("Retry-After") != "2" {
		t.Fatalf("A while the chain stalls: %v\nwant 402 %q with a txHash and Retry-After 2", first, textPending)
	}
	if again := b.pay(p, 0); again.status != http.StatusPaymentRequired || again.json().Error != textPending || again.json().TxHash != tx {
		t.Errorf("B while the chain stalls: %v\nwant 402 %q with txHash %s", again, textPending, tx)
	}
	c.chain.ResumeMining()
	resumed := time.Now()

	// Once B's facilitator reads the settlement as settled (the journal
	// is shared), B delivers.
	deadline := time.Now().Add(time.Minute)
	for {
		status, ans := b.settlement(tx)
		if status == "settled" {
			t.Logf("B reads the settlement as settled %v after mining resumed", time.Since(resumed).Round(time.Millisecond))
			break
		}
		if ans.status == http.StatusNotFound || time.Now().After(deadline) {
			// The journal is written before the broadcast: a settlement
			// unknown to B is one B cannot see.
			t.Fatalf("B's /v2/x402/settlements/%s does not say settled: %v", tx, ans)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if got := b.pay(p, 0); got.status != http.StatusOK || string(got.body) != "content "+path+" tx="+tx {
		t.Errorf("B once mined: %v\nwant 200 %q", got, "content "+path+" tx="+tx)
	}
	for _, in := range []*instance{a, cc, b} {
		if got := in.pay(p, 0); got.status != http.StatusPaymentRequired || got.json().Error != textAlreadyUsed {
			t.Errorf("%s after delivery: %v\nwant 402 %q", in.name, got, textAlreadyUsed)
		}
	}
	if runs := c.up.runs(path); runs != 1 {
		t.Errorf("the upstream ran %d times, want once", runs)
	}
	nonce1 := c.waitIdle(time.Minute)
	if d := delta(payee0, c.balance(c.payTo)); d != price {
		t.Errorf("payee's balance rose by %d, want %d", d, price)
	}
	if d := delta(buyer0, c.balance(p.buyer)); d != -price {
		t.Errorf("buyer's balance changed by %d, want -%d", d, price)
	}
	if nonce1 != nonce0+1 {
		t.Errorf("the signer's nonce went from %d to %d, want +1", nonce0, nonce1)
	}
}

// TestPaymentIDAcrossInstances: a version 2 payment with a payment id,
// delivered on A, is answered 409 "payment already delivered" (with its
// transaction) on B and C; a new authorization under the same id on C is
// answered 409 "payment identifier already used with a different
// payload" and moves nothing (the buyer's balance and the signer's nonce
// stay, the authorization stays unused). The upstream ran once.
func TestPaymentIDAcrossInstances(t *testing.T) {
	c := newCluster(t, options{})
	a, b, cc := c.nodes[0], c.nodes[1], c.nodes[2]
	const path = "/paid/pid"
	offer := c.offerV2(a, path)
	buyer := c.chain.Buyers()[1]
	id := "pay_cluster_" + strings.Repeat("7", 20)
	first := c.signV2(buyer, offer, path, id)
	payee0, buyer0 := c.balance(c.payTo), c.balance(buyer.Address)

	got := a.pay(first, 0)
	tx := got.txHash()
	if got.status != http.StatusOK || len(tx) != 66 || string(got.body) != "content "+path+" tx="+tx {
		t.Fatalf("A: %v\nwant 200 with the content", got)
	}
	for _, in := range []*instance{b, cc} {
		got := in.pay(first, 0)
		if j := got.json(); got.status != http.StatusConflict || j.Error != textPaymentIDDelivered || j.Transaction != tx || j.PaymentID != id {
			t.Errorf("%s, the same header: %v\nwant 409 %q with transaction %s", in.name, got, textPaymentIDDelivered, tx)
		}
	}
	nonce1 := c.waitIdle(time.Minute)
	buyer1 := c.balance(buyer.Address)
	second := c.signV2(buyer, offer, path, id)
	got = cc.pay(second, 0)
	if j := got.json(); got.status != http.StatusConflict || j.Error != textPaymentIDConflict || j.PaymentID != id {
		t.Errorf("C, a new authorization under the id: %v\nwant 409 %q", got, textPaymentIDConflict)
	}
	// Nothing moves for it, now or a few blocks later.
	if nonce2 := c.waitIdle(time.Minute); nonce2 != nonce1 {
		t.Errorf("the signer's nonce went from %d to %d after the refused payment, want unchanged", nonce1, nonce2)
	}
	if d := delta(buyer1, c.balance(buyer.Address)); d != 0 {
		t.Errorf("the refused payment changed the buyer's balance by %d", d)
	}
	if c.used(second) {
		t.Error("the refused authorization was used on chain")
	}
	if d := delta(buyer0, c.balance(buyer.Address)); d != -price {
		t.Errorf("buyer's balance changed by %d in all, want -%d", d, price)
	}
	if d := delta(payee0, c.balance(c.payTo)); d != price {
		t.Errorf("payee's balance rose by %d, want %d", d, price)
	}
	if runs := c.up.runs(path); runs != 1 {
		t.Errorf("the upstream ran %d times, want once", runs)
	}
}

// TestSettleAfterCopies: sixty copies of one authorization at once, twenty
// on each instance, on a settle-after route: exactly one 200 with the
// content, the upstream ran once, one transaction carries the
// authorization (payee +1 price, signer nonce +1); every other answer is
// 402 "Authorization already used" (once delivered) or 409 "another
// request with this payment is being served" with Retry-After 2.
func TestSettleAfterCopies(t *testing.T) {
	c := newCluster(t, options{})
	const path, copies = "/after/copies", 60
	p := c.sign(c.chain.Buyers()[2], c.requirements(c.nodes[0], path), path)
	payee0 := c.balance(c.payTo)
	nonce0 := c.waitIdle(time.Minute)
	block0 := c.head()

	ps := make([]*payment, copies)
	for i := range ps {
		ps[i] = p
	}
	answers := burst(ps, func(i int) *instance { return c.nodes[i%len(c.nodes)] }, 0)
	mix := counts(answers)
	t.Logf("%d copies over %d instances:%s", copies, len(c.nodes), fmtCounts(mix))
	for _, a := range answers {
		switch {
		case a.status == http.StatusOK:
			if string(a.body) != "content "+path+" tx=" {
				t.Errorf("the 200: %v, want the content", a)
			}
		case a.status == http.StatusPaymentRequired && a.json().Error == textAlreadyUsed:
		case busy(a):
		default:
			t.Errorf("unexpected answer %v", a)
		}
	}
	if mix["200"] != 1 {
		t.Errorf("%d answers 200, want exactly 1", mix["200"])
	}
	if runs := c.up.runs(path); runs != 1 {
		t.Errorf("the upstream ran %d times, want once", runs)
	}
	nonce1 := c.waitIdle(time.Minute)
	if nonce1 != nonce0+1 {
		t.Errorf("the signer's nonce went from %d to %d, want +1", nonce0, nonce1)
	}
	if d := delta(payee0, c.balance(c.payTo)); d != price {
		t.Errorf("payee's balance rose by %d, want %d", d, price)
	}
	l := c.scan(block0+1, c.head())
	l.check(t)
	if len(l.byAuth[p.key()]) != 1 || l.transfers != 1 {
		t.Errorf("chain: the authorization is in %d transactions (%d transfers in all), want exactly 1", len(l.byAuth[p.key()]), l.transfers)
	}
}

// TestKillFailover: sixty payments at once, twenty on each instance (1 s
// blocks); A is killed (SIGKILL) 150 ms later, while its settlements are
// pending. Every buyer without a 200 sends the same header again to B and
// C in turn, honouring Retry-After. In the end every payment got its 200
// and moved money exactly once (each authorization used on chain, the
// payee +60 prices), the upstream ran once per payment (twice only where
// A had run it and died before answering), the same header again is
// refused, B and C answer the settlement look-ups for A's transactions,
// and the signer's nonces have no gap (pending == latest, every mined
// transaction a transfer of a distinct authorization or a fill). The time
// from the kill until every payment was delivered is logged.
func TestKillFailover(t *testing.T) {
	c := newCluster(t, options{})
	a, rest := c.nodes[0], c.nodes[1:]
	const n = 60
	reqs := c.requirements(a, "/paid/kill")
	payments := make([]*payment, n)
	for i := range payments {
		payments[i] = c.sign(c.chain.Buyers()[i%20], reqs, fmt.Sprintf("/paid/kill-%d", i))
	}
	nodeOf := func(i int) *instance { return c.nodes[i%len(c.nodes)] }
	payee0 := c.balance(c.payTo)
	nonce0 := c.waitIdle(time.Minute)
	block0 := c.head()

	var killedAt time.Time
	killed := make(chan struct{})
	go func() {
		time.Sleep(150 * time.Millisecond)
		_, pending, _ := c.chain.NonceAt(bg, c.chain.Signer().Address)
		a.kill()
		killedAt = time.Now()
		t.Logf("killed A (SIGKILL) 150 ms after the burst; the node held %d of the signer's transactions (of all instances) just before", pending-nonce0)
		close(killed)
	}()
	first := burst(payments, nodeOf, 0)
	<-killed
	t.Logf("first answers:%s", fmtCounts(counts(first)))

	// Every buyer without its content retries on B and C.
	final, tries, doneAt := retryElsewhere(first, payments, rest)
	if debug {
		for i, ts := range tries {
			for _, a := range ts {
				t.Logf("payment %d: %s sent +%v took %v: %s", i, a.node, a.sent.Sub(killedAt).Round(time.Millisecond), a.at.Sub(a.sent).Round(time.Millisecond), a.kind())
			}
		}
	}
	var retries []answer
	retriedPayments := 0
	for _, ts := range tries {
		if len(ts) > 1 {
			retriedPayments++
			retries = append(retries, ts[1:]...)
		}
	}
	if !doneAt.IsZero() {
		took := doneAt.Sub(killedAt)
		t.Logf("failover: %d payments retried on B and C, every one delivered %v after the kill; the retries' answers:%s",
			retriedPayments, took.Round(time.Millisecond), fmtCounts(counts(retries)))
		if took > 15*time.Second {
			// Not a failure (no duration is asserted), but not the goal.
			t.Logf("failover: NOTE: %v is beyond the 15 s goal; see the fills below (nonces A took and never sent, filled one by one)", took.Round(time.Millisecond))
		}
	}
	taken := 0
	for _, in := range rest {
		taken += in.loggedInts("took over the pending settlements", "settlements")
	}
	t.Logf("failover: B and C took over %d pending settlements of A", taken)
	if debug {
		for _, in := range rest {
			for _, l := range strings.Split(in.log(), "\n") {
				if strings.Contains(l, "nonce gap") || strings.Contains(l, "filled") || strings.Contains(l, "took over") {
					t.Logf("%s: %s", in.name, l)
				}
			}
		}
	}

	for i, f := range final {
		p := payments[i]
		tx := f.txHash()
		if f.status != http.StatusOK || string(f.body) != "content "+p.path+" tx="+tx {
			t.Errorf("payment %d (%s, first to %s): not delivered: %v", i, p.path, nodeOf(i).name, tries[i])
			continue
		}
		if !c.used(p) {
			t.Errorf("payment %d (%s): a 200 but its authorization was not used on chain", i, p.path)
		}
		// A's settlements are answered by B and C.
		if nodeOf(i) == a {
			for _, in := range rest {
				if status, ans := in.settlement(tx); status != "settled" {
					t.Errorf("payment %d: %s's /v2/x402/settlements/%s: %v, want status settled", i, in.name, tx, ans)
				}
			}
		}
		// The upstream ran once; twice only after A ran it and died
		// before the answer.
		runs, byA := c.up.runs(p.path), c.up.runsBy(p.path, "A")
		switch {
		case runs == 1:
		case runs == 2 && byA == 1 && nodeOf(i) == a && first[i].status == 0:
			t.Logf("payment %d: the upstream ran on A, which died before answering, and again on the retry", i)
		default:
			t.Errorf("payment %d: the upstream ran %d times (%d through A), want once", i, runs, byA)
		}
		// The same header again is refused: delivered once.
		if again := rest[i%2].pay(p, 0); again.status != http.StatusPaymentRequired || again.json().Error != textAlreadyUsed {
			t.Errorf("payment %d sent again after delivery: %v, want 402 %q", i, again, textAlreadyUsed)
		}
	}
	nonce1 := c.waitIdle(2 * time.Minute)
	latest, pending := c.nonces()
	if latest != pending {
		t.Errorf("signer: latest nonce %d, pending %d: a gap", latest, pending)
	}
	paid := delta(payee0, c.balance(c.payTo))
	if paid != n*price {
		t.Errorf("payee's balance rose by %d (%d payments), want %d", paid, paid/price, n*price)
	}
	l := c.scan(block0+1, c.head())
	l.check(t)
	if got := uint64(l.transfers + len(l.reverted) + l.fills + len(l.other)); nonce1-nonce0 != got {
		t.Errorf("the signer's nonce rose by %d, but %d of its transactions were mined", nonce1-nonce0, got)
	}
	if l.transfers != n {
		t.Errorf("chain: %d token transfers, want %d", l.transfers, n)
	}
	t.Logf("signer: nonce %d → %d: %d transfers, %d fills (the instances' logs name %d filled nonces)", nonce0, nonce1, l.transfers, l.fills, c.loggedFills())
}

// TestStopFencing: twenty (or eight) payments at once to A, which is paused
// (SIGSTOP) soon after and kept paused for more than 8 s (past its 5 s
// lease): 20 ms after the burst (while it verifies), as soon as it has
// taken two nonces or more from the shared counter (x402_nonces, polled:
// a batch signed or about to be, journaled or not, not broadcast), and
// 150 ms after the burst (settlements pending). Meanwhile the buyers, whose requests to A time out, send the
// same headers to B and C until they get their content (B or C take A's
// settlements over, or settle afresh). Then A is resumed: it must
// broadcast nothing for the work taken over. Every mined transaction of
// the signer is a transfer of a distinct authorization or a zero-value
// fill, no authorization is in two transactions (none reverted), the
// payee got exactly one price per paid authorization, the nonces have no
// gap, B and C still answer every delivered payment's settlement as
// settled; and A, under a new lease ("lease ... had run out" in its log),
// serves new paid requests.
func TestStopFencing(t *testing.T) {
	if noSharedStore {
		t.Skip("fencing needs the shared store")
	}
	if testing.Short() {
		t.Skip("starts PostgreSQL, a chain and several Caddy processes")
	}
	pg := pgtest.Start(t)
	for _, tc := range []struct {
		name     string
		n        int           // payments
		after    time.Duration // the pause comes this long after the burst
		onNonces bool          // or once A took two nonces or more
	}{
		{"while verifying", 20, 20 * time.Millisecond, false},
		// Fewer payments: every nonce A took and never sent is a gap
		// that stalls the key until it is filled (one by one, seconds
		// apart), so the run's length grows with them.
		{"nonces taken", 8, 0, true},
		{"settlements pending", 20, 150 * time.Millisecond, false},
	} {
		t.Run(tc.name, func(t *testing.T) { testStopFencing(t, pg, tc.n, tc.after, tc.onNonces) })
	}
}

func testStopFencing(t *testing.T, pg *pgtest.Server, n int, pauseAfter time.Duration, onNonces bool) {
	c := newCluster(t, options{pg: pg})
	a, rest := c.nodes[0], c.nodes[1:]
	reqs := c.requirements(a, "/paid/stop")
	payments := make([]*payment, n)
	for i := range payments {
		payments[i] = c.sign(c.chain.Buyers()[i], reqs, fmt.Sprintf("/paid/stop-%d", i))
	}
	payee0 := c.balance(c.payTo)
	nonce0 := c.waitIdle(time.Minute)
	block0 := c.head()
	conn := c.connect()

	var stoppedAt time.Time
	var pendingAtStop uint64
	when := fmt.Sprintf("%v after the burst", pauseAfter)
	stopped := make(chan struct{})
	go func() {
		start := time.Now()
		time.Sleep(pauseAfter)
		for onNonces {
			// Polled as fast as the database answers: A is paused
			// between taking its nonces and journaling or sending them.
			var taken int64
			if err := conn.QueryRow(bg, `SELECT coalesce(max(next), 0) FROM x402_nonces`).Scan(&taken); err != nil || taken >= 2 || time.Since(start) > 10*time.Second {
				when = fmt.Sprintf("%v after the burst, when A had taken %d nonces", time.Since(start).Round(time.Millisecond), taken)
				break
			}
		}
		a.pause()
		stoppedAt = time.Now()
		_, pendingAtStop, _ = c.chain.NonceAt(bg, c.chain.Signer().Address)
		close(stopped)
	}()
	// The first requests, all to A, give up after 4 s.
	first := burst(payments, func(int) *instance { return a }, 4*time.Second)
	<-stopped
	t.Logf("paused A (SIGSTOP) %s; first answers:%s", when, fmtCounts(counts(first)))

	final, tries, _ := retryElsewhere(first, payments, rest)
	t.Logf("while A is paused: every retried payment answered %v after the pause; B and C took over %d of A's settlements; the signer had broadcast %d transactions when A was paused",
		time.Since(stoppedAt).Round(time.Millisecond),
		rest[0].loggedInts("took over the pending settlements", "settlements")+rest[1].loggedInts("took over the pending settlements", "settlements"),
		pendingAtStop-nonce0)
	for i, f := range final {
		if f.status != http.StatusOK || string(f.body) != "content "+payments[i].path+" tx="+f.txHash() {
			var hist []string
			for _, a := range tries[i] {
				hist = append(hist, fmt.Sprintf("+%v %s: %s", a.sent.Sub(stoppedAt).Round(time.Millisecond), a.node, a.kind()))
			}
			t.Errorf("payment %d: not delivered (used on chain: %v); its answers since the pause:\n\t%s", i, c.used(payments[i]), strings.Join(hist, "\n\t"))
		}
	}
	if wait := 8500*time.Millisecond - time.Since(stoppedAt); wait > 0 {
		time.Sleep(wait)
	}
	pausedFor := time.Since(stoppedAt)
	a.resume()
	t.Logf("resumed A after %v", pausedFor.Round(time.Millisecond))

	// A notices that its lease ran out and takes a new one.
	deadline := time.Now().Add(30 * time.Second)
	for a.logCount("had run out") == 0 {
		if time.Now().After(deadline) {
			t.Fatal(`A's log does not say its lease "had run out" within 30 s of SIGCONT`)
		}
		time.Sleep(100 * time.Millisecond)
	}
	// And serves new payments.
	fresh := c.sign(c.chain.Buyers()[0], reqs, "/paid/stop-after")
	all := deliver(fresh, []*instance{a}, time.Now().Add(30*time.Second), 0)
	if got := all[len(all)-1]; got.status != http.StatusOK || string(got.body) != "content /paid/stop-after tx="+got.txHash() {
		t.Errorf("a new payment on A after it resumed: %v, want 200", all)
	} else if len(all) > 1 {
		t.Logf("a new payment on A after it resumed: %d answers before the 200: %v", len(all)-1, all[:len(all)-1])
	}

	// Whatever A had in hand is mined by now, or never sent.
	nonce1 := c.waitIdle(2 * time.Minute)
	l := c.scan(block0+1, c.head())
	l.check(t)
	want := append(append([]*payment{}, payments...), fresh)
	for _, p := range want {
		if !c.used(p) || len(l.byAuth[p.key()]) != 1 {
			t.Errorf("%s: used on chain %v, in %d transactions; want used, in one", p.path, c.used(p), len(l.byAuth[p.key()]))
		}
	}
	if len(l.byAuth) != len(want) || l.transfers != len(want) {
		t.Errorf("chain: %d transfers of %d authorizations, want %d of %d", l.transfers, len(l.byAuth), len(want), len(want))
	}
	if d := delta(payee0, c.balance(c.payTo)); d != int64(len(l.byAuth))*price {
		t.Errorf("payee's balance rose by %d, want %d × %d", d, len(l.byAuth), price)
	}
	if got := uint64(len(l.txs)); nonce1-nonce0 != got {
		t.Errorf("the signer's nonce rose by %d, but %d of its transactions were mined", nonce1-nonce0, got)
	}
	for i, p := range payments {
		if runs := c.up.runs(p.path); runs != 1 {
			t.Errorf("payment %d: the upstream ran %d times, want once", i, runs)
		}
		// The journal still says settled for what the buyer got.
		if tx := final[i].txHash(); final[i].status == http.StatusOK {
			for _, in := range rest {
				if status, ans := in.settlement(tx); status != "settled" {
					t.Errorf("payment %d: %s's /v2/x402/settlements/%s: %v, want status settled", i, in.name, tx, ans)
				}
			}
		}
	}
	t.Logf("signer: nonce %d → %d: %d transfers, %d fills", nonce0, nonce1, l.transfers, l.fills)
}

// TestPostgresDown: PostgreSQL is stopped in the middle of a burst of
// paid requests over three instances (one every 25 ms for 1.5 s), and
// started again some seconds later. Meanwhile: every answer is a 200, or
// 503 with Retry-After 2 and the payment store's text (or, for a payment
// that settled and could not be recorded, its own 503 text, and any
// pending or 500 answer is reported and must resolve later); the free
// route answers 200 on every instance; a new paid request on each
// instance answers 503 "the payment store cannot be reached ..."; the
// signer broadcasts nothing (its nonce stays). Once PostgreSQL is back,
// paid requests succeed again on all three instances without restarting
// them, every payment of the test is eventually delivered once with the
// same header, and the balances are exact.
func TestPostgresDown(t *testing.T) {
	if noSharedStore {
		t.Skip("there is no shared store to stop")
	}
	pg := pgtest.Start(t)
	c := newCluster(t, options{pg: pg})
	const n = 60
	reqs := c.requirements(c.nodes[0], "/paid/down")
	payments := make([]*payment, n)
	for i := range payments {
		payments[i] = c.sign(c.chain.Buyers()[i%20], reqs, fmt.Sprintf("/paid/down-%d", i))
	}
	payee0 := c.balance(c.payTo)
	nonce0 := c.waitIdle(time.Minute)
	block0 := c.head()

	first := make([]answer, n)
	var wg sync.WaitGroup
	for i, p := range payments {
		wg.Add(1)
		go func() {
			defer wg.Done()
			time.Sleep(time.Duration(i) * 25 * time.Millisecond)
			first[i] = c.nodes[i%3].pay(p, 0)
		}()
	}
	time.Sleep(500 * time.Millisecond)
	pg.Stop(t)
	downAt := time.Now()
	wg.Wait()
	t.Logf("PostgreSQL stopped 500 ms into the burst; the answers:%s", fmtCounts(counts(first)))
	unresolved := 0
	for i, a := range first {
		j := a.json()
		switch {
		case a.status == http.StatusOK:
			if string(a.body) != "content "+payments[i].path+" tx="+a.txHash() {
				t.Errorf("payment %d: %v, want its content", i, a)
			}
		case a.status == http.StatusServiceUnavailable && j.Error == textStoreDown && a.header.Get("Retry-After") == "2":
		case a.status == http.StatusServiceUnavailable && j.Error == textPaidUnrecorded && a.header.Get("Retry-After") == "2" && len(j.TxHash) == 66:
			unresolved++ // settled, not recorded: the same header delivers it later
		case a.status == http.StatusServiceUnavailable && (j.Error == textStoreNotSettled || j.Error == textStoreNotConfirmed) && a.header.Get("Retry-After") == "2":
			unresolved++ // the store failed at the settle or at an earlier attempt's look-up: the same header later
		case a.status == http.StatusPaymentRequired && j.Error == textPending, a.status == http.StatusInternalServerError:
			unresolved++
			t.Logf("payment %d: answered while PostgreSQL stopped: %v", i, a)
		default:
			t.Errorf("payment %d: %v, want 200 or 503 %q with Retry-After 2", i, a, textStoreDown)
		}
	}

	// While it is down: free routes are served, paid ones refused with
	// 503, and nothing is broadcast.
	for _, in := range c.nodes {
		if a := in.get("/free", nil, 10*time.Second); a.status != http.StatusOK || string(a.body) != "ok" {
			t.Errorf("%s /free while PostgreSQL is down: %v", in.name, a)
		}
	}
	nonceDown := c.waitIdle(time.Minute)
	outage := make([]*payment, len(c.nodes))
	for i, in := range c.nodes {
		outage[i] = c.sign(c.chain.Buyers()[i], reqs, "/paid/down-outage-"+in.name)
		for range 3 {
			a := in.pay(outage[i], 30*time.Second)
			if a.status != http.StatusServiceUnavailable || a.json().Error != textStoreDown || a.header.Get("Retry-After") != "2" ||
				!strings.Contains(string(a.body), `"retryAfterSeconds":2`) {
				t.Errorf("%s, a new payment while PostgreSQL is down: %v\nwant 503 %q, Retry-After 2", in.name, a, textStoreDown)
			}
			time.Sleep(500 * time.Millisecond)
		}
	}
	time.Sleep(2 * time.Second)
	if latest, pending := c.nonces(); latest != nonceDown || pending != nonceDown {
		t.Errorf("the signer's nonce moved while PostgreSQL was down: %d → latest %d, pending %d", nonceDown, latest, pending)
	}
	t.Logf("PostgreSQL down for %v; the signer's nonce stayed at %d", time.Since(downAt).Round(time.Millisecond), nonceDown)

	pg.Restart(t)
	upAt := time.Now()
	// Each instance serves its outage payment (the same header again),
	// all three at once.
	recovered := make([]string, len(c.nodes))
	for i, in := range c.nodes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			all := deliver(outage[i], []*instance{in}, time.Now().Add(time.Minute), 0)
			got := all[len(all)-1]
			if got.status != http.StatusOK || string(got.body) != "content "+outage[i].path+" tx="+got.txHash() {
				t.Errorf("%s after PostgreSQL is back: %v", in.name, all)
				return
			}
			var tries []string
			for _, a := range all {
				tries = append(tries, fmt.Sprintf("+%v→+%v %s", a.sent.Sub(upAt).Round(time.Millisecond), a.at.Sub(upAt).Round(time.Millisecond), a.kind()))
			}
			recovered[i] = fmt.Sprintf("%s: %s", in.name, strings.Join(tries, ", "))
		}()
	}
	wg.Wait()
	t.Logf("PostgreSQL back: the instances serve paid requests again (times since the restart):\n\t%s", strings.Join(recovered, "\n\t"))
	if debug {
		for _, in := range c.nodes {
			for _, l := range strings.Split(in.log(), "\n") {
				if strings.Contains(l, "sending the settlement failed") || strings.Contains(l, "lease") {
					t.Logf("%s: %s", in.name, l)
				}
			}
		}
	}

	// Every payment of the burst is delivered in the end, once.
	for i, a := range first {
		if a.status == http.StatusOK {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			all := deliver(payments[i], c.nodes, time.Now().Add(time.Minute), 0)
			if got := all[len(all)-1]; got.status != http.StatusOK || string(got.body) != "content "+payments[i].path+" tx="+got.txHash() {
				t.Errorf("payment %d (first %v) sent again after PostgreSQL is back: %v", i, a, all)
			}
		}()
	}
	wg.Wait()
	if unresolved > 0 {
		t.Logf("%d payments were answered neither 200 nor 503 store-down during the outage (settled but not recorded, pending or 500); each was delivered once when sent again", unresolved)
	}
	nonce1 := c.waitIdle(2 * time.Minute)
	l := c.scan(block0+1, c.head())
	l.check(t)
	all := append(append([]*payment{}, payments...), outage...)
	for _, p := range all {
		if !c.used(p) || c.up.runs(p.path) != 1 {
			t.Errorf("%s: used on chain %v, upstream ran %d times; want used, once", p.path, c.used(p), c.up.runs(p.path))
		}
	}
	if d := delta(payee0, c.balance(c.payTo)); d != int64(len(all))*price || l.transfers != len(all) {
		t.Errorf("payee's balance rose by %d with %d transfers, want %d × %d", d, l.transfers, len(all), price)
	}
	if got := uint64(len(l.txs)); nonce1-nonce0 != got {
		t.Errorf("the signer's nonce rose by %d, but %d of its transactions were mined", nonce1-nonce0, got)
	}
	t.Logf("signer: nonce %d → %d: %d transfers, %d fills", nonce0, nonce1, l.transfers, l.fills)
}
