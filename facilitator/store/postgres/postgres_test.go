package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/caddy-x402/caddy-x402/facilitator/store"
	"github.com/caddy-x402/caddy-x402/facilitator/store/memory"
	"github.com/caddy-x402/caddy-x402/facilitator/store/postgres"
	"github.com/caddy-x402/caddy-x402/facilitator/store/storetest"
	"github.com/caddy-x402/caddy-x402/internal/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// openPG opens the store on dsn as one instance, closed when the test ends.
func openPG(t testing.TB, dsn string, lease time.Duration) *postgres.Store {
	t.Helper()
	p, err := postgres.Open(context.Background(), dsn, postgres.Options{Lease: lease})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

func TestPostgres(t *testing.T) {
	srv := pgtest.Shared(t)
	storetest.Journal(t, storetest.Backend[store.Journal]{
		New: func(t testing.TB) store.Journal { return openPG(t, srv.DSN(t), 0).Journal() },
	})
	storetest.Redemptions(t, storetest.Backend[store.Redemptions]{
		New: func(t testing.TB) store.Redemptions { return openPG(t, srv.DSN(t), 0).Redemptions() },
	})
	storetest.Claims(t, func(t testing.TB) store.Claims { return openPG(t, srv.DSN(t), 0).Claims() })
	// Reopen is another instance on the same database: what one wrote,
	// every other reads.
	storetest.Grants(t, storetest.Backend[store.Grants]{
		New: func(t testing.TB) store.Grants { return openPG(t, srv.DSN(t), 0).Redemptions() },
		Reopen: func(t testing.TB, old store.Grants) store.Grants {
			return openPG(t, old.(*postgres.Redemptions).DSN(), 0).Redemptions()
		},
	})
	storetest.CoolOffs(t, storetest.Backend[store.CoolOffs]{
		New: func(t testing.TB) store.CoolOffs { return openPG(t, srv.DSN(t), 0).Journal() },
		Reopen: func(t testing.TB, old store.CoolOffs) store.CoolOffs {
			return openPG(t, old.(*postgres.Journal).DSN(), 0).Journal()
		},
	})
	// The paywall's (settle after), beside the redemptions: the same table.
	storetest.CoolOffs(t, storetest.Backend[store.CoolOffs]{
		New: func(t testing.TB) store.CoolOffs { return openPG(t, srv.DSN(t), 0).Redemptions() },
		Reopen: func(t testing.TB, old store.CoolOffs) store.CoolOffs {
			return openPG(t, old.(*postgres.Redemptions).DSN(), 0).Redemptions()
		},
	})
	// Reopen and Peer are another instance (a new pool) on the same
	// database: a restart, and two instances racing.
	other := func(t testing.TB, old store.Channels) store.Channels {
		return openPG(t, old.(*postgres.Redemptions).DSN(), 0).Redemptions()
	}
	storetest.Channels(t, storetest.Backend[store.Channels]{
		New:    func(t testing.TB) store.Channels { return openPG(t, srv.DSN(t), 0).Redemptions() },
		Reopen: other,
		Peer:   other,
	})
}

// TestPostgresSecret: instances asking for one secret at once all get the
// same, the first stored.
func TestPostgresSecret(t *testing.T) {
	dsn := pgtest.Shared(t).DSN(t)
	var ps []*postgres.Store
	for i := 0; i < 3; i++ {
		ps = append(ps, openPG(t, dsn, 0))
	}
	got := make([][]byte, 12)
	var wg sync.WaitGroup
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v, err := ps[i%3].Redemptions().Secret(context.Background(), "k", func() ([]byte, error) {
				return []byte{byte(i), 1, 2, 3}, nil
			})
			if err != nil {
				t.Error(err)
			}
			got[i] = v
		}()
	}
	wg.Wait()
	for i := range got {
		if len(got[i]) != 4 || string(got[i]) != string(got[0]) {
			t.Fatalf("instance %d got secret %x, the first %x", i, got[i], got[0])
		}
	}
	if s, ok := memory.NewRedemptions().(store.Secrets); ok {
		t.Fatalf("the memory store keeps secrets: %T", s)
	}
}

