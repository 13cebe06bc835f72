package limit

import (
	"sync"
	"time"
)

// Set holds limiters by operation and limit, made on first use. Handlers built with the same
// limits get the same Limiter, so a new handler (a Caddy config reload) keeps the counts. The
// zero Set is ready to use and safe for concurrent use.
type Set struct {
	mu       sync.Mutex
	limiters map[string]*Limiter // by operation and limit
}

// Get returns the set's limiter for an operation and limit, creating it on first use; nil (no
// limit) when l has no positive Requests and Window.
func (s *Set) Get(op string, l RateLimit) *Limiter {
	s.mu.Lock()
	defer s.mu.Unlock()
	key := op + " " + l.String()
	if lim, ok := s.limiters[key]; ok {
		return lim
	}
	lim := newLimiter(l, time.Now)
	if s.limiters == nil {
		s.limiters = map[string]*Limiter{}
	}
	s.limiters[key] = lim
	return lim
}
