// Package storetest is the conformance suite of the stores in package
// store: every backend (memory, bbolt, PostgreSQL) runs the same tests
// through a constructor, as go-ethereum's ethdb/dbtest does for its
// databases. A backend's own test calls Journal, Redemptions and Claims.
package storetest

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/caddy-x402/caddy-x402/facilitator/store"
)

// Backend makes the stores under test. Each call of a New function gives
// an empty store; Reopen, when set, closes a store and opens the same
// storage again, to check that what was written is durable.
type Backend[S any] struct {
	New    func(t testing.TB) S
	Reopen func(t testing.TB, old S) S
	// Peer, when set, opens another handle on the same storage while old
	// stays open (another instance on a shared database).
	Peer func(t testing.TB, old S) S
}

// Journal runs the settlement journal's conformance tests.
func Journal(t *testing.T, b Backend[store.Journal]) {
	t.Run("PutAndFind", func(t *testing.T) { journalPutAndFind(t, b) })
	t.Run("Pending", func(t *testing.T) { journalPending(t, b) })
	t.Run("Compact", func(t *testing.T) { journalCompact(t, b) })
}

func journalPutAndFind(t *testing.T, b Backend[store.Journal]) {
	j := b.New(t)
	now := time.Unix(1_800_000_000, 0).UTC()
	rec := &store.Record{ID: "net/0xa/0x01", Network: "net", From: "0xA", To: "0xB", Value: "10000", Nonce: "0x01",
		Signer: "0xS", TxNonce: 7, Status: store.StatusPending, CreatedAt: now, UpdatedAt: now,
		Txs: []store.JournalTx{{Hash: "0xAAA1", Raw: "0x01", SentAt: now}}}
	if err := j.Put(rec); err != nil {
		t.Fatal(err)
	}
	// A replacement, then the outcome: the record is found by any of its
	// transactions, in any case.
	rec.Txs = append(rec.Txs, store.JournalTx{Hash: "0xAAA2", Raw: "0x02", SentAt: now})
	rec.Status, rec.TxHash, rec.BlockNumber, rec.UpdatedAt = store.StatusSettled, "0xAAA2", 42, now.Add(time.Second)
	if err := j.Put(rec); err != nil {
		t.Fatal(err)
	}
	if b.Reopen != nil {
		j = b.Reopen(t, j)
	}
	for _, h := range []string{"0xaaa1", "0xAAA2"} {
		got, err := j.ByTx(h)
		if err != nil {
			t.Fatalf("ByTx(%s): %v", h, err)
		}
		if got.ID != rec.ID || got.Status != store.StatusSettled || got.BlockNumber != 42 || len(got.Txs) != 2 || got.TxNonce != 7 || got.Value != "10000" {
			t.Fatalf("ByTx(%s) = %+v", h, got)
		}
		if !got.UpdatedAt.Equal(rec.UpdatedAt) {
			t.Fatalf("UpdatedAt = %v, want %v", got.UpdatedAt, rec.UpdatedAt)
		}
	}
	got, err := j.ByID(rec.ID)
	if err != nil || got.TxHash != "0xAAA2" {
		t.Fatalf("ByID = %+v, %v", got, err)
	}
	if _, err := j.ByID("net/0xa/0x02"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("ByID of an unknown record: %v, want ErrNotFound", err)
	}
	if _, err := j.ByTx("0xbbbb"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("ByTx of an unknown transaction: %v, want ErrNotFound", err)
	}
	// A copy handed out is the caller's: changing it changes nothing.
	got.Txs[0].Hash = "0xchanged"
	if again, _ := j.ByID(rec.ID); again.Txs[0].Hash != "0xAAA1" {
		t.Fatalf("the journal's record changed with a copy: %+v", again.Txs)
	}
}

