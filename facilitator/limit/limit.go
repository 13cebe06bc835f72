// Package limit holds the token-bucket rate limiter of the facilitator's HTTP API and of the
// paywall's attempt limit: a bucket per key (client IP, API key), bounded in memory, and a Set
// that keeps limiters across handlers (a Caddy config reload keeps the counts).
package limit

import (
	"crypto/sha256"
	"fmt"
	"strings"
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

func (l RateLimit) String() string {
	return fmt.Sprintf("%d per %s", l.Requests, l.Window)
}

// Bounds of a Limiter's memory. Its keys come from unauthenticated
// requests (a client IP, of which an IPv6 attacker has billions), so it
// holds at most MaxKeys buckets of at most maxKeyBytes of key
// each: about 3 MB.
const (
	// MaxKeys is how many keys (client IPs, API keys) one Limiter
	// tracks at once. When a new key comes to a full limiter, the buckets
	// of keys idle for a whole window are dropped, and if that is not
	// enough, arbitrary ones (whose clients start afresh with a full
	// bucket).
	MaxKeys = 20_000
	// maxKeyBytes bounds a key as stored: a longer one is kept as
	// its SHA-256.
	maxKeyBytes = 64
	// minSweep is the shortest interval of the sweep timer.
	minSweep = time.Second
)

// Limiter is a token bucket per key (a client IP, an API key): Requests
// tokens, refilled evenly over Window, from golang.org/x/time/rate. A
// bucket idle for a whole window is full again and is forgotten by a
// sweep that runs on a timer while the limiter holds buckets (every
// Window, at least every second), so idle keys are gone within two
// windows without any new request; at most MaxKeys are held. A nil
// *Limiter allows everything. It is safe for concurrent use.
type Limiter struct {
	limit   RateLimit
	every   rate.Limit
	now     func() time.Time
	maxKeys int

	mu       sync.Mutex
	buckets  map[string]*rate.Limiter
	sweeping bool // a sweep timer is pending
}

// New returns a limiter for l, or nil (no limit) when l has no
// positive Requests and Window.
func New(l RateLimit) *Limiter { return newLimiter(l, time.Now) }

func newLimiter(l RateLimit, now func() time.Time) *Limiter {
	if l.Requests <= 0 || l.Window <= 0 {
		return nil
	}
	return &Limiter{
		limit:   l,
		every:   rate.Every(l.Window / time.Duration(l.Requests)),
		now:     now,
		maxKeys: MaxKeys,
		buckets: map[string]*rate.Limiter{},
	}
}

// Limit is the limit l applies.
func (l *Limiter) Limit() RateLimit { return l.limit }

// Allow takes a token for key. When none is left it returns false and how
// long until one is.
func (l *Limiter) Allow(key string) (bool, time.Duration) {
	if l == nil {
		return true, 0
	}
	now := l.now()
	b := l.bucket(limiterKey(key), now)
	r := b.ReserveN(now, 1)
	if d := r.DelayFrom(now); d > 0 {
		r.CancelAt(now)
		return false, d
	}
	return true, 0
}

// Exhausted reports, without taking a token, whether key has none left,
// and if so how long until it has one. A key the limiter does not track
// has a full bucket.
func (l *Limiter) Exhausted(key string) (bool, time.Duration) {
	if l == nil {
		return false, 0
	}
	now := l.now()
	l.mu.Lock()
	b, ok := l.buckets[limiterKey(key)]
	l.mu.Unlock()
	if !ok {
		return false, 0
	}
	tokens := b.TokensAt(now)
	if tokens >= 1 {
		return false, 0
	}
	return true, time.Duration((1 - tokens) / float64(l.every) * float64(time.Second))
}

// bucket returns key's bucket, making room for a new one when the limiter
// is full and starting the sweep timer when it is not running.
func (l *Limiter) bucket(key string, now time.Time) *rate.Limiter {
	l.mu.Lock()
	defer l.mu.Unlock()
	if b, ok := l.buckets[key]; ok {
		return b
	}
	if len(l.buckets) >= l.maxKeys {
		l.sweepLocked(now)
		for k := range l.buckets {
			if len(l.buckets) < l.maxKeys*7/8 {
				break
			}
			delete(l.buckets, k)
		}
	}
	b := rate.NewLimiter(l.every, l.limit.Requests)
	l.buckets[strings.Clone(key)] = b // not a part of a larger string
	if !l.sweeping {
		l.sweeping = true
		time.AfterFunc(l.sweepInterval(), l.sweepTimer)
	}
	return b
}

// sweepInterval is how often the timer sweeps: every window, at least
// every minSweep.
func (l *Limiter) sweepInterval() time.Duration {
	return max(l.limit.Window, minSweep)
}

// sweepTimer sweeps, and runs again while buckets are left.
func (l *Limiter) sweepTimer() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.sweepLocked(l.now())
	if len(l.buckets) == 0 {
		l.sweeping = false
		return
	}
	time.AfterFunc(l.sweepInterval(), l.sweepTimer)
}

// sweepLocked forgets the buckets that are full at now (idle for a whole
// window); an empty map is made anew, so that its memory goes too. The
// caller holds mu.
func (l *Limiter) sweepLocked(now time.Time) {
	for k, b := range l.buckets {
		if b.TokensAt(now) >= float64(l.limit.Requests) {
			delete(l.buckets, k)
		}
	}
	if len(l.buckets) == 0 {
		l.buckets = map[string]*rate.Limiter{}
	}
}

// limiterKey is key as a limiter stores it: as it is, or its SHA-256 when
// it is longer than maxKeyBytes.
func limiterKey(key string) string {
	if len(key) <= maxKeyBytes {
		return key
	}
	h := sha256.Sum256([]byte(key))
	return string(h[:])
}
