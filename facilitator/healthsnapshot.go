package facilitator

import (
	"context"
	"sync"
	"time"
)

// HealthMaxAge is the age past which the health snapshot is refreshed: the
// chain is asked at most once per HealthMaxAge, whatever the traffic on
// /healthcheck.
const HealthMaxAge = time.Second

// healthSnapshot is the last health check of every network.
type healthSnapshot struct {
	mu         sync.Mutex
	nets       []NetworkHealth // never changed once stored
	at         time.Time
	refreshing bool
	done       chan struct{} // closed when the running refresh ends
}

// healthNetworks returns the networks' health facts: the snapshot, with a
// refresh started in the background when it is older than HealthMaxAge.
// With no snapshot yet, it waits for the first check (or ctx).
func (f *Facilitator) healthNetworks(ctx context.Context) []NetworkHealth {
	s := &f.health
	s.mu.Lock()
	stale := time.Since(s.at) > HealthMaxAge
	if stale && !s.refreshing {
		s.refreshing = true
		s.done = make(chan struct{})
		go f.refreshHealth()
	}
	nets, done := s.nets, s.done
	s.mu.Unlock()
	if nets == nil {
		select {
		case <-done:
		case <-ctx.Done():
		}
		s.mu.Lock()
		nets = s.nets
		s.mu.Unlock()
	}
	return append([]NetworkHealth(nil), nets...)
}

// refreshHealth checks every network and stores the result.
func (f *Facilitator) refreshHealth() {
	nets := f.checkNetworks(f.ctx)
	s := &f.health
	s.mu.Lock()
	s.nets, s.at, s.refreshing = nets, time.Now(), false
	close(s.done)
	s.mu.Unlock()
}