func journalPending(t *testing.T, b Backend[store.Journal]) {
	j := b.New(t)
	now := time.Unix(1_800_000_000, 0).UTC()
	var recs []*store.Record
	for i, n := range []uint64{12, 10, 11} {
		recs = append(recs, &store.Record{ID: "net/0xa/0x0" + strconv.Itoa(i), Network: "net", Signer: "0xS", TxNonce: n, Status: store.StatusPending,
			CreatedAt: now, UpdatedAt: now, Txs: []store.JournalTx{{Hash: "0xc" + strconv.Itoa(i)}}})
	}
	recs = append(recs, &store.Record{ID: "net/0xa/0x09", Network: "net", Signer: "0xR", TxNonce: 3, Status: store.StatusPending,
		CreatedAt: now, UpdatedAt: now, Txs: []store.JournalTx{{Hash: "0xc9"}}})
	if err := j.Put(recs...); err != nil {
		t.Fatal(err)
	}
	recs[1].Status = store.StatusSettled
	if err := j.Put(recs[1]); err != nil {
		t.Fatal(err)
	}
	if b.Reopen != nil {
		j = b.Reopen(t, j)
	}
	p, err := j.Pending()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range p {
		got = append(got, r.Signer+":"+strconv.FormatUint(r.TxNonce, 10))
	}
	// By signer, then by nonce; the settled one is gone.
	if want := []string{"0xR:3", "0xS:11", "0xS:12"}; !equal(got, want) {
		t.Fatalf("Pending = %v, want %v", got, want)
	}
}

func journalCompact(t *testing.T, b Backend[store.Journal]) {
	j := b.New(t)
	c, ok := j.(store.Compacter)
	if !ok {
		t.Skip("the journal does not compact")
	}
	now := time.Unix(1_800_000_000, 0).UTC()
	old, recent := now.Add(-48*time.Hour), now.Add(-time.Hour)
	recs := []*store.Record{
		{ID: "n/a/1", Status: store.StatusSettled, UpdatedAt: old, Txs: []store.JournalTx{{Hash: "0xA1"}}},
		{ID: "n/a/2", Status: store.StatusFailed, UpdatedAt: old, Txs: []store.JournalTx{{Hash: "0xa2"}}},
		{ID: "n/a/3", Status: store.StatusPending, UpdatedAt: old, Txs: []store.JournalTx{{Hash: "0xa3"}}},
		{ID: "n/a/4", Status: store.StatusSettled, UpdatedAt: recent, Txs: []store.JournalTx{{Hash: "0xa4"}}},
	}
	if err := j.Put(recs...); err != nil {
		t.Fatal(err)
	}
	n, err := c.Compact(now.Add(-24 * time.Hour))
	if err != nil || n != 2 {
		t.Fatalf("Compact = %d, %v; want 2 (the old settled and failed ones)", n, err)
	}
	for _, c := range []struct {
		id, hash string
		kept     bool
	}{{"n/a/1", "0xa1", false}, {"n/a/2", "0xA2", false}, {"n/a/3", "0xa3", true}, {"n/a/4", "0xa4", true}} {
		_, err1 := j.ByID(c.id)
		_, err2 := j.ByTx(c.hash)
		if kept := err1 == nil && err2 == nil; kept != c.kept {
			t.Errorf("%s: ByID %v, ByTx %v; want kept %v", c.id, err1, err2, c.kept)
		}
		if !c.kept && (!errors.Is(err1, store.ErrNotFound) || !errors.Is(err2, store.ErrNotFound)) {
			t.Errorf("%s: want ErrNotFound, got %v, %v", c.id, err1, err2)
		}
	}
	if p, _ := j.Pending(); len(p) != 1 || p[0].ID != "n/a/3" {
		t.Errorf("pending after compaction: %v", p)
	}
}

// Redemptions runs the redemption store's conformance tests.
func Redemptions(t *testing.T, b Backend[store.Redemptions]) {
	t.Run("Prune", func(t *testing.T) { redemptionsPrune(t, b) })
	t.Run("PaymentIDBinding", func(t *testing.T) { redemptionsPaymentID(t, b) })
	t.Run("Create", func(t *testing.T) { redemptionsCreate(t, b) })
	t.Run("ByTransaction", func(t *testing.T) { redemptionsByTransaction(t, b) })
}

