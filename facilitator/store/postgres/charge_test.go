package postgres

import (
	"context"
	"errors"
	"math/big"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/caddy-x402/caddy-x402/facilitator/store"
	"github.com/caddy-x402/caddy-x402/facilitator/store/storetest"
	"github.com/caddy-x402/caddy-x402/internal/pgtest"
)

// openGroupTest opens a store on dsn with channels 1..8 of balance 1000
// (channel 7 closed) and channels 90 and on, one per flight, the ones the
// blocker locks.
func openGroupTest(t *testing.T, dsn string) *Channels {
	t.Helper()
	p, err := Open(context.Background(), dsn, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	s := p.redemptions.Channels
	for _, n := range append([]int{1, 2, 3, 4, 5, 6, 7, 8}, flightHolders()...) {
		if _, err := s.Sync(context.Background(), storetest.ChannelID(n), "net", storetest.ChannelCfg(),
			store.ChainState{Balance: big.NewInt(1000), Claimed: new(big.Int), Block: 1}); err != nil {
			t.Fatal(err)
		}
	}
	if ok, err := s.SetChannelState(context.Background(), storetest.ChannelID(7), store.ChannelOpen, store.ChannelClosed); !ok || err != nil {
		t.Fatalf("closing channel 7: %v, %v", ok, err)
	}
	return s
}

// flightHolders are the channels whose charges hold the flights.
func flightHolders() []int {
	var out []int
	for i := range chargeFlights {
		out = append(out, 90+i)
	}
	return out
}

// lockRows holds row locks on the channels ns in a transaction of its own
// until the returned func ends it: a charge of one of them waits.
func lockRows(t *testing.T, dsn string, ns ...int) func() {
	t.Helper()
	ids := make([]any, len(ns))
	for i, n := range ns {
		ids[i] = storetest.ChannelID(n)
	}
	return holdRowLocks(t, dsn, `SELECT 1 FROM x402_channels WHERE id = $1 FOR UPDATE`, ids...)
}

// holdRowLocks runs lockSQL (a SELECT … FOR UPDATE of $1) for each of args
// in a transaction of its own connection and holds the row locks until the
// returned func ends it.
func holdRowLocks(t *testing.T, dsn, lockSQL string, args ...any) func() {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range args {
		if _, err := tx.Exec(ctx, lockSQL, a); err != nil {
			t.Fatal(err)
		}
	}
	return func() { tx.Rollback(ctx); conn.Close(ctx) }
}

// await polls cond until it holds (a lock wait seen in pg_stat_activity,
// charges queued); it fails the test after a minute.
func await(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(time.Minute); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("waited a minute for %s", what)
		}
	}
}

// lockWaits counts the statements waiting for a row lock.
func lockWaits(t *testing.T, s *Channels) int {
	var n int
	if err := s.p.pool.QueryRow(context.Background(), `SELECT count(*) FROM pg_stat_activity
		WHERE datname = current_database() AND wait_event_type = 'Lock'`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func (q *chargeQueue) queued() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.waiting)
}

// groupCharge is one charge of a group and what it must answer.
type groupCharge struct {
	ch            int
	prev, charged int64
	err           error // nil: taken
	// the record answered (after the charge, or the current one for
	// the corrective 402): charged and the voucher's max (0: none);
	// none at all for ErrChannelNotFound
	recCharged, recMax int64
	state              string
}

