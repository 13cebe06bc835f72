package store

import (
	"encoding/json"
	"sync"
)

// memRedemptions is the store in memory, for a devnet (whose chain does
// not outlive the process either).
type memRedemptions struct {
	mu  sync.Mutex
	m   map[string][]byte // records by authorization
	ids map[string]string // payment id key -> authorization

	grants   *memGrants   // the access grants beside them
	channels *memChannels // the payment channels beside them (made on first use)
	cool     *memCoolOffs // the cooling-offs beside them (cooloffs.go)
}

// NewMemoryRedemptions returns a redemption store that lives in memory only.
func NewMemoryRedemptions() Redemptions {
	return &memRedemptions{m: map[string][]byte{}, ids: map[string]string{}, grants: newMemGrants(), cool: &memCoolOffs{m: map[string]CoolOff{}}}
}

func (s *memRedemptions) Get(id string) (*Redemption, error) {
	s.mu.Lock()
	v, ok := s.m[id]
	s.mu.Unlock()
	if !ok {
		return nil, nil
	}
	out := new(Redemption)
	return out, json.Unmarshal(v, out)
}

func (s *memRedemptions) Put(id string, r *Redemption) error {
	_, err := s.put(id, r, false)
	return err
}

func (s *memRedemptions) Create(id string, r *Redemption) (bool, error) {
	return s.put(id, r, true)
}

// put writes a record (only when there is none, if absent) and says
// whether it did.
func (s *memRedemptions) put(id string, r *Redemption, absent bool) (bool, error) {
	data, err := json.Marshal(r)
	if err != nil {
		return false, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.m[id]; ok && absent {
		return false, nil
	}
	if r.PaymentID != "" {
		if cur, ok := s.ids[r.PaymentID]; ok && cur != id {
			return false, ErrPaymentIDTaken
		}
		s.ids[r.PaymentID] = id
	}
	s.m[id] = data
	return true, nil
}

func (s *memRedemptions) Delete(id string) error {
	s.mu.Lock()
	s.remove(id)
	s.mu.Unlock()
	return nil
}

// remove deletes a record and the binding of its payment id, if the
// binding is the record's. The caller holds mu.
func (s *memRedemptions) remove(id string) {
	var r Redemption
	if v, ok := s.m[id]; ok && json.Unmarshal(v, &r) == nil && r.PaymentID != "" && s.ids[r.PaymentID] == id {
		delete(s.ids, r.PaymentID)
	}
	delete(s.m, id)
}

func (s *memRedemptions) ByPaymentID(key string) (string, *Redemption, error) {
	s.mu.Lock()
	id, ok := s.ids[key]
	v := s.m[id]
	s.mu.Unlock()
	if !ok {
		return "", nil, nil
	}
	if v == nil {
		return id, nil, nil
	}
	out := new(Redemption)
	return id, out, json.Unmarshal(v, out)
}

func (s *memRedemptions) Prune(expiredBefore int64) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for id, v := range s.m {
		var r Redemption
		if json.Unmarshal(v, &r) == nil && r.Prunable(expiredBefore) {
			s.remove(id)
			n++
		}
	}
	return n, nil
}

func (s *memRedemptions) Close() error { return nil }
