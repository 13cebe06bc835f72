package engine

import (
	"sync"

	"github.com/ethereum/go-ethereum/common"
)

// authKey identifies an authorization on one network's token: the token
// itself (EIP-3009, space "") or another contract (a nonce space of
// Config.Spaces, such as Permit2's) marks
// (from, nonce) as used. Buyers pick nonces, so one nonce may be used in
// both spaces: they are different authorizations.
type authKey struct {
	from  common.Address
	nonce [32]byte
	space string
}

// inflight holds the authorizations being settled, so that the same
// authorization settled twice, in sequence or concurrently, sends at most
// one transaction. A key is held until the outcome is final: mined, or
// certainly never broadcast.
type inflight struct {
	mu   sync.Mutex
	keys map[authKey]struct{}
}

func newInflight() *inflight { return &inflight{keys: map[authKey]struct{}{}} }

// acquire takes the key; false means another settle holds it.
func (s *inflight) acquire(k authKey) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, busy := s.keys[k]; busy {
		return false
	}
	s.keys[k] = struct{}{}
	return true
}

func (s *inflight) release(k authKey) {
	s.mu.Lock()
	delete(s.keys, k)
	s.mu.Unlock()
}
