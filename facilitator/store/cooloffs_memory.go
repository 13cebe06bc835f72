package store

import (
	"context"
	"strings"
	"sync"
	"time"
)

// memCoolOffs are the cooling-offs in memory, beside the memory journal.
type memCoolOffs struct {
	mu sync.Mutex
	m  map[string]CoolOff
}

// NewMemoryCoolOffs returns cooling-offs that live in memory only (for a
// journal that keeps none).
func NewMemoryCoolOffs() CoolOffs { return &memCoolOffs{m: map[string]CoolOff{}} }

// CoolOffs is the cooling-offs that live beside the memory journal.
func (j *memJournal) CoolOffs() CoolOffs { return j.cool }

// CoolOffs is the cooling-offs that live beside the memory redemptions.
func (s *memRedemptions) CoolOffs() CoolOffs { return s.cool }

func (s *memCoolOffs) Strike(_ context.Context, keys []string, txHash string, now time.Time, base, max time.Duration) ([]CoolOff, error) {
	keys, err := checkStrike(keys, txHash, base, max)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]CoolOff, len(keys))
	for i, k := range keys {
		var cur *CoolOff
		if c, ok := s.m[k]; ok {
			cur = &c
		}
		c, _ := strikeOne(cur, k, txHash, now, base, max)
		s.m[k], out[i] = c, c
	}
	return out, nil
}

func (s *memCoolOffs) CoolingOff(_ context.Context, keys []string, now time.Time) (*CoolOff, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var cs []CoolOff
	for _, k := range keys {
		if c, ok := s.m[strings.ToLower(k)]; ok {
			cs = append(cs, c)
		}
	}
	return latest(cs, now), nil
}

func (s *memCoolOffs) PruneCoolOffs(t time.Time) (int, error) {
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
