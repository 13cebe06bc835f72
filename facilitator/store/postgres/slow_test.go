package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/caddy-x402/caddy-x402/facilitator/store"
	"github.com/caddy-x402/caddy-x402/facilitator/store/postgres"
	"github.com/caddy-x402/caddy-x402/facilitator/store/storetest"
	"github.com/caddy-x402/caddy-x402/internal/pgtest"
	"github.com/caddy-x402/caddy-x402/internal/tcpproxy"
)

// slowPG opens the store on a fresh database through a TCP proxy that
// the test slows (the store opens undelayed), and returns it with the
// proxy and the database's direct connection string.
func slowPG(t *testing.T, opts postgres.Options) (*postgres.Store, *tcpproxy.Proxy, string) {
	t.Helper()
	srv := pgtest.Shared(t)
	direct := srv.DSN(t)
	px, err := tcpproxy.Start(fmt.Sprintf("127.0.0.1:%d", srv.Port()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { px.Close() })
	dsn := strings.Replace(direct, fmt.Sprintf("127.0.0.1:%d/", srv.Port()), px.Addr()+"/", 1)
	p, err := postgres.Open(context.Background(), dsn, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p, px, direct
}

// leaseRow reads the instance's lease from the database directly: how
// long it still holds by the database's clock (negative: ran out).
func leaseRow(t *testing.T, direct, instance string) time.Duration {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, direct)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var ms float64
	if err := conn.QueryRow(ctx, `SELECT extract(epoch FROM expires_at - clock_timestamp()) * 1000 FROM x402_instances WHERE id = $1`,
		instance).Scan(&ms); err != nil {
		t.Fatalf("the lease row of %s: %v", instance, err)
	}
	return time.Duration(ms) * time.Millisecond
}

// TestPostgresSlowLease: a store whose round trips take 0.6 s (a proxy
// holding each direction 300 ms) keeps a 2 s lease, idle and while every
// pooled connection is taken by slow statements: the instance's lease
// holds at every look (Live), its identity stays, and its row in the
// database never runs out. The lease is renewed on a connection of its
// own, each renewal given the lease: renewed through the pool within half
// the lease, as it was, it ran out at once and for good (a renewal needs a
// connection, a prepared statement and the statement, 1.8 s; the budget
// was 1 s, and a renewal cut short costs the connection).
func TestPostgresSlowLease(t *testing.T) {
	t.Parallel()
	const lease = 2 * time.Second
	p, px, direct := slowPG(t, postgres.Options{Lease: lease, MaxConns: 2})
	id := p.Instance()
	px.SetDelay(300*time.Millisecond, 300*time.Millisecond)

	// Slow statements keep both pooled connections busy in the second
	// half.
	stop := make(chan struct{})
	var wg sync.WaitGroup
	busy := func() {
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			if _, err := p.Redemptions().Get(fmt.Sprintf("busy-%d", i)); err != nil {
				t.Errorf("a statement through the slow store: %v", err)
				return
			}
		}
	}
	notLive, looks, busied := 0, 0, false
	start := time.Now()
	for since := time.Duration(0); since < 4*lease; since = time.Since(start) {
		if since > 2*lease && !busied {
			busied = true
			for range 4 {
				wg.Go(busy)
			}
		}
		looks++
		if !p.Live() {
			notLive++
		}
		if p.Instance() != id {
			t.Fatalf("after %v the instance is %s, was %s: its lease ran out and it registered anew", since.Round(time.Millisecond), p.Instance(), id)
		}
		time.Sleep(10 * time.Millisecond)
	}
	close(stop)
	wg.Wait()
	if notLive > 0 {
		t.Errorf("the lease did not hold at %d of %d looks over %v with a 0.6 s round trip", notLive, looks, 4*lease)
	}
	px.SetDelay(0, 0)
	if left := leaseRow(t, direct, id); left <= 0 {
		t.Errorf("the lease row ran out %v ago", -left)
	}
}

