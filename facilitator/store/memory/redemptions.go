package memory

import (
	"encoding/json"
	"sync"

	"github.com/caddy-x402/caddy-x402/facilitator/store"
)

// redemptions is the store in memory, for a devnet (whose chain does
// not outlive the process either).
type redemptions struct {
	mu  sync.Mutex
	m   map[string][]byte // records by authorization
	ids map[string]string // payment id key -> authorization
	txs map[string]string // transaction (store.TxKey) -> authorization

	// The access grants, payment channels and cooling-offs beside them:
	// the store is a store.Grants, a store.Channels and a store.CoolOffs.
	*grants
	*channels
	*coolOffs
}

// The capabilities kept beside the redemptions.
var (
	_ store.Grants   = (*redemptions)(nil)
	_ store.Channels = (*redemptions)(nil)
	_ store.CoolOffs = (*redemptions)(nil)
)

// NewRedemptions returns a redemption store that lives in memory only.
func NewRedemptions() store.Redemptions {
	return &redemptions{m: map[string][]byte{}, ids: map[string]string{}, txs: map[string]string{}, grants: newGrants(),
		channels: &channels{m: map[string]*store.Channel{}}, coolOffs: newCoolOffs()}
}

func (s *redemptions) Get(id string) (*store.Redemption, error) {
	s.mu.Lock()
	v, ok := s.m[id]
	s.mu.Unlock()
	if !ok {
		return nil, nil
	}
	out := new(store.Redemption)
	return out, json.Unmarshal(v, out)
}

func (s *redemptions) Put(id string, r *store.Redemption) error {
	_, err := s.put(id, r, false)
	return err
}

func (s *redemptions) Create(id string, r *store.Redemption) (bool, error) {
	return s.put(id, r, true)
}

// put writes a record (only when there is none, if absent) and says
// whether it did.
func (s *redemptions) put(id string, r *store.Redemption, absent bool) (bool, error) {
	data, err := json.Marshal(r)
	if err != nil {
		return false, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	old, ok := s.m[id]
	if ok && absent {
		return false, nil
	}
	if r.PaymentID != "" {
		if cur, ok := s.ids[r.PaymentID]; ok && cur != id {
			return false, store.ErrPaymentIDTaken
		}
		s.ids[r.PaymentID] = id
	}
	var prev store.Redemption
	if ok && json.Unmarshal(old, &prev) == nil && prev.TxHash != "" && store.TxKey(prev.TxHash) != store.TxKey(r.TxHash) {
		s.unbindTx(prev.TxHash, id)
	}
	if r.TxHash != "" {
		s.txs[store.TxKey(r.TxHash)] = id
	}
	s.m[id] = data
	return true, nil
}

func (s *redemptions) Delete(id string) error {
	s.mu.Lock()
	s.remove(id)
	s.mu.Unlock()
	return nil
}

// remove deletes a record and the binding of its payment id, if the
// binding is the record's. The caller holds mu.
func (s *redemptions) remove(id string) {
	var r store.Redemption
	if v, ok := s.m[id]; ok && json.Unmarshal(v, &r) == nil && r.PaymentID != "" && s.ids[r.PaymentID] == id {
		delete(s.ids, r.PaymentID)
	}
	if r.TxHash != "" {
		s.unbindTx(r.TxHash, id)
	}
	delete(s.m, id)
}

// unbindTx removes the index of transaction tx if it is id's. The caller
// holds mu.
func (s *redemptions) unbindTx(tx, id string) {
	if k := store.TxKey(tx); s.txs[k] == id {
		delete(s.txs, k)
	}
}

func (s *redemptions) ByPaymentID(key string) (string, *store.Redemption, error) {
	return s.byIndex(s.ids, key)
}

func (s *redemptions) ByTransaction(tx string) (string, *store.Redemption, error) {
	return s.byIndex(s.txs, store.TxKey(tx))
}

// byIndex is the record an index (ids or txs) maps key to, and its id; ""
// and nil when there is none. (An index entry and its record are written
// and removed together.)
func (s *redemptions) byIndex(index map[string]string, key string) (string, *store.Redemption, error) {
	s.mu.Lock()
	id, ok := index[key]
	v := s.m[id]
	s.mu.Unlock()
	if !ok || v == nil {
		return "", nil, nil
	}
	out := new(store.Redemption)
	return id, out, json.Unmarshal(v, out)
}

func (s *redemptions) Prune(expiredBefore int64) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for id, v := range s.m {
		var r store.Redemption
		if json.Unmarshal(v, &r) == nil && r.Prunable(expiredBefore) {
			s.remove(id)
			n++
		}
	}
	return n, nil
}

func (s *redemptions) Close() error { return nil }