// TestPostgresChargeGroups: charges that wait while every flight is
// taken go as one group, one statement, and each gets its own answer, as a
// lone charge would: its own conditional check, the record after it, or,
// refused, the current record exact for the corrective 402. A channel
// charged twice in the queue has its second charge sent in the group after
// the first's, which it sees (in the order they came). The flights are
// held by charges of the channels from 90 on (flightHolders), whose rows
// another transaction locks until the group is queued whole.
func TestPostgresChargeGroups(t *testing.T) {
	srv := pgtest.Shared(t)
	taken := func(ch int, prev, charged int64) groupCharge {
		return groupCharge{ch: ch, prev: prev, charged: charged, recCharged: charged, recMax: charged, state: store.ChannelOpen}
	}
	for _, tc := range []struct {
		name    string
		charges []groupCharge
	}{
		{"many channels", []groupCharge{taken(1, 0, 5), taken(2, 0, 7), taken(3, 0, 1000), taken(4, 0, 1), taken(5, 0, 2), taken(6, 0, 3), taken(8, 0, 9)}},
		{"one channel twice in order", []groupCharge{taken(1, 0, 3), taken(2, 0, 4), taken(1, 3, 7)}},
		{"one channel twice from one state", []groupCharge{taken(1, 0, 4),
			{ch: 1, prev: 0, charged: 6, err: store.ErrChannelConflict, recCharged: 4, recMax: 4, state: store.ChannelOpen}}},
		{"refused among taken", []groupCharge{
			taken(1, 0, 5),
			{ch: 2, prev: 0, charged: 1001, err: store.ErrChannelBalance, state: store.ChannelOpen},
			{ch: 3, prev: 9, charged: 12, err: store.ErrChannelConflict, state: store.ChannelOpen},
			{ch: 7, prev: 0, charged: 1, err: store.ErrChannelNotOpen, state: store.ChannelClosed},
			{ch: 77, prev: 0, charged: 1, err: store.ErrChannelNotFound},
			taken(8, 0, 1000),
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dsn := srv.DSN(t)
			s := openGroupTest(t, dsn)
			ctx := context.Background()
			unlock := lockRows(t, dsn, flightHolders()...)
			defer unlock()
			flights := make(chan error, chargeFlights)
			for i, n := range flightHolders() { // one flight each, all held
				go func() {
					_, err := s.Charge(ctx, storetest.ChannelID(n), new(big.Int), big.NewInt(1), storetest.Voucher(big.NewInt(1)))
					flights <- err
				}()
				await(t, "a flight to wait for its lock", func() bool { return lockWaits(t, s) == i+1 })
			}
			type answer struct {
				c   *store.Channel
				err error
			}
			answers := make([]chan answer, len(tc.charges))
			for i, gc := range tc.charges {
				answers[i] = make(chan answer, 1)
				go func() {
					c, err := s.Charge(ctx, storetest.ChannelID(gc.ch), big.NewInt(gc.prev), big.NewInt(gc.charged), storetest.Voucher(big.NewInt(gc.charged)))
					answers[i] <- answer{c, err}
				}()
				await(t, "the charge to queue", func() bool { return s.charges.queued() == i+1 })
			}
			unlock() // the flights go on, and the queue goes as one group
			for range chargeFlights {
				if err := <-flights; err != nil {
					t.Errorf("a charge holding a flight: %v", err)
				}
			}
			for i, gc := range tc.charges {
				a := <-answers[i]
				if !errors.Is(a.err, gc.err) || (gc.err == nil) != (a.err == nil) {
					t.Errorf("charge %d (channel %d, %d to %d): %v, want %v", i, gc.ch, gc.prev, gc.charged, a.err, gc.err)
				}
				if gc.err == store.ErrChannelNotFound {
					if a.c != nil {
						t.Errorf("charge %d: a record %+v for a channel that has none", i, a.c)
					}
					continue
				}
				checkRecord(t, i, gc, a.c)
			}
			if n := s.charges.queued(); n != 0 {
				t.Errorf("%d charges left in the queue", n)
			}
		})
	}
}

// checkRecord compares a record answered with what gc says.
func checkRecord(t *testing.T, i int, gc groupCharge, c *store.Channel) {
	t.Helper()
	if c == nil {
		t.Errorf("charge %d: no record", i)
		return
	}
	wantMax, wantSig := (*big.Int)(nil), ""
	if gc.recMax > 0 {
		wantMax, wantSig = big.NewInt(gc.recMax), "sig:"+big.NewInt(gc.recMax).String()
	}
	if c.ID != storetest.ChannelID(gc.ch) || c.Charged.Cmp(big.NewInt(gc.recCharged)) != 0 || c.Balance.Cmp(big.NewInt(1000)) != 0 ||
		c.Claimed.Sign() != 0 || c.State != gc.state || (wantMax == nil) != (c.VoucherMax == nil) ||
		(wantMax != nil && c.VoucherMax.Cmp(wantMax) != 0) || string(c.VoucherSignature) != wantSig {
		t.Errorf("charge %d: record %s charged %s voucher %v %q balance %s claimed %s %s; want %s charged %d voucher %v %q balance 1000 claimed 0 %s",
			i, c.ID, c.Charged, c.VoucherMax, c.VoucherSignature, c.Balance, c.Claimed, c.State,
			storetest.ChannelID(gc.ch), gc.recCharged, wantMax, wantSig, gc.state)
	}
}