// redemptionsByTransaction: a record that names its settlement's
// transaction is found by it, in whatever case its hex is asked in; the
// index follows the record (a record that names another transaction is
// found by the new one only) and goes with it, deleted or pruned; it is
// durable.
func redemptionsByTransaction(t *testing.T, b Backend[store.Redemptions]) {
	s := b.New(t)
	now := time.Now().Unix()
	past := strconv.FormatInt(now-7200, 10)
	const (
		tx1 = "0xAbCd000000000000000000000000000000000000000000000000000000000001"
		tx2 = "0xabcd000000000000000000000000000000000000000000000000000000000002"
		tx3 = "0xabcd000000000000000000000000000000000000000000000000000000000003"
	)
	find := func(tx, wantAuth, wantReceipt string) {
		t.Helper()
		auth, rec, err := s.ByTransaction(tx)
		if err != nil {
			t.Fatal(err)
		}
		receipt := ""
		if rec != nil {
			receipt = string(rec.Receipt)
		}
		if auth != wantAuth || receipt != wantReceipt || (wantAuth != "" && rec == nil) {
			t.Fatalf("ByTransaction(%s) = %q, receipt %q; want %q, %q", tx, auth, receipt, wantAuth, wantReceipt)
		}
	}
	// Settling (no transaction yet): not found by any.
	if err := s.Put("auth1", &store.Redemption{Route: "r", State: store.RedeemSettling, ValidBefore: past}); err != nil {
		t.Fatal(err)
	}
	find(tx1, "", "")
	// Delivered with its transaction and receipt: found in any case.
	if err := s.Put("auth1", &store.Redemption{Route: "r", State: store.RedeemDelivered, ValidBefore: past, TxHash: tx1,
		Receipt: []byte(`{"receipt":{"format":"jws","signature":"h.p.1"}}`)}); err != nil {
		t.Fatal(err)
	}
	if b.Reopen != nil {
		s = b.Reopen(t, s)
	}
	find(tx1, "auth1", `{"receipt":{"format":"jws","signature":"h.p.1"}}`)
	find(strings.ToLower(tx1), "auth1", `{"receipt":{"format":"jws","signature":"h.p.1"}}`)
	find("0x"+strings.ToUpper(tx1[2:]), "auth1", `{"receipt":{"format":"jws","signature":"h.p.1"}}`)
	find(tx2, "", "")

	// A record written again with another transaction is found by it only.
	if err := s.Put("auth2", &store.Redemption{Route: "r", State: store.RedeemPending, TxHash: tx2}); err != nil {
		t.Fatal(err)
	}
	find(tx2, "auth2", "")
	if err := s.Put("auth2", &store.Redemption{Route: "r", State: store.RedeemPaid, TxHash: tx3, Receipt: []byte(`{"receipt":3}`)}); err != nil {
		t.Fatal(err)
	}
	find(tx2, "", "")
	find(strings.ToUpper(tx3), "auth2", `{"receipt":3}`)

	// Deleted: the index goes with it.
	if err := s.Delete("auth2"); err != nil {
		t.Fatal(err)
	}
	find(tx3, "", "")

	// Pruned (delivered, expired): the index goes with it.
	if n, err := s.Prune(now - 3600); err != nil || n != 1 {
		t.Fatalf("Prune = %d, %v; want 1", n, err)
	}
	find(tx1, "", "")
}

