package memory

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/caddy-x402/caddy-x402/facilitator/store"
)

// coolOffs are the cooling-offs in memory, beside the memory journal.
type coolOffs struct {
	mu sync.Mutex
	m  map[string]store.CoolOff
}

// NewCoolOffs returns cooling-offs that live in memory only (for a
// journal that keeps none).
func NewCoolOffs() store.CoolOffs { return newCoolOffs() }

func newCoolOffs() *coolOffs { return &coolOffs{m: map[string]store.CoolOff{}} }

func (s *coolOffs) Strike(_ context.Context, keys []string, txHash string, now time.Time, base, max time.Duration) ([]store.CoolOff, error) {
	keys, err := store.CheckStrike(keys, txHash, base, max)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]store.CoolOff, len(keys))
	for i, k := range keys {
		var cur *store.CoolOff
		if c, ok := s.m[k]; ok {
			cur = &c
		}
		c, _ := store.StrikeOne(cur, k, txHash, now, base, max)
		s.m[k], out[i] = c, c
	}
	return out, nil
}

func (s *coolOffs) CoolingOff(_ context.Context, keys []string, now time.Time) (*store.CoolOff, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var cs []store.CoolOff
	for _, k := range keys {
		if c, ok := s.m[strings.ToLower(k)]; ok {
			cs = append(cs, c)
		}
	}
	return store.LatestCoolOff(cs, now), nil
}

func (s *coolOffs) PruneCoolOffs(t time.Time) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for k, c := range s.m {
		if c.Until.Before(t) {
			delete(s.m, k)
			n++
		}
	}
	return n, nil
}
