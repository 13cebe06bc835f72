package postgres

import (
	"context"
	"errors"
	"math/big"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/caddy-x402/caddy-x402/facilitator/store"
	"github.com/caddy-x402/caddy-x402/internal/pgtest"
)

// The folded statements of the exact path (issue 35): each is one round
// trip and one transaction, with the outcomes of the statements it folds.

// foldKey is the authorization key of the fold tests.
const foldKey = "cronos-testnet/0xf8007fc768f0676978ce715ee7dae3b336eece74/0xf01d"

// openFold opens an instance on dsn with a lease long enough that neither
// renewal nor the release retry loop runs during a test.
func openFold(t *testing.T, dsn string) *Store {
	t.Helper()
	p, err := Open(context.Background(), dsn, Options{Lease: 5 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// foldRecord is a redemption record in state.
func foldRecord(state string) *store.Redemption {
	return &store.Redemption{Route: "r", State: state, ValidBefore: "9999999999", Updated: time.Now()}
}

// held reports whether a request of p holds key.
func (p *Store) held(key string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	_, ok := p.claims[key]
	return ok
}

// claimOwner is the lease named by key's claim row, "" when there is none.
func claimOwner(t *testing.T, p *Store, key string) string {
	t.Helper()
	var owner string
	err := p.pool.QueryRow(context.Background(), `SELECT owner FROM x402_claims WHERE key = $1`, key).Scan(&owner)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		t.Fatal(err)
	}
	return owner
}

// TestPostgresClaimRecord: ClaimRecord (the claim of an authorization and
// the read of its record, one batch) answers as Claim then Get did:
//
//   - "first claim": Claimed, and the record (none, or the one written
//     before);
//   - "held here" / "held elsewhere": HeldHere, or HeldElsewhere for a
//     second claim of the same payment from another instance; no record,
//     nothing held;
//   - "taken from a paused instance mid-write": the claim waits for the
//     old holder's write (which locks the claim row) and the read sees it:
//     the read is a statement of its own after the claim's;
//   - "database stopped mid-statement": the claim waits for a row lock
//     when PostgreSQL stops: ErrUnavailable, nothing held here, the row
//     still the other instance's after the restart (nothing half-written),
//     and the same claim then succeeds with the record.
func TestPostgresClaimRecord(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, srv *pgtest.Server, dsn string, a, b *Store) // before a's ClaimRecord
		claim func(t *testing.T, srv *pgtest.Server, dsn string, a, b *Store) (store.ClaimResult, *store.Redemption, error)
		want  store.ClaimResult
		state string // the record's state answered, "" for none
		err   error
	}{
		{name: "first claim, no record", want: store.Claimed},
		{name: "first claim, a record", want: store.Claimed, state: store.RedeemPending,
			setup: func(t *testing.T, _ *pgtest.Server, _ string, a, _ *Store) {
				if err := a.Redemptions().Put(foldKey, foldRecord(store.RedeemPending)); err != nil {
					t.Fatal(err)
				}
			}},
		{name: "held here", want: store.HeldHere,
			setup: func(t *testing.T, _ *pgtest.Server, _ string, a, _ *Store) {
				if got, err := a.Claims().Claim(context.Background(), foldKey); got != store.Claimed || err != nil {
					t.Fatalf("first claim: %v, %v", got, err)
				}
			}},
		{name: "held elsewhere", want: store.HeldElsewhere,
			setup: func(t *testing.T, _ *pgtest.Server, _ string, a, b *Store) {
				if got, err := b.Claims().Claim(context.Background(), foldKey); got != store.Claimed || err != nil {
					t.Fatalf("claim at B: %v, %v", got, err)
				}
				if err := b.Redemptions().Put(foldKey, foldRecord(store.RedeemSettling)); err != nil {
					t.Fatal(err)
				}
			}},
		{name: "taken from a paused instance mid-write", want: store.Claimed, state: store.RedeemPaid,
			setup: func(t *testing.T, _ *pgtest.Server, _ string, a, b *Store) {
				if got, err := b.Claims().Claim(context.Background(), foldKey); got != store.Claimed || err != nil {
					t.Fatalf("claim at B: %v, %v", got, err)
				}
			},
			claim: func(t *testing.T, _ *pgtest.Server, dsn string, a, b *Store) (store.ClaimResult, *store.Redemption, error) {
				ctx := context.Background()
				// B's write, as put makes it: the claim row locked
				// FOR SHARE, the record written, not committed yet.
				conn, err := pgx.Connect(ctx, dsn)
				if err != nil {
					t.Fatal(err)
				}
				defer conn.Close(ctx)
				tx, err := conn.Begin(ctx)
				if err != nil {
					t.Fatal(err)
				}
				defer tx.Rollback(ctx)
				if _, err := tx.Exec(ctx, `SELECT 1 FROM x402_claims WHERE key = $1 AND owner = $2 FOR SHARE`, foldKey, b.Instance()); err != nil {
					t.Fatal(err)
				}
				if _, err := tx.Exec(ctx, `INSERT INTO x402_redemptions (id, state, record) VALUES ($1, $2, $3)`,
					foldKey, store.RedeemPaid, `{"route":"r","state":"paid"}`); err != nil {
					t.Fatal(err)
				}
				expireLease(t, a, b.Instance()) // B is paused past its lease
				type answer struct {
					res store.ClaimResult
					rec *store.Redemption
					err error
				}
				got := make(chan answer, 1)
				go func() {
					res, rec, err := a.Claims().ClaimRecord(ctx, foldKey)
					got <- answer{res, rec, err}
				}()
				await(t, "A's claim to wait for B's write", func() bool { return lockWaitsOf(t, a) == 1 })
				if err := tx.Commit(ctx); err != nil {
					t.Fatal(err)
				}
				g := <-got
				return g.res, g.rec, g.err
			}},
		{name: "database stopped mid-statement", want: store.HeldElsewhere, err: store.ErrUnavailable,
			setup: func(t *testing.T, _ *pgtest.Server, _ string, a, b *Store) {
				if got, err := b.Claims().Claim(context.Background(), foldKey); got != store.Claimed || err != nil {
					t.Fatalf("claim at B: %v, %v", got, err)
				}
				if err := b.Redemptions().Put(foldKey, foldRecord(store.RedeemSettling)); err != nil {
					t.Fatal(err)
				}
				expireLease(t, a, b.Instance())
			},
			claim: func(t *testing.T, srv *pgtest.Server, dsn string, a, b *Store) (store.ClaimResult, *store.Redemption, error) {
				ctx := context.Background()
				var res store.ClaimResult
				var rec *store.Redemption
				var err error
				stopMidStatement(t, srv, dsn, a, `SELECT 1 FROM x402_claims WHERE key = $1 FOR UPDATE`, foldKey, func() {
					res, rec, err = a.Claims().ClaimRecord(ctx, foldKey)
				})
				if owner := claimOwner(t, a, foldKey); owner != b.Instance() {
					t.Errorf("after the restart the claim row names %q, want B's %q: half-written", owner, b.Instance())
				}
				if a.held(foldKey) {
					t.Error("A holds the key after a claim that failed")
				}
				// The same claim now: taken, with B's record.
				again, r, aerr := a.Claims().ClaimRecord(ctx, foldKey)
				if again != store.Claimed || aerr != nil || r == nil || r.State != store.RedeemSettling {
					t.Errorf("the claim again after the restart: %v, %+v, %v; want Claimed with B's settling record", again, r, aerr)
				}
				return res, rec, err
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var srv *pgtest.Server
			if tc.err != nil {
				srv = pgtest.Start(t) // stopped by the case
			} else {
				srv = pgtest.Shared(t)
			}
			dsn := srv.DSN(t)
			a, b := openFold(t, dsn), openFold(t, dsn)
			if tc.setup != nil {
				tc.setup(t, srv, dsn, a, b)
			}
			claim := tc.claim
			if claim == nil {
				claim = func(t *testing.T, _ *pgtest.Server, _ string, a, _ *Store) (store.ClaimResult, *store.Redemption, error) {
					return a.Claims().ClaimRecord(context.Background(), foldKey)
				}
			}
			res, rec, err := claim(t, srv, dsn, a, b)
			if res != tc.want || !errors.Is(err, tc.err) || (tc.err == nil) != (err == nil) {
				t.Fatalf("ClaimRecord = %v, %v; want %v, %v", res, err, tc.want, tc.err)
			}
			switch {
			case tc.state == "" && rec != nil:
				t.Errorf("ClaimRecord answered a record %+v; want none", rec)
			case tc.state != "" && (rec == nil || rec.State != tc.state):
				t.Errorf("ClaimRecord answered the record %+v; want state %s", rec, tc.state)
			}
			if held := a.held(foldKey); tc.err == nil && held != (tc.want != store.HeldElsewhere) { // the stopped case claims again
				t.Errorf("held here after %v: %v", res, held)
			}
		})
	}
}

