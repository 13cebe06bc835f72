package store

import (
	"context"
	"math/big"
	"sync"
	"time"
)

// memChannels are the channels in memory, beside the memory redemptions.
type memChannels struct {
	mu sync.Mutex
	m  map[string]*Channel
}

// Channels is the channel store beside the redemptions.
func (s *memRedemptions) Channels() Channels {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.channels == nil {
		s.channels = &memChannels{m: map[string]*Channel{}}
	}
	return s.channels
}

func (s *memChannels) Sync(ctx context.Context, id, network string, cfg ChannelConfig, cs ChainState) (*Channel, error) {
	k, err := channelKey(id)
	if err != nil {
		return nil, err
	}
	if err := checkSync(network, &cfg, cs); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.m[k]
	if !ok {
		c = newChannel(k, network, cfg, cs, time.Now())
		s.m[k] = c
	} else {
		c.applySync(cs)
	}
	return c.clone(), nil
}

func (s *memChannels) Charge(ctx context.Context, id string, prev, charged *big.Int, v ChannelVoucher) (*Channel, error) {
	k, err := channelKey(id)
	if err != nil {
		return nil, err
	}
	if err := checkChargeArgs(prev, charged, v); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.m[k]
	if !ok {
		return nil, ErrChannelNotFound
	}
	if err := chargeRefusal(c, prev, charged); err != nil {
		return c.clone(), err
	}
	c.chargeInto(charged, v, time.Now())
	return c.clone(), nil
}

func (s *memChannels) Channel(ctx context.Context, id string) (*Channel, error) {
	k, err := channelKey(id)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if c, ok := s.m[k]; ok {
		return c.clone(), nil
	}
	return nil, nil
}

func (s *memChannels) MarkClaimed(ctx context.Context, id string, claimed *big.Int) error {
	k, err := channelKey(id)
	if err != nil {
		return err
	}
	if !amountOK(claimed) {
		return ErrBadCharge
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.m[k]
	if !ok {
		return ErrChannelNotFound
	}
	c.raiseClaimed(claimed)
	return nil
}

func (s *memChannels) SetChannelState(ctx context.Context, id, from, to string) (bool, error) {
	k, err := channelKey(id)
	if err != nil {
		return false, err
	}
	if err := checkState(to); err != nil {
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
func (s *memChannels) list(keep func(*Channel) bool, key func(*Channel) time.Time, limit int) []*Channel {
	s.mu.Lock()
	var out []*Channel
	for _, c := range s.m {
		if keep(c) {
			out = append(out, c.clone())
		}
	}
	s.mu.Unlock()
	return sortChannels(out, key, listLimit(limit))
}

func (s *memChannels) ToClaim(ctx context.Context, network string, limit int) ([]*Channel, error) {
	return s.list(func(c *Channel) bool { return claimable(c, network) }, lastActivity, limit), nil
}

func (s *memChannels) Idle(ctx context.Context, before time.Time, limit int) ([]*Channel, error) {
	return s.list(func(c *Channel) bool { return idle(c, before) }, lastActivity, limit), nil
}

func (s *memChannels) Withdrawing(ctx context.Context, after *Channel, limit int) ([]*Channel, error) {
	return s.list(withdrawingAfter(after), withdrawRequested, limit), nil
}

func (s *memChannels) Refunding(ctx context.Context, limit int) ([]*Channel, error) {
	return s.list(refunding, lastActivity, limit), nil
}

func (s *memChannels) ChannelStats(ctx context.Context) (map[string]ChannelStats, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]ChannelStats{}
	for _, c := range s.m {
		addStats(out, c)
	}
	return out, nil
}

func (s *memChannels) PruneChannels(ctx context.Context, before time.Time) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for k, c := range s.m {
		if prunable(c, before) {
			delete(s.m, k)
			n++
		}
	}
	return n, nil
}
