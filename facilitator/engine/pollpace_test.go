package engine

import (
	"testing"
	"time"
)

// TestPollPace: the pace learns the block gap from the head changes it
// sees (not from a first sighting, which may come long after the block),
// polls at the interval until half an interval before the next block is
// due, then every fifth of the 50 ms interval (10 ms) until the block is
// seen or two intervals overdue, then at the interval again (every half
// interval until a gap is learnt); a gap past
// maxLearntGap is not learnt, and reset forgets the heads but not the gap.
func TestPollPace(t *testing.T) {
	const ms = time.Millisecond
	t0 := time.Unix(1_700_000_000, 0)
	at := func(msec int64) time.Time { return t0.Add(time.Duration(msec) * ms) }
	p := pollPace{interval: 50 * ms}
	if got := p.next(at(0)); got != 25*ms {
		t.Fatalf("next with nothing learnt = %v, want half the interval", got)
	}
	p.saw(100, at(0))   // first sighting: when the block came is unknown
	p.saw(101, at(430)) // a change, but measured from a first sighting: no sample
	if p.gap != 0 {
		t.Fatalf("gap learnt from a first sighting: %v", p.gap)
	}
	p.saw(101, at(440)) // the same head again: nothing
	p.saw(102, at(830)) // 400 ms after a change
	if p.gap != 400*ms {
		t.Fatalf("gap = %v, want 400ms", p.gap)
	}
	for _, tc := range []struct {
		now  int64
		want time.Duration
	}{
		{840, 50 * ms},  // long before the next block (due at 1230)
		{1180, 25 * ms}, // the last plain poll lands where fast polling starts (1205)
		{1205, 10 * ms}, // due soon: fast
		{1230, 10 * ms}, // due
		{1329, 10 * ms}, // overdue, still fast until 1330
		{1330, 50 * ms}, // two intervals overdue: the interval again
		{5000, 50 * ms}, // long overdue
	} {
		if got := p.next(at(tc.now)); got != tc.want {
			t.Errorf("next at %dms = %v, want %v", tc.now, got, tc.want)
		}
	}
	p.saw(104, at(1630)) // two blocks in 800 ms: a sample of 400 ms
	if p.gap != 400*ms {
		t.Fatalf("gap after two blocks in 800ms = %v, want 400ms", p.gap)
	}
	p.saw(105, at(2110)) // 480 ms: the average moves by a quarter
	if p.gap != 420*ms {
		t.Fatalf("gap = %v, want 420ms", p.gap)
	}
	p.saw(106, at(2110+11_000)) // too slow to learn
	if p.gap != 420*ms {
		t.Fatalf("gap after an 11 s block = %v, want 420ms kept", p.gap)
	}
	p.reset()
	if got := p.next(at(20000)); got != 50*ms {
		t.Fatalf("next after reset = %v, want the interval", got)
	}
	p.saw(107, at(20000))
	p.saw(108, at(20100)) // measured from a first sighting after reset: no sample
	if p.gap != 420*ms {
		t.Fatalf("gap after reset = %v, want 420ms kept", p.gap)
	}
}
