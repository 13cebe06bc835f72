package facilitator

import (
	"fmt"
	"math"
	"sync"
	"time"
)

// RateLimit allows Requests per Window per client IP. A zero Requests
// means no limit.
type RateLimit struct {
	// Requests is how many requests one client IP may make per Window.
	Requests int `json:"requests,omitempty"`
	// Window is the period the limit applies to.
	Window time.Duration `json:"window,omitempty"`
}

// Spec limits (spec part 8).
var (
	DefaultVerifyLimit = RateLimit{Requests: 10, Window: time.Minute}
	DefaultSettleLimit = RateLimit{Requests: 5, Window: time.Minute}
)

func (l RateLimit) String() string {
	return fmt.Sprintf("%d per %s", l.Requests, l.Window)
}

// limiter is a token bucket per key: Requests tokens, refilled evenly over
// Window. Idle buckets are swept so memory stays bounded by active clients.
type limiter struct {
	limit RateLimit
	now   func() time.Time

	mu        sync.Mutex
	buckets   map[string]*bucket
	lastSweep time.Time
}

type bucket struct {
	tokens float64
	at     time.Time
}

func newLimiter(l RateLimit, now func() time.Time) *limiter {
	if l.Requests <= 0 || l.Window <= 0 {
		return nil
	}
	return &limiter{limit: l, now: now, buckets: map[string]*bucket{}}
}

// allow takes a token for key. When none is left it returns false and how
// long until one is.
func (l *limiter) allow(key string) (bool, time.Duration) {
	if l == nil {
		return true, 0
	}
	now := l.now()
	rate := float64(l.limit.Requests) / l.limit.Window.Seconds() // tokens per second
	capacity := float64(l.limit.Requests)

	l.mu.Lock()
	defer l.mu.Unlock()
	if now.Sub(l.lastSweep) > l.limit.Window {
		for k, b := range l.buckets {
			if now.Sub(b.at) > l.limit.Window {
				delete(l.buckets, k)
			}
		}
		l.lastSweep = now
	}
	b, ok := l.buckets[key]
	if !ok {
		b = &bucket{tokens: capacity, at: now}
		l.buckets[key] = b
	}
	b.tokens = math.Min(capacity, b.tokens+now.Sub(b.at).Seconds()*rate)
	b.at = now
	if b.tokens >= 1 {
		b.tokens--
		return true, 0
	}
	wait := time.Duration((1 - b.tokens) / rate * float64(time.Second))
	return false, wait
}

// limiter returns the facilitator's limiter for an operation and limit,
// creating it on first use. Handlers built with the same limits share one,
// so a new Handler (a Caddy config reload) keeps the counts.
func (f *Facilitator) limiter(op string, l RateLimit) *limiter {
	f.limitersMu.Lock()
	defer f.limitersMu.Unlock()
	key := op + " " + l.String()
	if lim, ok := f.limiters[key]; ok {
		return lim
	}
	lim := newLimiter(l, time.Now)
	if f.limiters == nil {
		f.limiters = map[string]*limiter{}
	}
	f.limiters[key] = lim
	return lim
}