// TestPostgresClaims: a key claimed on one instance is held elsewhere for
// another, until released, or until the holder's lease runs out.
func TestPostgresClaims(t *testing.T) {
	dsn := pgtest.Shared(t).DSN(t)
	pa := openPG(t, dsn, time.Second)
	a, b := pa.Claims(), openPG(t, dsn, time.Second).Claims()
	ctx := context.Background()
	claim := func(c store.Claims, key string, want store.ClaimResult) {
		t.Helper()
		if got, err := c.Claim(ctx, key); got != want || err != nil {
			t.Fatalf("Claim(%s) = %v, %v; want %v", key, got, err, want)
		}
	}
	claim(a, "k1", store.Claimed)
	claim(a, "k1", store.HeldHere)
	claim(b, "k1", store.HeldElsewhere)
	a.Release("k1")
	claim(b, "k1", store.Claimed)
	claim(a, "k1", store.HeldElsewhere)
	claim(a, "k2", store.Claimed)
	expire(t, pa, pa.Instance())
	claim(b, "k2", store.Claimed)
}

// TestPostgresDurable: what one instance wrote, another instance (a new
// process, a new pool) reads.
func TestPostgresDurable(t *testing.T) {
	srv := pgtest.Shared(t)
	var writer *postgres.Store
	storetest.Journal(t, storetest.Backend[store.Journal]{
		New: func(t testing.TB) store.Journal {
			writer = openPG(t, srv.DSN(t), 0)
			return writer.Journal()
		},
		Reopen: func(t testing.TB, old store.Journal) store.Journal {
			// Another instance, once the writer has stopped: a pending
			// record stays with its owner while it lives (Pending lists
			// the caller's own), so the reader takes over first.
			dsn := writer.DSN()
			writer.Close()
			return &adopter{openPG(t, dsn, 0).Journal()}
		},
	})
}

// adopter reads the journal as an instance that took over every pending
// record first.
type adopter struct{ *postgres.Journal }

func (a *adopter) Pending() ([]*store.Record, error) {
	if _, err := a.TakeOver(context.Background(), []string{"net"}); err != nil {
		return nil, err
	}
	return a.Journal.Pending()
}

