package facilitator_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/caddy-x402/caddy-x402/facilitator"
)

// TestJournalRetention starts a facilitator on a journal holding an old
// settled record, an old pending one and a recent settled one: the old
// settled one is compacted away at start, the others stay.
func TestJournalRetention(t *testing.T) {
	now := time.Now()
	j := facilitator.NewMemoryJournal()
	recs := []*facilitator.Record{
		{ID: "cronos-testnet/0xold/1", Network: "cronos-testnet", Status: facilitator.StatusSettled, UpdatedAt: now.Add(-72 * time.Hour)},
		{ID: "cronos-testnet/0xnew/2", Network: "cronos-testnet", Status: facilitator.StatusSettled, UpdatedAt: now.Add(-time.Hour)},
	}
	if err := j.Put(recs...); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name      string
		retention time.Duration
		oldKept   bool
	}{{"keep all", -1, true}, {"48h", 48 * time.Hour, false}} {
		t.Run(tt.name, func(t *testing.T) {
			f, err := facilitator.New(context.Background(), facilitator.Config{
				Networks: []facilitator.NetworkConfig{testnetConfig()}, Journal: j, JournalRetention: tt.retention,
			})
			if err != nil {
				t.Fatal(err)
			}
			f.Close() // waits for the compaction run at start
			_, errOld := j.ByID(recs[0].ID)
			_, errNew := j.ByID(recs[1].ID)
			if (errOld == nil) != tt.oldKept || errNew != nil {
				t.Errorf("old record: %v (kept: want %v); recent record: %v", errOld, tt.oldKept, errNew)
			}
			if !tt.oldKept && !errors.Is(errOld, facilitator.ErrSettlementNotFound) {
				t.Errorf("old record: %v, want ErrSettlementNotFound", errOld)
			}
		})
	}
}
