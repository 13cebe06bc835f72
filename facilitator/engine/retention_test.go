package engine

import (
	"errors"
	"path/filepath"
	"testing"
	"time"
)

func TestJournalCompact(t *testing.T) {
	now := time.Unix(1_800_000_000, 0).UTC()
	old, recent := now.Add(-48*time.Hour), now.Add(-time.Hour)
	recs := []*Record{
		{ID: "n/a/1", Status: StatusSettled, UpdatedAt: old, Txs: []JournalTx{{Hash: "0xA1"}}},
		{ID: "n/a/2", Status: StatusFailed, UpdatedAt: old, Txs: []JournalTx{{Hash: "0xa2"}}},
		{ID: "n/a/3", Status: StatusPending, UpdatedAt: old, Txs: []JournalTx{{Hash: "0xa3"}}},
		{ID: "n/a/4", Status: StatusSettled, UpdatedAt: recent, Txs: []JournalTx{{Hash: "0xa4"}}},
	}
	bolt, err := OpenJournal(filepath.Join(t.TempDir(), "j.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer bolt.Close()
	for name, j := range map[string]Journal{"bolt": bolt, "memory": NewMemoryJournal()} {
		t.Run(name, func(t *testing.T) {
			if err := j.Put(recs...); err != nil {
				t.Fatal(err)
			}
			n, err := j.(Compacter).Compact(now.Add(-24 * time.Hour))
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
				if !c.kept && (!errors.Is(err1, ErrNotFound) || !errors.Is(err2, ErrNotFound)) {
					t.Errorf("%s: want ErrNotFound, got %v, %v", c.id, err1, err2)
				}
			}
			if p, _ := j.Pending(); len(p) != 1 || p[0].ID != "n/a/3" {
				t.Errorf("pending after compaction: %v", p)
			}
		})
	}
}
