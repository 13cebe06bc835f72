package caddymodule

import (
	"strconv"
	"testing"
	"time"
)

// TestRedemptionPrune: both stores drop delivered records whose
// authorization expired before the cut-off, and keep every other record:
// delivered ones still valid, and ones not delivered (their buyer may
// retry at any time), expired or not.
func TestRedemptionPrune(t *testing.T) {
	bolt, err := openRedemptions(t.TempDir() + "/redemptions.db")
	if err != nil {
		t.Fatal(err)
	}
	defer bolt.close()
	now := time.Now().Unix()
	past, future := strconv.FormatInt(now-7200, 10), strconv.FormatInt(now+7200, 10)
	records := []struct {
		id, state, validBefore string
		gone                   bool
	}{
		{"delivered-expired", redeemDelivered, past, true},
		{"delivered-valid", redeemDelivered, future, false},
		{"paid-expired", redeemPaid, past, false},
		{"pending-expired", redeemPending, past, false},
		{"settling-expired", redeemSettling, past, false},
		{"delivered-unreadable-expiry", redeemDelivered, "soon", false},
	}
	for _, store := range []struct {
		name string
		s    redemptionStore
	}{{"bbolt", bolt}, {"memory", newMemRedemptions()}} {
		t.Run(store.name, func(t *testing.T) {
			for _, r := range records {
				if err := store.s.put(r.id, &redemption{Route: "r", State: r.state, ValidBefore: r.validBefore}); err != nil {
					t.Fatal(err)
				}
			}
			n, err := store.s.prune(now - 3600)
			if err != nil || n != 1 {
				t.Fatalf("prune = %d, %v; want 1 removed", n, err)
			}
			for _, r := range records {
				got, err := store.s.get(r.id)
				if err != nil {
					t.Fatal(err)
				}
				if (got == nil) != r.gone {
					t.Errorf("%s: removed = %v, want %v", r.id, got == nil, r.gone)
				}
			}
		})
	}
}

// TestPaymentIDBinding: both stores bind a payment id to the record that
// carries it, in the same write; refuse to bind it to another
// authorization; and drop the binding with its record, whether deleted
// (nothing moved) or pruned. The bbolt store keeps bindings across a
// reopen.
func TestPaymentIDBinding(t *testing.T) {
	path := t.TempDir() + "/redemptions.db"
	bolt, err := openRedemptions(path)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { bolt.close() }()
	now := time.Now().Unix()
	past := strconv.FormatInt(now-7200, 10)
	for _, store := range []struct {
		name   string
		s      redemptionStore
		reopen func() redemptionStore
	}{
		{"bbolt", bolt, func() redemptionStore {
			if err := bolt.close(); err != nil {
				t.Fatal(err)
			}
			if bolt, err = openRedemptions(path); err != nil {
				t.Fatal(err)
			}
			return bolt
		}},
		{"memory", newMemRedemptions(), nil},
	} {
		t.Run(store.name, func(t *testing.T) {
			s := store.s
			lookup := func(key, wantAuth, wantState string) {
				t.Helper()
				auth, rec, err := s.byPaymentID(key)
				if err != nil {
					t.Fatal(err)
				}
				state := ""
				if rec != nil {
					state = rec.State
				}
				if auth != wantAuth || state != wantState {
					t.Fatalf("byPaymentID(%s) = %q, state %q; want %q, %q", key, auth, state, wantAuth, wantState)
				}
			}
			rec := &redemption{Route: "r", State: redeemSettling, ValidBefore: past, PaymentID: "0xb/pay_1111111111111111", Fingerprint: "f1"}
			if err := s.put("auth1", rec); err != nil {
				t.Fatal(err)
			}
			lookup("0xb/pay_1111111111111111", "auth1", redeemSettling)
			lookup("0xb/pay_2222222222222222", "", "")

			// Another authorization cannot take the id; the record
			// itself may be written again (its next state).
			if err := s.put("auth2", &redemption{Route: "r", State: redeemSettling, PaymentID: "0xb/pay_1111111111111111"}); err != errPaymentIDTaken {
				t.Fatalf("binding a taken id: %v, want errPaymentIDTaken", err)
			}
			if got, _ := s.get("auth2"); got != nil {
				t.Fatal("the refused record was written")
			}
			rec.State = redeemDelivered
			if err := s.put("auth1", rec); err != nil {
				t.Fatal(err)
			}
			if store.reopen != nil {
				s = store.reopen()
			}
			lookup("0xb/pay_1111111111111111", "auth1", redeemDelivered)

			// Deleted (nothing moved): the id is free again.
			if err := s.put("auth3", &redemption{Route: "r", State: redeemSettling, PaymentID: "0xb/pay_3333333333333333"}); err != nil {
				t.Fatal(err)
			}
			if err := s.del("auth3"); err != nil {
				t.Fatal(err)
			}
			lookup("0xb/pay_3333333333333333", "", "")
			if err := s.put("auth4", &redemption{Route: "r", State: redeemSettling, PaymentID: "0xb/pay_3333333333333333"}); err != nil {
				t.Fatalf("binding a freed id: %v", err)
			}

			// Pruned (delivered, expired): the id goes with its record;
			// the others stay.
			if n, err := s.prune(now - 3600); err != nil || n != 1 {
				t.Fatalf("prune = %d, %v; want 1", n, err)
			}
			lookup("0xb/pay_1111111111111111", "", "")
			lookup("0xb/pay_3333333333333333", "auth4", redeemSettling)
		})
	}
}