// TestPostgresChargeGroupStopped: PostgreSQL stopped while a group's
// statement is in flight, half of it written (channels 1 and 2 charged,
// the statement waiting for channel 90's row lock): every charge of the
// group answers ErrUnavailable, and after the restart none of them is
// written.
func TestPostgresChargeGroupStopped(t *testing.T) {
	srv := pgtest.Start(t)
	dsn := srv.DSN(t)
	s := openGroupTest(t, dsn)
	unlock := lockRows(t, dsn, 90)
	g := []*queuedCharge{}
	for _, n := range []int{1, 2, 90} {
		g = append(g, &queuedCharge{key: storetest.ChannelID(n), prev: new(big.Int), charged: big.NewInt(5),
			v: storetest.Voucher(big.NewInt(5)), done: make(chan struct{})})
	}
	sent := make(chan struct{})
	go func() { s.chargeGroup(g); close(sent) }()
	await(t, "the group to wait for channel 90's lock", func() bool { return lockWaits(t, s) == 1 })
	srv.Stop(t)
	<-sent
	unlock()
	for i, qc := range g {
		if !errors.Is(qc.err, store.ErrUnavailable) || qc.c != nil {
			t.Errorf("charge %d of the group: %+v, %v; want ErrUnavailable and no record", i, qc.c, qc.err)
		}
	}
	srv.Restart(t)
	p2, err := Open(context.Background(), dsn, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer p2.Close()
	for _, n := range []int{1, 2, 90} {
		c, err := p2.redemptions.Channel(context.Background(), storetest.ChannelID(n))
		if err != nil || c == nil || c.Charged.Sign() != 0 || c.VoucherMax != nil {
			t.Errorf("channel %d after the restart: %+v, %v; want charged 0, no voucher", n, c, err)
		}
	}
}

// TestPostgresChargeQueuedCancelled: a charge whose ctx ends while it
// waits in the queue (every flight held) answers ErrUnavailable and is
// never sent: after the flights land, its channel is not charged, and the
// charge queued behind it on another channel is.
func TestPostgresChargeQueuedCancelled(t *testing.T) {
	srv := pgtest.Shared(t)
	dsn := srv.DSN(t)
	s := openGroupTest(t, dsn)
	bg := context.Background()
	unlock := lockRows(t, dsn, flightHolders()...)
	defer unlock()
	flights := make(chan error, chargeFlights)
	for i, n := range flightHolders() {
		go func() {
			_, err := s.Charge(bg, storetest.ChannelID(n), new(big.Int), big.NewInt(1), storetest.Voucher(big.NewInt(1)))
			flights <- err
		}()
		await(t, "a flight to wait for its lock", func() bool { return lockWaits(t, s) == i+1 })
	}
	ctx, cancel := context.WithCancel(bg)
	cancelled := make(chan error, 1)
	go func() {
		_, err := s.Charge(ctx, storetest.ChannelID(1), new(big.Int), big.NewInt(5), storetest.Voucher(big.NewInt(5)))
		cancelled <- err
	}()
	await(t, "the charge to queue", func() bool { return s.charges.queued() == 1 })
	other := make(chan error, 1)
	go func() {
		_, err := s.Charge(bg, storetest.ChannelID(2), new(big.Int), big.NewInt(5), storetest.Voucher(big.NewInt(5)))
		other <- err
	}()
	await(t, "the second charge to queue", func() bool { return s.charges.queued() == 2 })
	cancel()
	if err := <-cancelled; !errors.Is(err, store.ErrUnavailable) || !errors.Is(err, context.Canceled) {
		t.Errorf("the cancelled charge: %v, want ErrUnavailable (context canceled)", err)
	}
	if n := s.charges.queued(); n != 1 {
		t.Errorf("%d charges queued after the cancel, want 1", n)
	}
	unlock()
	for range chargeFlights {
		if err := <-flights; err != nil {
			t.Errorf("a charge holding a flight: %v", err)
		}
	}
	if err := <-other; err != nil {
		t.Errorf("the charge queued behind the cancelled one: %v", err)
	}
	for n, want := range map[int]int64{1: 0, 2: 5} {
		if c, err := s.Channel(bg, storetest.ChannelID(n)); err != nil || c.Charged.Cmp(big.NewInt(want)) != 0 {
			t.Errorf("channel %d: %+v, %v; want charged %d", n, c, err, want)
		}
	}
}

// TestChargeQueueTake: which waiting charges a group takes (one per
// channel, none of a channel a group in flight holds, at most
// maxChargeGroup, in the order they came) and what stays for the next;
// landed frees the group's channels and says whether one that stayed may
// go now.
func TestChargeQueueTake(t *testing.T) {
	many := make([]int, maxChargeGroup+3)
	for i := range many {
		many[i] = i + 1
	}
	for _, tc := range []struct {
		name         string
		busy, queued []int
		taken, left  []int
		goesAfter    bool // landed(the group) says a waiting charge may go
	}{
		{"distinct channels", nil, []int{3, 1, 2}, []int{3, 1, 2}, nil, false},
		{"one channel twice", nil, []int{1, 2, 1, 3, 1}, []int{1, 2, 3}, []int{1, 1}, true},
		{"a channel in flight", []int{2}, []int{1, 2, 3}, []int{1, 3}, []int{2}, false},
		{"more than a group", nil, many, many[:maxChargeGroup], many[maxChargeGroup:], true},
		{"nothing to take", []int{1}, []int{1, 1}, nil, []int{1, 1}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := &chargeQueue{busy: map[string]bool{}, inFlight: 1}
			for _, n := range tc.busy {
				q.busy[storetest.ChannelID(n)] = true
			}
			for _, n := range tc.queued {
				q.waiting = append(q.waiting, &queuedCharge{key: storetest.ChannelID(n)})
			}
			keys := func(qs []*queuedCharge) []string {
				var out []string
				for _, qc := range qs {
					out = append(out, qc.key)
				}
				return out
			}
			ids := func(ns []int) []string {
				var out []string
				for _, n := range ns {
					out = append(out, storetest.ChannelID(n))
				}
				return out
			}
			g := q.take()
			if !slices.Equal(keys(g), ids(tc.taken)) || !slices.Equal(keys(q.waiting), ids(tc.left)) {
				t.Fatalf("took %v, left %v; want %v, %v", keys(g), keys(q.waiting), ids(tc.taken), ids(tc.left))
			}
			for _, qc := range g {
				if !qc.taken || !q.busy[qc.key] {
					t.Errorf("%s taken %v, busy %v", qc.key, qc.taken, q.busy[qc.key])
				}
			}
			if got := q.landed(g); got != tc.goesAfter {
				t.Errorf("landed: %v, want %v", got, tc.goesAfter)
			}
			wantFlights := 1
			if !tc.goesAfter {
				wantFlights = 0
			}
			if q.inFlight != wantFlights || len(q.busy) != len(tc.busy) {
				t.Errorf("after landing: %d in flight, busy %v; want %d, %v", q.inFlight, q.busy, wantFlights, tc.busy)
			}
		})
	}
}

