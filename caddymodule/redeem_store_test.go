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
