package facilitator

import (
	"fmt"
	"sync"
	"time"

	"golang.org/x/time/rate"
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

// Limiter is a token bucket per key (a client IP, an API key): Requests
// tokens, refilled evenly over Window, from golang.org/x/time/rate. Idle
// buckets are swept, so memory stays bounded by the active keys. A nil
// *Limiter allows everything. It is safe for concurrent use.
type Limiter struct {
	limit RateLimit
	every rate.Limit
	now   func() time.Time

	mu        sync.Mutex
	buckets   map[string]*rate.Limiter
	lastSweep time.Time
}

// NewLimiter returns a limiter for l, or nil (no limit) when l has no
// positive Requests and Window.
func NewLimiter(l RateLimit) *Limiter { return newLimiter(l, time.Now) }

func newLimiter(l RateLimit, now func() time.Time) *Limiter {
	if l.Requests <= 0 || l.Window <= 0 {
		return nil
	}
	return &Limiter{
		limit:   l,
		every:   rate.Every(l.Window / time.Duration(l.Requests)),
		now:     now,
		buckets: map[string]*rate.Limiter{},
	}
}

// Allow takes a token for key. When none is left it returns false and how
// long until one is.
func (l *Limiter) Allow(key string) (bool, time.Duration) {
	if l == nil {
		return true, 0
	}
	now := l.now()
	l.mu.Lock()
	if now.Sub(l.lastSweep) > l.limit.Window {
		// A bucket idle for a whole window is full again: forget it.
		for k, b := range l.buckets {
			if b.TokensAt(now) >= float64(l.limit.Requests) {
				delete(l.buckets, k)
			}
		}
		l.lastSweep = now
	}
	b, ok := l.buckets[key]
	if !ok {
		b = rate.NewLimiter(l.every, l.limit.Requests)
		l.buckets[key] = b
	}
	l.mu.Unlock()
	r := b.ReserveN(now, 1)
	if d := r.DelayFrom(now); d > 0 {
		r.CancelAt(now)
		return false, d
	}
	return true, 0
}

// limiter returns the facilitator's limiter for an operation and limit,
// creating it on first use. Handlers built with the same limits share one,
// so a new Handler (a Caddy config reload) keeps the counts.
func (f *Facilitator) limiter(op string, l RateLimit) *Limiter {
	f.limitersMu.Lock()
	defer f.limitersMu.Unlock()
	key := op + " " + l.String()
	if lim, ok := f.limiters[key]; ok {
		return lim
	}
	lim := newLimiter(l, time.Now)
	if f.limiters == nil {
		f.limiters = map[string]*Limiter{}
	}
	f.limiters[key] = lim
	return lim
}