// expireLease ends an instance's lease in the database, as a pause longer
// than the lease would.
func expireLease(t *testing.T, p *Store, instance string) {
	t.Helper()
	if _, err := p.pool.Exec(context.Background(), `UPDATE x402_instances SET expires_at = clock_timestamp() - interval '1 second' WHERE id = $1`, instance); err != nil {
		t.Fatal(err)
	}
}

// stopMidStatement runs op while another connection holds the row lock of
// lockSQL (a SELECT … FOR UPDATE of arg), so that op's statement waits for
// it; stops the server then and, once op has returned, restarts it and
// waits for p's pool. The server is killed (SIGKILL to it and its
// backends), not shut down: a fast shutdown ends the lock's holder first,
// and the waiting statement could take the lock and commit before its own
// end (seen under the race detector); killed, it never gets the lock.
func stopMidStatement(t *testing.T, srv *pgtest.Server, dsn string, p *Store, lockSQL string, arg any, op func()) {
	t.Helper()
	unlock := holdRowLocks(t, dsn, lockSQL, arg)
	done := make(chan struct{})
	go func() { op(); close(done) }()
	await(t, "the statement to wait for the row lock", func() bool { return lockWaitsOf(t, p) == 1 })
	srv.Kill(t)
	<-done
	unlock()
	srv.Restart(t)
	waitPool(t, p)
}

