package engine

import (
	"testing"
	"time"
)

// TestBurstMemory: memory is given back once per burst of at least
// burstSettlements, after burstQuiet with nothing pending; not after a
// small burst, not while settlements keep coming.
func TestBurstMemory(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	type step struct {
		add  int           // settlements added before the idle poll
		at   time.Duration // time of the idle poll
		free int           // releases so far
	}
	for _, tc := range []struct {
		name  string
		steps []step
	}{
		{"small burst", []step{{add: burstSettlements - 1}, {at: time.Minute}, {at: time.Hour}}},
		{"burst, then quiet", []step{{add: burstSettlements}, {at: time.Second}, {at: burstQuiet - time.Millisecond}, {at: burstQuiet, free: 1}, {at: time.Hour, free: 1}}},
		{"one settlement restarts the quiet time", []step{{add: 500}, {at: time.Second}, {add: 1, at: 3 * time.Second}, {at: 3*time.Second + burstQuiet - time.Millisecond}, {at: 3*time.Second + burstQuiet, free: 1}}},
		{"two bursts", []step{{add: 100}, {}, {at: burstQuiet, free: 1}, {add: 100, at: time.Minute, free: 1}, {at: time.Minute + burstQuiet, free: 2}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			freed := 0
			m := burstMemory{free: func() { freed++ }}
			for i, s := range tc.steps {
				if s.add > 0 {
					m.added(s.add)
				}
				m.idle(t0.Add(s.at))
				if freed != s.free {
					t.Fatalf("step %d: memory given back %d times, want %d", i, freed, s.free)
				}
			}
		})
	}
}