// TestPostgresMigrationRace: three instances starting at once on an empty
// database apply each migration once, and all start.
func TestPostgresMigrationRace(t *testing.T) {
	dsn := pgtest.Shared(t).DSN(t)
	var wg sync.WaitGroup
	errs := make([]error, 3)
	stores := make([]*postgres.Store, 3)
	for i := range 3 {
		wg.Go(func() {
			stores[i], errs[i] = postgres.Open(context.Background(), dsn, postgres.Options{})
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("instance %d: %v", i, err)
		}
		defer stores[i].Close()
	}
	var versions, newest, instances int
	if err := stores[0].Pool().QueryRow(context.Background(), `SELECT count(*), max(version) FROM x402_schema_migrations`).Scan(&versions, &newest); err != nil {
		t.Fatal(err)
	}
	if err := stores[0].Pool().QueryRow(context.Background(), `SELECT count(*) FROM x402_instances`).Scan(&instances); err != nil {
		t.Fatal(err)
	}
	if versions != newest || versions < 2 || instances != 3 {
		t.Fatalf("%d migrations applied up to version %d, instances %d; want each version once and 3", versions, newest, instances)
	}
}

// TestPostgresNonces: instances that take nonces of one key at once get
// each nonce once, with none skipped; a floor above the counter moves it;
// a give-back holds only while nothing later was handed out.
func TestPostgresNonces(t *testing.T) {
	dsn := pgtest.Shared(t).DSN(t)
	a, b := openPG(t, dsn, 0).Journal(), openPG(t, dsn, 0).Journal()
	ctx := context.Background()
	var mu sync.Mutex
	var got []uint64
	var wg sync.WaitGroup
	for i := range 40 {
		wg.Go(func() {
			j := a
			if i%2 == 1 {
				j = b
			}
			n := 1 + i%5
			first, err := j.Nonces(ctx, "338", "0xAbC", 0, n)
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			for k := range n {
				got = append(got, first+uint64(k))
			}
			mu.Unlock()
		})
	}
	wg.Wait()
	sort.Slice(got, func(i, j int) bool { return got[i] < got[j] })
	for i, n := range got {
		if n != uint64(i) {
			t.Fatalf("nonces handed out: %v; want 0..%d, each once", got, len(got)-1)
		}
	}
	end := uint64(len(got)) // 120
	// The node says 200 are taken (a transaction sent by other means).
	if first, err := a.Nonces(ctx, "338", "0xabc", 200, 2); err != nil || first != 200 {
		t.Fatalf("Nonces with floor 200 = %d, %v; want 200", first, err)
	}
	// A floor below the counter does not move it back; another chain or
	// key has a counter of its own.
	if first, _ := b.Nonces(ctx, "338", "0xabc", end, 1); first != 202 {
		t.Fatalf("Nonces with a low floor = %d, want 202", first)
	}
	if first, _ := b.Nonces(ctx, "25", "0xabc", 0, 1); first != 0 {
		t.Fatalf("another chain's first nonce = %d, want 0", first)
	}
	// 203 is the next: give back 202..203 works, and 202 comes again.
	if ok, err := a.GiveBack(ctx, "338", "0xabc", 202, 203); !ok || err != nil {
		t.Fatalf("GiveBack of the last nonces = %v, %v; want true", ok, err)
	}
	first, _ := a.Nonces(ctx, "338", "0xabc", 0, 3) // 202, 203, 204
	if first != 202 {
		t.Fatalf("after the give-back: %d, want 202", first)
	}
	b.Nonces(ctx, "338", "0xabc", 0, 1) // 205 goes to b
	if ok, _ := a.GiveBack(ctx, "338", "0xabc", 202, 205); ok {
		t.Fatal("a give-back succeeded though a later nonce was handed out")
	}
}

// TestPostgresFencing: an instance whose lease ran out writes nothing (no
// record, no nonce); a live instance takes over its pending settlements;
// its next renewal gives it a new lease under a new identity, and then it
// cannot write the records it no longer owns, while the new owner can.
func TestPostgresFencing(t *testing.T) {
	dsn := pgtest.Shared(t).DSN(t)
	pa := openPG(t, dsn, time.Second)
	a, b := pa.Journal(), openPG(t, dsn, time.Second).Journal()
	ctx := context.Background()
	now := time.Now().UTC()
	rec := func(id string, nonce uint64) *store.Record {
		network, _, _ := strings.Cut(id, "/")
		return &store.Record{ID: id, Network: network, Signer: "0xS", TxNonce: nonce, Status: store.StatusPending, CreatedAt: now, UpdatedAt: now,
			Txs: []store.JournalTx{{Hash: fmt.Sprintf("0x%x", 1000+nonce), Raw: "0x01"}}}
	}
	if err := a.Put(rec("net/0xa/0x01", 1), rec("net/0xa/0x02", 2)); err != nil {
		t.Fatal(err)
	}
	if err := a.Put(rec("other/0xa/0x03", 3)); err != nil {
		t.Fatal(err)
	}
	// A live instance neither takes over nor holds what a live one follows.
	if recs, err := b.TakeOver(ctx, []string{"net"}); err != nil || len(recs) != 0 {
		t.Fatalf("TakeOver of a live instance's records = %d, %v", len(recs), err)
	}
	if ok, err := b.HoldSettlement(ctx, "net/0xa/0x01"); ok || err != nil {
		t.Fatalf("HoldSettlement of a settlement another instance follows = %v, %v; want false", ok, err)
	}
	if err := b.Put(rec("net/0xa/0x01", 9)); !errors.Is(err, store.ErrFollowedElsewhere) {
		t.Fatalf("writing another instance's pending record: %v, want ErrFollowedElsewhere", err)
	}

	// A's lease runs out (as when it is paused): it is fenced at once.
	old := a.Instance()
	expire(t, pa, old)
	if err := a.Put(rec("net/0xa/0x04", 4)); !errors.Is(err, store.ErrFenced) {
		t.Fatalf("a write after the lease ran out: %v, want ErrFenced", err)
	}
	if _, err := a.Nonces(ctx, "338", "0xs", 0, 1); !errors.Is(err, store.ErrFenced) {
		t.Fatalf("nonces after the lease ran out: %v, want ErrFenced", err)
	}
	if _, err := b.ByID("net/0xa/0x04"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("the fenced write left a record: %v", err)
	}
	// B takes over A's pending settlements on its networks only.
	recs, err := b.TakeOver(ctx, []string{"net"})
	if err != nil || len(recs) != 2 || recs[0].TxNonce != 1 || recs[1].TxNonce != 2 {
		t.Fatalf("TakeOver = %v, %v; want A's two records on net, by nonce", recs, err)
	}
	if p, _ := b.Pending(); len(p) != 2 {
		t.Fatalf("B's pending after the take-over: %d, want 2", len(p))
	}
	// A renews: a new lease, a new identity; the records it followed are B's.
	waitFor(t, func() bool { return a.Instance() != old && a.Live() })
	if err := a.Put(rec("net/0xa/0x01", 1)); !errors.Is(err, store.ErrFollowedElsewhere) {
		t.Fatalf("the old owner writing a taken-over record: %v, want ErrFollowedElsewhere", err)
	}
	done := rec("net/0xa/0x01", 1)
	done.Status = store.StatusSettled
	if err := b.Put(done); err != nil {
		t.Fatal(err)
	}
	// A settled record is never written again, by anyone: its
	// authorization moved money once, for good. A failed one (nothing
	// moved) may be settled anew by any instance.
	again := rec("net/0xa/0x01", 7)
	for _, j := range []*postgres.Journal{a, b} {
		if err := j.Put(again); !errors.Is(err, store.ErrFollowedElsewhere) {
			t.Fatalf("overwriting a settled record: %v, want ErrFollowedElsewhere", err)
		}
	}
	failed := rec("net/0xa/0x02", 2)
	failed.Status = store.StatusFailed
	if err := b.Put(failed); err != nil {
		t.Fatal(err)
	}
	if err := a.Put(rec("net/0xa/0x02", 12)); err != nil {
		t.Fatalf("settling a failed record anew on another instance: %v", err)
	}
	if got, _ := a.ByID("net/0xa/0x01"); got.Status != store.StatusSettled || got.TxNonce != 1 {
		t.Fatalf("the settled record changed: %+v", got)
	}

	// The other network's record waits for an instance that serves it.
	if recs, _ := a.TakeOver(ctx, []string{"other"}); len(recs) != 1 || recs[0].ID != "other/0xa/0x03" {
		t.Fatalf("TakeOver of the other network = %v", recs)
	}
}

// TestPostgresPutMany: a write of many records is one set-based statement
// under the rules of a write of one: all of them or none (a settled record
// among them refuses the whole write, with ErrFollowedElsewhere); a record
// given twice is written as its last copy, with the transactions of both,
// each findable by hash.
func TestPostgresPutMany(t *testing.T) {
	j := openPG(t, pgtest.Shared(t).DSN(t), 0).Journal()
	now := time.Now().UTC()
	rec := func(id string, nonce uint64, status string, hashes ...string) *store.Record {
		r := &store.Record{ID: id, Network: "net", Signer: "0xS", TxNonce: nonce, Status: status, CreatedAt: now, UpdatedAt: now}
		for _, h := range hashes {
			r.Txs = append(r.Txs, store.JournalTx{Hash: h, Raw: "0x01"})
		}
		return r
	}
	var many []*store.Record
	for i := range 500 {
		many = append(many, rec(fmt.Sprintf("net/0xb/0x%03x", i), uint64(i), store.StatusPending, fmt.Sprintf("0x%064x", 0xb000+i)))
	}
	if err := j.Put(many...); err != nil {
		t.Fatal(err)
	}
	for i, r := range many {
		r.Status, r.TxHash, r.BlockNumber = store.StatusSettled, r.Txs[0].Hash, 7
		if i%100 == 0 {
			r.Status, r.Error = store.StatusFailed, "Transaction failed on chain"
		}
	}
	if err := j.Put(many...); err != nil {
		t.Fatal(err)
	}
	for _, i := range []int{0, 1, 250, 499} {
		if got, err := j.ByTx(many[i].Txs[0].Hash); err != nil || got.ID != many[i].ID || got.Status != many[i].Status || got.BlockNumber != 7 {
			t.Fatalf("record %d = %+v, %v; want %s", i, got, err, many[i].Status)
		}
	}
	// A settled record in a batch refuses the whole batch.
	fresh := rec("net/0xb/0xfff", 900, store.StatusPending, "0x"+strings.Repeat("c", 64))
	if err := j.Put(fresh, rec(many[1].ID, 901, store.StatusPending)); !errors.Is(err, store.ErrFollowedElsewhere) {
		t.Fatalf("a batch with a settled record: %v, want ErrFollowedElsewhere", err)
	}
	if _, err := j.ByID(fresh.ID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("the refused batch wrote %s: %v", fresh.ID, err)
	}
	// A failed record is settled anew; a record twice in one write.
	h1, h2 := "0x"+strings.Repeat("d", 64), "0x"+strings.Repeat("e", 64)
	if err := j.Put(rec(many[0].ID, 902, store.StatusPending, h1), rec(many[0].ID, 902, store.StatusPending, h1, h2)); err != nil {
		t.Fatal(err)
	}
	for _, h := range []string{h1, h2} {
		if got, err := j.ByTx(h); err != nil || got.TxNonce != 902 || len(got.Txs) != 2 || got.Status != store.StatusPending {
			t.Fatalf("ByTx(%s) = %+v, %v; want the last copy, nonce 902, 2 transactions", h, got, err)
		}
	}
}

// TestPostgresHoldSettlement: one instance at a time holds an
// authorization's settlement; a hold of an instance whose lease ran out
// is taken.
func TestPostgresHoldSettlement(t *testing.T) {
	dsn := pgtest.Shared(t).DSN(t)
	pa := openPG(t, dsn, time.Second)
	a, b := pa.Journal(), openPG(t, dsn, time.Second).Journal()
	ctx := context.Background()
	if ok, err := a.HoldSettlement(ctx, "net/0xa/0x01"); !ok || err != nil {
		t.Fatalf("first hold = %v, %v", ok, err)
	}
	if ok, _ := b.HoldSettlement(ctx, "net/0xa/0x01"); ok {
		t.Fatal("a second instance held the same settlement")
	}
	a.ReleaseSettlements(store.Release{ID: "net/0xa/0x01"})
	if ok, _ := b.HoldSettlement(ctx, "net/0xa/0x01"); !ok {
		t.Fatal("the released settlement could not be held")
	}
	if ok, _ := a.HoldSettlement(ctx, "net/0xa/0x02"); !ok {
		t.Fatal("hold 2")
	}
	expire(t, pa, a.Instance())
	if ok, _ := b.HoldSettlement(ctx, "net/0xa/0x02"); !ok {
		t.Fatal("the hold of an instance whose lease ran out was not taken")
	}
}

// TestRedactDSN: the DSN never shows its credentials.
func TestRedactDSN(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"postgres://x402:s3cret@db.example.com:5432/x402?sslmode=require", "postgres://…@db.example.com:5432/…?…"},
		{"postgresql://db:5432", "postgresql://db:5432"},
		{"host=db port=5433 user=x password=s3cret dbname=x402", "postgres host=db:5433 (credentials hidden)"},
		{"garbage s3cret", "postgres (connection string hidden)"},
	} {
		if got := postgres.RedactDSN(c.in); got != c.want || strings.Contains(got, "s3cret") {
			t.Errorf("RedactDSN(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	// An error names the storage redacted, never the password.
	_, err := postgres.Open(context.Background(), "postgres://x402:s3cret@127.0.0.1:1/x402?sslmode=disable&connect_timeout=1", postgres.Options{})
	if err == nil || strings.Contains(err.Error(), "s3cret") || !strings.Contains(err.Error(), "postgres://…@127.0.0.1:1/…?…") {
		t.Fatalf("error for an unreachable database: %v", err)
	}
}

// expire ends an instance's lease in the database, as a pause longer than
// the lease would.
func expire(t *testing.T, p *postgres.Store, instance string) {
	t.Helper()
	if _, err := p.Pool().Exec(context.Background(), `UPDATE x402_instances SET expires_at = clock_timestamp() - interval '1 second' WHERE id = $1`, instance); err != nil {
		t.Fatal(err)
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatal("condition not met within 10 s")
}

// TestPostgresReserve: reservations against one payer's balance are
// decided across instances: what fits beside every instance's settlements
// in flight, a reservation kept by its instance, none without a hold, a
// mined transfer counted in the first check and left out by the exact
// one, a forced reservation, and of 30 reservations at once from two
// instances for a payer who can afford one, exactly one.
func TestPostgresReserve(t *testing.T) {
	dsn := pgtest.Shared(t).DSN(t)
	a, b := openPG(t, dsn, 2*time.Second).Journal(), openPG(t, dsn, 2*time.Second).Journal()
	ctx := context.Background()
	payer := fmt.Sprintf("338/0xtoken/0xpayer%d", time.Now().UnixNano())
	id := func(n int) string { return fmt.Sprintf("net/%s/0x%02x", payer, n) }
	hold := func(j *postgres.Journal, n int) {
		t.Helper()
		if ok, err := j.HoldSettlement(ctx, id(n)); !ok || err != nil {
			t.Fatalf("hold %d = %v, %v", n, ok, err)
		}
	}
	reserve := func(j *postgres.Journal, n int, value, balance int64, inBalance ...int) (bool, error) {
		var bal *big.Int
		if balance >= 0 {
			bal = big.NewInt(balance)
		}
		var in []string
		if inBalance != nil {
			in = []string{}
			for _, k := range inBalance {
				in = append(in, id(k))
			}
		}
		return j.ReserveSettlement(ctx, id(n), payer, big.NewInt(value), bal, in)
	}
	hold(a, 1)
	hold(b, 2)
	hold(b, 3)
	steps := []struct {
		name           string
		j              *postgres.Journal
		n              int
		value, balance int64
		want           bool
		wantErr        error
	}{
		{"a reserves 60 of 100", a, 1, 60, 100, true, nil},
		{"b cannot reserve 60 more", b, 2, 60, 100, false, nil},
		{"b reserves the 40 left", b, 3, 40, 100, true, nil},
		{"a's reservation stays a's", a, 1, 60, 0, true, nil},
		{"b cannot reserve a's settlement", b, 1, 60, 100, false, store.ErrFollowedElsewhere},
	}
	for _, s := range steps {
		got, err := reserve(s.j, s.n, s.value, s.balance)
		if got != s.want || !errors.Is(err, s.wantErr) {
			t.Fatalf("%s: reserve = %v, %v; want %v, %v", s.name, got, err, s.want, s.wantErr)
		}
	}
	if ok, err := reserve(a, 9, 1, 100); ok || err == nil {
		t.Fatalf("a reservation without a hold = %v, %v; want an error", ok, err)
	}
	// a's transfer is mined; b's 40 goes back unsent.
	a.ReleaseSettlements(store.Release{ID: id(1), MinedAt: 12})
	b.ReleaseSettlements(store.Release{ID: id(3)})
	if ok, _ := b.HoldSettlement(ctx, id(1)); ok {
		t.Fatal("a settled authorization's claim was held again")
	}
	if ids, err := b.Reservations(ctx, payer); err != nil || len(ids) != 1 || ids[0] != id(1) {
		t.Fatalf("reservations = %v, %v; want the mined %s", ids, err, id(1))
	}
	hold(b, 4)
	if ok, err := reserve(b, 4, 40, 40); ok || err != nil {
		t.Fatalf("first check with the mined 60 still counted = %v, %v; want false", ok, err)
	}
	if ok, err := reserve(b, 4, 40, 40, 1); !ok || err != nil {
		t.Fatalf("exact check with the mined 60 in the balance = %v, %v; want true", ok, err)
	}
	// A forced reservation (a settlement followed from the journal) takes
	// the claim and its value.
	if ok, err := reserve(a, 5, 1000, -1); !ok || err != nil {
		t.Fatalf("forced reservation = %v, %v", ok, err)
	}
	if ok, _ := b.HoldSettlement(ctx, id(5)); ok {
		t.Fatal("a followed settlement's claim was held by another instance")
	}

	// 30 at once over both instances, for a payer who can afford one.
	payer = fmt.Sprintf("338/0xtoken/0xrace%d", time.Now().UnixNano())
	var wg sync.WaitGroup
	var mu sync.Mutex
	won := 0
	for i := range 30 {
		wg.Go(func() {
			j := []*postgres.Journal{a, b}[i%2]
			if ok, err := j.HoldSettlement(ctx, id(100+i)); !ok || err != nil {
				t.Errorf("hold %d = %v, %v", i, ok, err)
				return
			}
			ok, err := reserve(j, 100+i, 1000, 1000)
			if err != nil {
				t.Errorf("reserve %d: %v", i, err)
			}
			if ok {
				mu.Lock()
				won++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if won != 1 {
		t.Fatalf("%d of 30 reservations held for a payer who can afford one", won)
	}
}
