package memory

import (
	"context"
	"math/big"
	"sync"
	"time"

	"github.com/caddy-x402/caddy-x402/facilitator/store"
)

// channels are the channels in memory, beside the memory redemptions.
type channels struct {
	mu sync.Mutex
	m  map[string]*store.Channel
}

func (s *channels) Sync(ctx context.Context, id, network string, cfg store.ChannelConfig, cs store.ChainState) (*store.Channel, error) {
	k, err := store.ChannelKey(id)
	if err != nil {
		return nil, err
	}
	if err := store.CheckSync(network, &cfg, cs); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.m[k]
	if !ok {
		c = store.NewChannel(k, network, cfg, cs, time.Now())
		s.m[k] = c
	} else {
		c.ApplySync(cs)
	}
	return c.Clone(), nil
}

func (s *channels) Charge(ctx context.Context, id string, prev, charged *big.Int, v store.ChannelVoucher) (*store.Channel, error) {
	k, err := store.ChannelKey(id)
	if err != nil {
		return nil, err
	}
	if err := store.CheckCharge(prev, charged, v); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.m[k]
	if !ok {
		return nil, store.ErrChannelNotFound
	}
	if err := store.ChargeRefusal(c, prev, charged); err != nil {
		return c.Clone(), err
	}
	c.ApplyCharge(charged, v, time.Now())
	return c.Clone(), nil
}

func (s *channels) Channel(ctx context.Context, id string) (*store.Channel, error) {
	k, err := store.ChannelKey(id)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if c, ok := s.m[k]; ok {
		return c.Clone(), nil
	}
	return nil, nil
}

func (s *channels) MarkClaimed(ctx context.Context, id string, claimed *big.Int) error {
	k, err := store.AmountKey(id, claimed)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.m[k]
	if !ok {
		return store.ErrChannelNotFound
	}
	c.RaiseClaimed(claimed)
	return nil
}

func (s *channels) FenceClaim(ctx context.Context, id string, total *big.Int) (bool, error) {
	k, err := store.AmountKey(id, total)
	if err != nil {
		return false, err
	}
	return s.modify(k, func(c *store.Channel) bool { return c.RaiseClaiming(total) })
}

func (s *channels) TakeRefundSlot(ctx context.Context, id string, at time.Time, window time.Duration) (bool, error) {
	return s.modify(id, func(c *store.Channel) bool { return c.TakeRefundSlot(store.SlotTime(at), window) })
}

func (s *channels) ReturnRefundSlot(ctx context.Context, id string, at time.Time) error {
	_, err := s.modify(id, func(c *store.Channel) bool { return c.ReturnRefundSlot(store.SlotTime(at)) })
	return err
}

// modify applies change to channel id's record under the lock: false
// when change did not change it, or there is no record.
func (s *channels) modify(id string, change func(*store.Channel) bool) (bool, error) {
	k, err := store.ChannelKey(id)
	if err != nil {
		return false, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.m[k]
	return ok && change(c), nil
}

func (s *channels) SetChannelState(ctx context.Context, id, from, to string) (bool, error) {
	k, err := store.ChannelKey(id)
	if err != nil {
		return false, err
	}
	if err := store.CheckChannelState(to); err != nil {
		return false, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.m[k]
	if !ok || c.State != from {
		return false, nil
	}
	c.State = to
	return true, nil
}

// list collects the records that pass keep, ordered by key.
func (s *channels) list(keep func(*store.Channel) bool, key func(*store.Channel) time.Time, limit int) []*store.Channel {
	s.mu.Lock()
	var out []*store.Channel
	for _, c := range s.m {
		if keep(c) {
			out = append(out, c.Clone())
		}
	}
	s.mu.Unlock()
	return store.SortChannels(out, key, store.ListLimit(limit))
}

func (s *channels) ToClaim(ctx context.Context, network string, limit int) ([]*store.Channel, error) {
	return s.list(func(c *store.Channel) bool { return store.IsClaimable(c, network) }, store.LastActivityOf, limit), nil
}

func (s *channels) Idle(ctx context.Context, before time.Time, limit int) ([]*store.Channel, error) {
	return s.list(func(c *store.Channel) bool { return store.IsIdle(c, before) }, store.LastActivityOf, limit), nil
}

func (s *channels) Withdrawing(ctx context.Context, after *store.Channel, limit int) ([]*store.Channel, error) {
	return s.list(store.WithdrawingAfter(after), store.WithdrawRequestedOf, limit), nil
}

func (s *channels) Refunding(ctx context.Context, limit int) ([]*store.Channel, error) {
	return s.list(store.IsRefunding, store.LastActivityOf, limit), nil
}

func (s *channels) ChannelStats(ctx context.Context) (map[string]store.ChannelStats, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]store.ChannelStats{}
	for _, c := range s.m {
		store.AddChannelStats(out, c)
	}
	return out, nil
}

func (s *channels) PruneChannels(ctx context.Context, before time.Time) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for k, c := range s.m {
		if store.IsPrunable(c, before) {
			delete(s.m, k)
			n++
		}
	}
	return n, nil
}