// lockWaitsOf counts the statements waiting for a lock in p's database.
func lockWaitsOf(t *testing.T, p *Store) int {
	t.Helper()
	var n int
	if err := p.pool.QueryRow(context.Background(), `SELECT count(*) FROM pg_stat_activity
		WHERE datname = current_database() AND wait_event_type = 'Lock'`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestPostgresPutRelease: PutRelease (a settlement's outcome and the
// release of its hold, one batch) writes both or neither:
//
//   - "settled, reserved": the record settled, the hold kept as spent at
//     its block (its reservation still counts for a minute);
//   - "failed, not reserved": the record failed, the hold gone: another
//     instance holds the settlement at once;
//   - "refused: another instance follows it": ErrFollowedElsewhere, the
//     other's record stands, and the hold is still given back (on its
//     own, as after a Put that failed);
//   - "database stopped mid-statement": the write waits for a row lock
//     when PostgreSQL stops: ErrUnavailable; after the restart the record
//     is still pending and the hold still held and not spent (nothing
//     half-written), its release waiting for the retry, which lands (or,
//     when the hold's own release reached the server before it went
//     down, the hold spent and nothing to retry).
func TestPostgresPutRelease(t *testing.T) {
	const id, payer = foldKey, "338/0xtoken/0xpayer"
	hold := "settle:" + id
	rec := func(status string) *store.Record {
		now := time.Now().UTC()
		return &store.Record{ID: id, Network: "cronos-testnet", Signer: "0xs", TxNonce: 3, Status: status, CreatedAt: now, UpdatedAt: now,
			Txs: []store.JournalTx{{Hash: "0x" + "ab12" + "00000000000000000000000000000000000000000000000000000000000f", Raw: "0x01"}}}
	}
	for _, tc := range []struct {
		name     string
		reserve  bool
		status   string // the outcome written
		mined    uint64
		other    bool // another instance follows the settlement
		stop     bool
		err      error
		wantRec  string // the record's status afterwards
		wantHold string // "gone", "spent", "held"
	}{
		{name: "settled, reserved", reserve: true, status: store.StatusSettled, mined: 7, wantRec: store.StatusSettled, wantHold: "spent"},
		{name: "failed, not reserved", status: store.StatusFailed, wantRec: store.StatusFailed, wantHold: "gone"},
		{name: "refused: another instance follows it", status: store.StatusSettled, mined: 7, other: true,
			err: store.ErrFollowedElsewhere, wantRec: store.StatusPending, wantHold: "gone"},
		{name: "database stopped mid-statement", reserve: true, status: store.StatusSettled, mined: 7, stop: true,
			err: store.ErrUnavailable, wantRec: store.StatusPending, wantHold: "held"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			var srv *pgtest.Server
			if tc.stop {
				srv = pgtest.Start(t)
			} else {
				srv = pgtest.Shared(t)
			}
			dsn := srv.DSN(t)
			a, b := openFold(t, dsn), openFold(t, dsn)
			if ok, err := a.Journal().HoldSettlement(ctx, id); !ok || err != nil {
				t.Fatalf("hold: %v, %v", ok, err)
			}
			if tc.reserve {
				if ok, err := a.Journal().ReserveSettlement(ctx, id, payer, big.NewInt(100), big.NewInt(1000), nil); !ok || err != nil {
					t.Fatalf("reserve: %v, %v", ok, err)
				}
			}
			follower := a
			if tc.other {
				follower = b
			}
			if err := follower.Journal().Put(rec(store.StatusPending)); err != nil {
				t.Fatal(err)
			}
			put := func() error {
				return a.Journal().PutRelease([]*store.Record{rec(tc.status)}, []store.Release{{ID: id, MinedAt: tc.mined}})
			}
			var err error
			if !tc.stop {
				err = put()
			} else {
				stopMidStatement(t, srv, dsn, a, `SELECT 1 FROM x402_settlements WHERE id = $1 FOR UPDATE`, id, func() { err = put() })
			}
			if !errors.Is(err, tc.err) || (tc.err == nil) != (err == nil) {
				t.Fatalf("PutRelease = %v; want %v", err, tc.err)
			}
			got, rerr := a.Journal().ByID(id)
			if rerr != nil || got.Status != tc.wantRec {
				t.Errorf("the record afterwards: %+v, %v; want %s", got, rerr, tc.wantRec)
			}
			var mined *int64
			err = a.pool.QueryRow(ctx, `SELECT mined_block FROM x402_claims WHERE key = $1`, hold).Scan(&mined)
			gotHold := "held"
			switch {
			case errors.Is(err, pgx.ErrNoRows):
				gotHold = "gone"
			case err != nil:
				t.Fatal(err)
			case mined != nil && *mined == int64(tc.mined):
				gotHold = "spent"
			}
			releasing := a.releasing(hold)
			if tc.stop && gotHold == "spent" && !releasing {
				// The hold's own release (sent after the batch failed)
				// reached the server before it went down: as safe, and
				// nothing is left to retry.
				return
			}
			if gotHold != tc.wantHold {
				t.Errorf("the hold afterwards is %s (mined_block %v); want %s", gotHold, mined, tc.wantHold)
			}
			if releasing != tc.stop {
				t.Errorf("the hold's release waits for a retry: %v, want %v", releasing, tc.stop)
			}
			if tc.stop {
				a.retryReleases(ctx)
				if owner := claimOwner(t, a, hold); owner != "" || a.releasing(hold) {
					t.Errorf("after the retry the hold is still %q (waiting: %v)", owner, a.releasing(hold))
				}
			}
		})
	}
}

// TestPostgresPutReleasing: PutReleasing (the delivered record and the
// release of the request's claim, one batch) writes both or neither:
//
//   - "claim held here": the record written, the claim row gone and let
//     go here, so another instance claims the payment at once and reads
//     the record;
//   - "claim taken over": another instance took the claim after this
//     one's lease ran out: ErrClaimLost, nothing written (the new
//     holder's record stands, its claim row untouched), and this
//     instance's claim let go;
//   - "no claim held here": a plain Put, nothing released;
//   - "database stopped mid-statement": the write waits for a lock on the
//     claim row when PostgreSQL stops: ErrUnavailable, and after the
//     restart the record is as before and the claim still held here
//     (nothing half-written); the request's Release then lets it go.
func TestPostgresPutReleasing(t *testing.T) {
	for _, tc := range []struct {
		name      string
		claim     bool // A claims the key first
		takenOver bool // then B takes it over
		stop      bool
		released  bool
		err       error
		wantState string // the record afterwards
		wantOwner string // "A", "B" or "" (no claim row)
	}{
		{name: "claim held here", claim: true, released: true, wantState: store.RedeemDelivered},
		{name: "claim taken over", claim: true, takenOver: true, released: true, err: store.ErrClaimLost,
			wantState: store.RedeemPaid, wantOwner: "B"},
		{name: "no claim held here", wantState: store.RedeemDelivered},
		{name: "database stopped mid-statement", claim: true, stop: true, err: store.ErrUnavailable,
			wantState: store.RedeemSettling, wantOwner: "A"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			var srv *pgtest.Server
			if tc.stop {
				srv = pgtest.Start(t)
			} else {
				srv = pgtest.Shared(t)
			}
			dsn := srv.DSN(t)
			a, b := openFold(t, dsn), openFold(t, dsn)
			if tc.claim {
				if got, err := a.Claims().Claim(ctx, foldKey); got != store.Claimed || err != nil {
					t.Fatalf("claim at A: %v, %v", got, err)
				}
			}
			if err := a.Redemptions().Put(foldKey, foldRecord(store.RedeemSettling)); err != nil {
				t.Fatal(err)
			}
			if tc.takenOver {
				expireLease(t, a, a.Instance())
				if got, err := b.Claims().Claim(ctx, foldKey); got != store.Claimed || err != nil {
					t.Fatalf("claim at B: %v, %v", got, err)
				}
				if err := b.Redemptions().Put(foldKey, foldRecord(store.RedeemPaid)); err != nil {
					t.Fatal(err)
				}
			}
			owners := map[string]string{a.Instance(): "A", b.Instance(): "B"}
			var released bool
			var err error
			put := func() { released, err = a.Redemptions().PutReleasing(foldKey, foldRecord(store.RedeemDelivered)) }
			if !tc.stop {
				put()
			} else {
				stopMidStatement(t, srv, dsn, a, `SELECT 1 FROM x402_claims WHERE key = $1 FOR UPDATE`, foldKey, put)
			}
			if released != tc.released || !errors.Is(err, tc.err) || (tc.err == nil) != (err == nil) {
				t.Fatalf("PutReleasing = %v, %v; want %v, %v", released, err, tc.released, tc.err)
			}
			if got, gerr := b.Redemptions().Get(foldKey); gerr != nil || got == nil || got.State != tc.wantState {
				t.Errorf("the record afterwards: %+v, %v; want %s", got, gerr, tc.wantState)
			}
			if owner := owners[claimOwner(t, a, foldKey)]; owner != tc.wantOwner {
				t.Errorf("the claim row afterwards is %q's; want %q's", owner, tc.wantOwner)
			}
			if held := a.held(foldKey); held != (tc.wantOwner == "A") {
				t.Errorf("A holds the key afterwards: %v", held)
			}
			switch {
			case tc.wantOwner == "":
				// Let go: another instance claims it at once, and reads
				// the record.
				if got, rec, err := b.Claims().ClaimRecord(ctx, foldKey); got != store.Claimed || err != nil || rec == nil || rec.State != tc.wantState {
					t.Errorf("B's claim afterwards: %v, %+v, %v; want Claimed with the %s record", got, rec, err, tc.wantState)
				}
			case tc.stop:
				a.Claims().Release(foldKey)
				if owner := claimOwner(t, a, foldKey); owner != "" || a.held(foldKey) {
					t.Errorf("after the request's release the claim row is still %q's (held here: %v)", owners[owner], a.held(foldKey))
				}
			}
		})
	}
}