// redemptionsCreate: Create writes a record only for an authorization
// that has none: over a record of any state it writes nothing, neither the
// record nor its payment id, and says so; after Delete it writes again.
func redemptionsCreate(t *testing.T, b Backend[store.Redemptions]) {
	s := b.New(t)
	delivered := &store.Redemption{Route: "r", State: store.RedeemDelivered, Authorization: "fp1", AnswerLost: true}
	if ok, err := s.Create("a", delivered); !ok || err != nil {
		t.Fatalf("Create on no record = %v, %v; want true", ok, err)
	}
	paid := &store.Redemption{Route: "r2", State: store.RedeemPaid, Authorization: "fp2", PaymentID: "payer/id-1"}
	if ok, err := s.Create("a", paid); ok || err != nil {
		t.Fatalf("Create over a delivered record = %v, %v; want false, nil", ok, err)
	}
	if got, err := s.Get("a"); err != nil || got == nil || got.State != store.RedeemDelivered || got.Route != "r" || got.Authorization != "fp1" || !got.AnswerLost {
		t.Fatalf("after a Create that found a record, Get = %+v, %v; want the delivered record unchanged (its answer lost)", got, err)
	}
	if id, rec, err := s.ByPaymentID("payer/id-1"); id != "" || rec != nil || err != nil {
		t.Fatalf("a Create that wrote nothing bound its payment id: %q %+v %v", id, rec, err)
	}
	if err := s.Delete("a"); err != nil {
		t.Fatal(err)
	}
	if ok, err := s.Create("a", paid); !ok || err != nil {
		t.Fatalf("Create after Delete = %v, %v; want true", ok, err)
	}
	if id, rec, err := s.ByPaymentID("payer/id-1"); id != "a" || rec == nil || rec.State != store.RedeemPaid || err != nil {
		t.Fatalf("ByPaymentID after Create = %q %+v %v; want the paid record", id, rec, err)
	}
}

// redemptionsPrune: delivered records whose authorization expired before
// the cut-off go; every other record stays: delivered ones still valid,
// and ones not delivered (their buyer may retry at any time), expired or
// not.
func redemptionsPrune(t *testing.T, b Backend[store.Redemptions]) {
	s := b.New(t)
	now := time.Now().Unix()
	past, future := strconv.FormatInt(now-7200, 10), strconv.FormatInt(now+7200, 10)
	records := []struct {
		id, state, validBefore string
		gone                   bool
	}{
		{"delivered-expired", store.RedeemDelivered, past, true},
		{"delivered-valid", store.RedeemDelivered, future, false},
		{"paid-expired", store.RedeemPaid, past, false},
		{"pending-expired", store.RedeemPending, past, false},
		{"settling-expired", store.RedeemSettling, past, false},
		{"delivered-unreadable-expiry", store.RedeemDelivered, "soon", false},
	}
	for _, r := range records {
		if err := s.Put(r.id, &store.Redemption{Route: "r", State: r.state, ValidBefore: r.validBefore}); err != nil {
			t.Fatal(err)
		}
	}
	n, err := s.Prune(now - 3600)
	if err != nil || n != 1 {
		t.Fatalf("Prune = %d, %v; want 1 removed", n, err)
	}
	for _, r := range records {
		got, err := s.Get(r.id)
		if err != nil {
			t.Fatal(err)
		}
		if (got == nil) != r.gone {
			t.Errorf("%s: removed = %v, want %v", r.id, got == nil, r.gone)
		}
	}
}