// TestChargeQueueCrowded: a group of several charges starts a crowd (a
// charge that finds the flight free then yields before it takes its
// group); crowdedGroups groups of one in a row end it, and an empty take
// changes nothing.
func TestChargeQueueCrowded(t *testing.T) {
	for _, tc := range []struct {
		name   string
		groups []int // sizes of the groups taken in turn
		want   int
	}{
		{"one buyer", []int{1, 1, 1}, 0},
		{"a group of two", []int{1, 2}, crowdedGroups},
		{"lone charges after it", []int{3, 1, 1}, crowdedGroups - 2},
		{"the crowd ends", append([]int{2}, slices.Repeat([]int{1}, crowdedGroups+2)...), 0},
		{"a crowd again", append([]int{2}, append(slices.Repeat([]int{1}, crowdedGroups), 4)...), crowdedGroups},
		{"nothing to take", []int{2, 0, 0}, crowdedGroups},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := &chargeQueue{busy: map[string]bool{}}
			for _, n := range tc.groups {
				for i := range n {
					q.waiting = append(q.waiting, &queuedCharge{key: storetest.ChannelID(i + 1)})
				}
				q.inFlight = 1
				g := q.take()
				if len(g) != n {
					t.Fatalf("took %d, want %d", len(g), n)
				}
				q.landed(g)
			}
			if q.crowded != tc.want {
				t.Errorf("crowded %d, want %d", q.crowded, tc.want)
			}
		})
	}
}