// TestPostgresSlowStatements: with a 2 s round trip (1 s each way) every
// kind of statement of a fresh store, each on a new connection, answers
// (a new connection and the statement: 4 s), many at once: each goes in
// one round trip (nothing to prepare per connection) within twice the
// lease (10 s by default). A longer lease, for a slower store, gives the
// statements (and new connections) more: at a 3 s round trip with an 8 s
// lease each takes 6 s, past the fixed 5 s they had.
func TestPostgresSlowStatements(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		lease time.Duration
		each  time.Duration
	}{
		{"2 s round trip, default lease", 0, time.Second},
		{"3 s round trip, 8 s lease", 8 * time.Second, 1500 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p, px, _ := slowPG(t, postgres.Options{Lease: tc.lease})
			p.Pool().Reset() // every statement below on a new connection
			px.SetDelay(tc.each, tc.each)
			slowStatements(t, p)
		})
	}
}

// slowStatements runs every kind of statement of the store at once and
// fails the test for each error.
func slowStatements(t *testing.T, p *postgres.Store) {
	ctx := context.Background()
	j, rd, cl := p.Journal(), p.Redemptions(), p.Claims()
	now := time.Now().UTC()
	calls := []struct {
		name string
		do   func() error
	}{
		{"redemption put", func() error {
			return rd.Put("r1", &store.Redemption{Route: "r", State: store.RedeemSettling, PaymentID: "pid-1"})
		}},
		{"redemption get", func() error { _, err := rd.Get("r2"); return err }},
		{"payment id", func() error { _, _, err := rd.ByPaymentID("pid-2"); return err }},
		{"claim", func() error { _, err := cl.Claim(ctx, "k1"); return err }},
		{"journal put", func() error {
			return j.Put(&store.Record{ID: "net/0xa/0x01", Network: "net", Signer: "0xS", TxNonce: 1, Status: store.StatusPending, CreatedAt: now, UpdatedAt: now,
				Txs: []store.JournalTx{{Hash: "0x01", Raw: "0x01"}}})
		}},
		{"journal by tx", func() error {
			if _, err := j.ByTx("0x02"); !errors.Is(err, store.ErrNotFound) {
				return err
			}
			return nil
		}},
		{"hold", func() error { _, err := j.HoldSettlement(ctx, "net/0xb/0x01"); return err }},
		{"nonces", func() error { _, err := j.Nonces(ctx, "338", "0xs", 5, 2); return err }},
		{"take over", func() error { _, err := j.TakeOver(ctx, []string{"net"}); return err }},
	}
	errs := make([]error, len(calls))
	took := make([]time.Duration, len(calls))
	var wg sync.WaitGroup
	for i, c := range calls {
		wg.Go(func() {
			start := time.Now()
			errs[i] = c.do()
			took[i] = time.Since(start)
		})
	}
	wg.Wait()
	for i, c := range calls {
		if errs[i] != nil {
			t.Errorf("%s: %v (after %v)", c.name, errs[i], took[i].Round(time.Millisecond))
		}
	}
	if !p.Live() {
		t.Error("the lease does not hold")
	}
}

// TestPostgresUnavailable: an error that is not the database's answer
// (nothing listens, or the budget ran out) carries ErrUnavailable; the
// database's own answers do not (a payment id bound elsewhere, a fenced
// write, a record followed elsewhere).
func TestPostgresUnavailable(t *testing.T) {
	p, px, _ := slowPG(t, postgres.Options{})
	rd, j := p.Redemptions(), p.Journal()
	now := time.Now().UTC()
	rec := &store.Record{ID: "net/0xa/0x01", Network: "net", Signer: "0xS", TxNonce: 1, Status: store.StatusSettled, CreatedAt: now, UpdatedAt: now}
	if err := rd.Put("a", &store.Redemption{Route: "r", State: store.RedeemSettling, PaymentID: "pid"}); err != nil {
		t.Fatal(err)
	}
	if err := j.Put(rec); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		err  error
		want error
	}{
		{"payment id bound elsewhere", rd.Put("b", &store.Redemption{Route: "r", State: store.RedeemSettling, PaymentID: "pid"}), store.ErrPaymentIDTaken},
		{"settled record written again", j.Put(rec), store.ErrFollowedElsewhere},
	} {
		if !errors.Is(tc.err, tc.want) || errors.Is(tc.err, store.ErrUnavailable) {
			t.Errorf("%s: %v, want %v and not ErrUnavailable", tc.name, tc.err, tc.want)
		}
	}
	px.Close() // the store's connections are cut, and nothing listens
	_, err := rd.Get("a")
	if !errors.Is(err, store.ErrUnavailable) {
		t.Errorf("a read with the database out of reach: %v, want ErrUnavailable", err)
	}
	if _, err := j.Nonces(context.Background(), "338", "0xs", 0, 1); !errors.Is(err, store.ErrUnavailable) {
		t.Errorf("nonces with the database out of reach: %v, want ErrUnavailable", err)
	}
}

