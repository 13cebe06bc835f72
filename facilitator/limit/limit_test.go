package limit

import (
	"fmt"
	"strings"
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
	if ok, _ := none.Allow("x"); !ok || New(RateLimit{}) != nil {
		t.Errorf("a zero limit must allow everything")
	}
}

// TestLimiterBounded floods a limiter with keys, as an attacker with an
// IPv6 prefix can: at most MaxKeys buckets are held, a long key is
// held as its hash, and a client over its limit stays limited while others
// come and go below the bound.
func TestLimiterBounded(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	l := newLimiter(RateLimit{Requests: 1, Window: time.Hour}, func() time.Time { return now })
	if ok, _ := l.Allow("limited"); !ok {
		t.Fatal("first request refused")
	}
	for i := 0; i < 5*MaxKeys; i++ {
		key := fmt.Sprintf("2001:db8:%x:%x::1", i>>16, i&0xffff)
		if i%2 == 1 {
			key = strings.Repeat("k", 10_000) + key
		}
		if ok, _ := l.Allow(key); !ok {
			t.Fatalf("key %d, new, was refused", i)
		}
	}
	l.mu.Lock()
	n, longest := len(l.buckets), 0
	for k := range l.buckets {
		longest = max(longest, len(k))
	}
	l.mu.Unlock()
	if n > MaxKeys || longest > maxKeyBytes {
		t.Errorf("%d buckets held, longest key %d bytes; want at most %d and %d", n, longest, MaxKeys, maxKeyBytes)
	}

	// Below the bound nothing is dropped: a limited client stays limited.
	small := newLimiter(RateLimit{Requests: 1, Window: time.Hour}, func() time.Time { return now })
	small.Allow("limited")
	for i := 0; i < MaxKeys-1; i++ {
		small.Allow(fmt.Sprint(i))
	}
	if ok, wait := small.Allow("limited"); ok || wait != time.Hour {
		t.Errorf("limited client after %d others: Allow = %v, %s; want false, 1h", MaxKeys-1, ok, wait)
	}
}

// TestLimiterSweepTimer: the buckets of idle clients go on a timer, with no
// further request. The sweep runs every window (here 1 s) and forgets a
// bucket full again, so the bucket is gone within two windows; the bound
// below leaves room for a loaded machine.
func TestLimiterSweepTimer(t *testing.T) {
	l := New(RateLimit{Requests: 2, Window: time.Second})
	for i := 0; i < 1000; i++ {
		l.Allow(fmt.Sprint("client ", i))
	}
	start := time.Now()
	held := 1000
	for held > 0 && time.Since(start) < 12*time.Second {
		time.Sleep(50 * time.Millisecond)
		l.mu.Lock()
		held = len(l.buckets)
		l.mu.Unlock()
	}
	t.Logf("%d buckets held %s after the last request", held, time.Since(start).Round(100*time.Millisecond))
	if held != 0 {
		t.Fatalf("%d idle buckets still held %s after the last request", held, time.Since(start).Round(time.Second))
	}
	l.mu.Lock()
	sweeping := l.sweeping
	l.mu.Unlock()
	if sweeping {
		t.Errorf("the sweep timer still runs with no bucket left")
	}
	if ok, _ := l.Allow("again"); !ok {
		t.Errorf("a new client after the sweep was refused")
	}
}

// TestLimiterExhausted: Exhausted tells whether a key has no token left,
// without taking one.
func TestLimiterExhausted(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	l := newLimiter(RateLimit{Requests: 2, Window: time.Minute}, func() time.Time { return now })
	steps := []struct {
		name     string
		advance  time.Duration
		allow    bool // take a token first
		want     bool
		wantWait time.Duration
	}{
		{"unknown key", 0, false, false, 0},
		{"one token taken", 0, true, false, 0},
		{"peeking takes none", 0, false, false, 0},
		{"both taken", 0, true, true, 30 * time.Second},
		{"half refilled", 20 * time.Second, false, true, 10 * time.Second},
		{"refilled", 10 * time.Second, false, false, 0},
	}
	for _, s := range steps {
		now = now.Add(s.advance)
		if s.allow {
			l.Allow("ip")
		}
		if got, wait := l.Exhausted("ip"); got != s.want || wait != s.wantWait {
			t.Errorf("%s: Exhausted = %v, %s; want %v, %s", s.name, got, wait, s.want, s.wantWait)
		}
	}
	var none *Limiter
	if got, _ := none.Exhausted("ip"); got {
		t.Errorf("a nil limiter is exhausted")
	}
}