// TestPostgresChargeIsHOT: a voucher's charge writes no column an index of
// x402_channels names (migration 11), so PostgreSQL updates the row in
// place of its page (a HOT update) and writes no index entry: every one of
// 200 charges is counted as a HOT update.
func TestPostgresChargeIsHOT(t *testing.T) {
	srv := pgtest.Shared(t)
	dsn := srv.DSN(t)
	s := openGroupTest(t, dsn)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)

	rows, err := conn.Query(ctx, `SELECT pg_get_indexdef(indexrelid) FROM pg_index WHERE indrelid = 'x402_channels'::regclass ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	defs, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range defs {
		for _, col := range []string{"charged", "voucher_max", "voucher_sig", "last_activity"} {
			if strings.Contains(d, col) {
				t.Errorf("index %q names %s, which every charge writes", d, col)
			}
		}
	}

	updates := func() (upd, hot int64) {
		if _, err := conn.Exec(ctx, `SELECT pg_stat_clear_snapshot()`); err != nil {
			t.Fatal(err)
		}
		if err := conn.QueryRow(ctx, `SELECT n_tup_upd, n_tup_hot_upd FROM pg_stat_user_tables WHERE relid = 'x402_channels'::regclass`).Scan(&upd, &hot); err != nil {
			t.Fatal(err)
		}
		return upd, hot
	}
	// The set-up's one update (channel 7 closed) is counted first.
	var upd0, hot0 int64
	await(t, "the set-up's update in pg_stat_user_tables", func() bool {
		upd0, hot0 = updates()
		return upd0 >= 1
	})
	const charges = 200
	for i := range int64(charges) {
		ch := storetest.ChannelID(1 + int(i%2))
		prev, next := big.NewInt(i/2), big.NewInt(i/2+1)
		if _, err := s.Charge(ctx, ch, prev, next, storetest.Voucher(next)); err != nil {
			t.Fatalf("charge %d: %v", i, err)
		}
	}
	// The pool's connections report their counts to the statistics a
	// moment after their transactions (at most a second when idle).
	var upd, hot int64
	await(t, "the charges in pg_stat_user_tables", func() bool {
		upd, hot = updates()
		return upd-upd0 >= charges
	})
	if upd-upd0 != charges || hot-hot0 != charges {
		t.Fatalf("%d updates, %d of them HOT; want %d, all HOT", upd-upd0, hot-hot0, charges)
	}
}

// TestChargeMode: the charges go prepared unless the connection string
// chooses how statements go (a pooler without prepared statements), and
// then they go that way; charges work either way.
func TestChargeMode(t *testing.T) {
	srv := pgtest.Shared(t)
	for _, tc := range []struct {
		suffix string
		want   pgx.QueryExecMode
	}{
		{"", pgx.QueryExecModeCacheStatement},
		{"&default_query_exec_mode=simple_protocol", pgx.QueryExecModeSimpleProtocol},
		{"&default_query_exec_mode=exec", pgx.QueryExecModeExec},
	} {
		t.Run(tc.want.String(), func(t *testing.T) {
			dsn := srv.DSN(t) + tc.suffix
			s := openGroupTest(t, dsn)
			if s.p.chargeMode != tc.want {
				t.Fatalf("charge mode %v, want %v", s.p.chargeMode, tc.want)
			}
			ctx := context.Background()
			for i := range int64(3) {
				if _, err := s.Charge(ctx, storetest.ChannelID(1), big.NewInt(i), big.NewInt(i+1), storetest.Voucher(big.NewInt(i+1))); err != nil {
					t.Fatalf("charge %d: %v", i, err)
				}
			}
			c, err := s.Channel(ctx, storetest.ChannelID(1))
			if err != nil || c.Charged.Int64() != 3 {
				t.Fatalf("channel after 3 charges: %+v, %v", c, err)
			}
			// A group (the arrays of amounts) goes the same way: the
			// flight is held by a charge of channel 90, whose row is
			// locked, while charges of channels 2 and 3 queue.
			unlock := lockRows(t, dsn, 90)
			defer unlock()
			held := make(chan error, 1)
			go func() {
				_, err := s.Charge(ctx, storetest.ChannelID(90), new(big.Int), big.NewInt(1), storetest.Voucher(big.NewInt(1)))
				held <- err
			}()
			await(t, "the flight to wait for its lock", func() bool { return lockWaits(t, s) == 1 })
			grouped := make(chan error, 2)
			for i, n := range []int{2, 3} {
				go func() {
					_, err := s.Charge(ctx, storetest.ChannelID(n), new(big.Int), big.NewInt(int64(100*n)), storetest.Voucher(big.NewInt(int64(100*n))))
					grouped <- err
				}()
				await(t, "the charge to queue", func() bool { return s.charges.queued() == i+1 })
			}
			unlock()
			for _, ch := range []chan error{held, grouped, grouped} {
				if err := <-ch; err != nil {
					t.Fatalf("a charge: %v", err)
				}
			}
			for _, n := range []int{2, 3} {
				if c, err := s.Channel(ctx, storetest.ChannelID(n)); err != nil || c.Charged.Int64() != int64(100*n) || c.VoucherMax.Int64() != int64(100*n) {
					t.Fatalf("channel %d after the group: %+v, %v", n, c, err)
				}
			}
		})
	}
}
