package facilitator

import (
	"testing"
	"time"
)

func TestLimiter(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	l := newLimiter(RateLimit{Requests: 2, Window: time.Minute}, func() time.Time { return now })
	steps := []struct {
		advance  time.Duration
		key      string
		ok       bool
		wantWait time.Duration
	}{
		{0, "a", true, 0},
		{0, "a", true, 0},
		{0, "a", false, 30 * time.Second}, // one token per 30 s
		{0, "b", true, 0},                 // keys are apart
		{10 * time.Second, "a", false, 20 * time.Second},
		{20 * time.Second, "a", true, 0},
		{0, "a", false, 30 * time.Second},
		{2 * time.Minute, "a", true, 0}, // refilled, and swept
		{0, "a", true, 0},
		{0, "a", false, 30 * time.Second},
	}
	for i, s := range steps {
		now = now.Add(s.advance)
		ok, wait := l.Allow(s.key)
		if ok != s.ok || wait != s.wantWait {
			t.Errorf("step %d (%s): Allow = %v, %s; want %v, %s", i, s.key, ok, wait, s.ok, s.wantWait)
		}
	}
	if n := len(l.buckets); n > 2 {
		t.Errorf("%d buckets kept, want at most 2", n)
	}
	var none *Limiter
	if ok, _ := none.Allow("x"); !ok || NewLimiter(RateLimit{}) != nil {
		t.Errorf("a zero limit must allow everything")
	}
}