// redemptionsPaymentID: a payment id is bound to the record that carries
// it, in the same write; it cannot be bound to another authorization; the
// binding goes with its record, whether deleted (nothing moved) or pruned;
// it is durable.
func redemptionsPaymentID(t *testing.T, b Backend[store.Redemptions]) {
	s := b.New(t)
	now := time.Now().Unix()
	past := strconv.FormatInt(now-7200, 10)
	lookup := func(key, wantAuth, wantState string) {
		t.Helper()
		auth, rec, err := s.ByPaymentID(key)
		if err != nil {
			t.Fatal(err)
		}
		state := ""
		if rec != nil {
			state = rec.State
		}
		if auth != wantAuth || state != wantState {
			t.Fatalf("ByPaymentID(%s) = %q, state %q; want %q, %q", key, auth, state, wantAuth, wantState)
		}
	}
	rec := &store.Redemption{Route: "r", State: store.RedeemSettling, ValidBefore: past, PaymentID: "0xb/pay_1111111111111111", Fingerprint: "f1"}
	if err := s.Put("auth1", rec); err != nil {
		t.Fatal(err)
	}
	lookup("0xb/pay_1111111111111111", "auth1", store.RedeemSettling)
	lookup("0xb/pay_2222222222222222", "", "")

	// Another authorization cannot take the id; the record itself may be
	// written again (its next state).
	if err := s.Put("auth2", &store.Redemption{Route: "r", State: store.RedeemSettling, PaymentID: "0xb/pay_1111111111111111"}); !errors.Is(err, store.ErrPaymentIDTaken) {
		t.Fatalf("binding a taken id: %v, want ErrPaymentIDTaken", err)
	}
	if got, _ := s.Get("auth2"); got != nil {
		t.Fatal("the refused record was written")
	}
	// The receipt signed for it (issue 34) is kept with it.
	rec.State, rec.TxHash, rec.Settlement = store.RedeemDelivered, "0xt1", []byte(`{"success":true,"transaction":"0xt1"}`)
	rec.Receipt = []byte(`{"receipt":{"format":"jws","signature":"h.p.s"}}`)
	if err := s.Put("auth1", rec); err != nil {
		t.Fatal(err)
	}
	if b.Reopen != nil {
		s = b.Reopen(t, s)
	}
	lookup("0xb/pay_1111111111111111", "auth1", store.RedeemDelivered)
	if got, err := s.Get("auth1"); err != nil || got.TxHash != "0xt1" || got.Fingerprint != "f1" || string(got.Settlement) != `{"success":true,"transaction":"0xt1"}` ||
		string(got.Receipt) != `{"receipt":{"format":"jws","signature":"h.p.s"}}` {
		t.Fatalf("Get(auth1) = %+v, %v", got, err)
	}
	if _, got, err := s.ByPaymentID("0xb/pay_1111111111111111"); err != nil || got == nil || string(got.Receipt) != `{"receipt":{"format":"jws","signature":"h.p.s"}}` {
		t.Fatalf("ByPaymentID: the receipt of %+v, %v", got, err)
	}

	// Deleted (nothing moved): the id is free again.
	if err := s.Put("auth3", &store.Redemption{Route: "r", State: store.RedeemSettling, PaymentID: "0xb/pay_3333333333333333"}); err != nil {
		t.Fatal(err)
	}
	if err := s.Delete("auth3"); err != nil {
		t.Fatal(err)
	}
	lookup("0xb/pay_3333333333333333", "", "")
	if err := s.Put("auth4", &store.Redemption{Route: "r", State: store.RedeemSettling, PaymentID: "0xb/pay_3333333333333333"}); err != nil {
		t.Fatalf("binding a freed id: %v", err)
	}
	if err := s.Delete("no-such-record"); err != nil {
		t.Fatalf("deleting a record that is not there: %v", err)
	}

	// Pruned (delivered, expired): the id goes with its record; the others
	// stay.
	if n, err := s.Prune(now - 3600); err != nil || n != 1 {
		t.Fatalf("Prune = %d, %v; want 1", n, err)
	}
	lookup("0xb/pay_1111111111111111", "", "")
	lookup("0xb/pay_3333333333333333", "auth4", store.RedeemSettling)
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Claims runs the claims' conformance tests: a key is held once until
// released.
func Claims(t *testing.T, newClaims func(t testing.TB) store.Claims) {
	c := newClaims(t)
	ctx := context.Background()
	claim := func(key string, want store.ClaimResult) {
		t.Helper()
		if got, err := c.Claim(ctx, key); got != want || err != nil {
			t.Fatalf("Claim(%s) = %v, %v; want %v", key, got, err, want)
		}
	}
	claim("a", store.Claimed)
	claim("a", store.HeldHere)
	claim("b", store.Claimed)
	c.Release("a")
	c.Release("never-claimed")
	claim("a", store.Claimed)
	claim("b", store.HeldHere)
}