// TestPostgresRoundTrips: each call of the store is one round trip to
// the database (counted by the proxy, Exchanges), the first of its kind on
// a connection too (nothing to prepare: pgx's default prepared each
// statement first, a round trip more; but for a voucher's charge, prepared
// on a connection's first charge, chargeMode), a take-over too (it was six: a
// transaction of four statements), and a connection idle for more than a
// second is used without a ping first (pgx's default pinged it, a round
// trip more).
func TestPostgresRoundTrips(t *testing.T) {
	t.Parallel()
	// A long lease: no renewal while the calls are counted.
	p, px, _ := slowPG(t, postgres.Options{Lease: time.Minute, MaxConns: 1})
	ctx := context.Background()
	j, rd, cl := p.Journal(), p.Redemptions(), p.Claims()
	ch := rd
	now := time.Now().UTC()
	if _, err := rd.Get("warm"); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		idle time.Duration // before the call
		do   func() error
	}{
		{"redemption get", 0, func() error { _, err := rd.Get("a"); return err }},
		{"redemption put", 0, func() error { return rd.Put("a", &store.Redemption{Route: "r", State: store.RedeemSettling}) }},
		{"redemption put again", 0, func() error { return rd.Put("b", &store.Redemption{Route: "r", State: store.RedeemPaid}) }},
		{"claim", 0, func() error { _, err := cl.Claim(ctx, "k"); return err }},
		{"journal put", 0, func() error {
			return j.Put(&store.Record{ID: "net/0xa/0x01", Network: "net", Signer: "0xS", TxNonce: 1, Status: store.StatusPending, CreatedAt: now, UpdatedAt: now})
		}},
		{"hold", 0, func() error { _, err := j.HoldSettlement(ctx, "net/0xb/0x01"); return err }},
		{"nonces", 0, func() error { _, err := j.Nonces(ctx, "338", "0xs", 5, 2); return err }},
		{"take over", 0, func() error { _, err := j.TakeOver(ctx, []string{"net"}); return err }},
		{"channel sync", 0, func() error {
			_, err := ch.Sync(ctx, storetest.ChannelID(1), "net", storetest.ChannelCfg(), store.ChainState{Balance: big.NewInt(100), Claimed: new(big.Int), Block: 1})
			return err
		}},
		{"channel charge, the first on the connection", 0, func() error {
			_, err := ch.Charge(ctx, storetest.ChannelID(1), new(big.Int), big.NewInt(10), storetest.Voucher(big.NewInt(10)))
			return err
		}},
		{"channel charge", 0, func() error {
			_, err := ch.Charge(ctx, storetest.ChannelID(1), big.NewInt(10), big.NewInt(20), storetest.Voucher(big.NewInt(20)))
			return err
		}},
		{"redemption get after 1.5 s idle", 1500 * time.Millisecond, func() error { _, err := rd.Get("c"); return err }},
	} {
		time.Sleep(tc.idle)
		before := px.Exchanges()
		if err := tc.do(); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		want := int64(1)
		if strings.HasSuffix(tc.name, "the first on the connection") {
			want = 2 // the charge statement is prepared on it first (chargeMode)
		}
		if n := px.Exchanges() - before; n != want {
			t.Errorf("%s: %d round trips, want %d", tc.name, n, want)
		}
	}
}
