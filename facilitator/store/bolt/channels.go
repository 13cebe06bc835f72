package bolt

import (
	"context"
	"encoding/json"
	"math/big"
	"time"

	"go.etcd.io/bbolt"

	"github.com/caddy-x402/caddy-x402/facilitator/store"
)

// bucketChannels holds the payment channels (JSON) by channel id, in the
// redemption store's file.
var bucketChannels = []byte("payment-channels")

// channels are the channels in the redemption store's bbolt file.
type channels struct {
	db  *bbolt.DB
	log *chanLog // charges logged ahead of bbolt (channels_log.go)
}

// get reads a record in a transaction; nil when there is none.
func (s *channels) get(tx *bbolt.Tx, k string) (*store.Channel, error) { return boltChannel(tx, k) }

// put writes a record in an update transaction.
func (s *channels) put(tx *bbolt.Tx, c *store.Channel) error {
	bk, err := tx.CreateBucketIfNotExists(bucketChannels)
	if err != nil {
		return err
	}
	data, err := c.MarshalJSON()
	if err != nil {
		return err
	}
	return bk.Put([]byte(c.ID), data)
}

// update runs fn in one write transaction, after the charges logged
// ahead of bbolt (chanLog.update). fn sets its results afresh on each run.
func (s *channels) update(fn func(tx *bbolt.Tx) error) error { return s.log.update(fn) }

func (s *channels) Sync(ctx context.Context, id, network string, cfg store.ChannelConfig, cs store.ChainState) (*store.Channel, error) {
	k, err := store.ChannelKey(id)
	if err != nil {
		return nil, err
	}
	if err := store.CheckSync(network, &cfg, cs); err != nil {
		return nil, err
	}
	var out *store.Channel
	err = s.update(func(tx *bbolt.Tx) error {
		c, err := s.get(tx, k)
		if err != nil {
			return err
		}
		if c == nil {
			c = store.NewChannel(k, network, cfg, cs, time.Now())
		} else {
			c.ApplySync(cs)
		}
		out = c
		return s.put(tx, c)
	})
	return out, err
}

// Charge implements Channels: checked against the record as charged so
// far, logged with one write and answered; bbolt takes it at the next
// checkpoint (chanLog).
func (s *channels) Charge(ctx context.Context, id string, prev, charged *big.Int, v store.ChannelVoucher) (*store.Channel, error) {
	k, err := store.ChannelKey(id)
	if err != nil {
		return nil, err
	}
	if err := store.CheckCharge(prev, charged, v); err != nil {
		return nil, err
	}
	return s.log.charge(k, prev, charged, v)
}

func (s *channels) Channel(ctx context.Context, id string) (*store.Channel, error) {
	k, err := store.ChannelKey(id)
	if err != nil {
		return nil, err
	}
	return s.log.read(k)
}

func (s *channels) MarkClaimed(ctx context.Context, id string, claimed *big.Int) error {
	k, err := store.AmountKey(id, claimed)
	if err != nil {
		return err
	}
	var missing bool
	err = s.update(func(tx *bbolt.Tx) error {
		c, err := s.get(tx, k)
		if missing = c == nil; err != nil || missing || claimed.Cmp(c.Claimed) <= 0 {
			return err
		}
		c.RaiseClaimed(claimed)
		return s.put(tx, c)
	})
	if err == nil && missing {
		err = store.ErrChannelNotFound
	}
	return err
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

// modify applies change to channel id's record in one write transaction
// and writes it when change says it changed it: false when it did not,
// or there is no record.
func (s *channels) modify(id string, change func(*store.Channel) bool) (bool, error) {
	k, err := store.ChannelKey(id)
	if err != nil {
		return false, err
	}
	var changed bool
	err = s.update(func(tx *bbolt.Tx) error {
		c, err := s.get(tx, k)
		if changed = false; err != nil || c == nil || !change(c) {
			return err
		}
		changed = true
		return s.put(tx, c)
	})
	return changed, err
}

func (s *channels) SetChannelState(ctx context.Context, id, from, to string) (bool, error) {
	k, err := store.ChannelKey(id)
	if err != nil {
		return false, err
	}
	if err := store.CheckChannelState(to); err != nil {
		return false, err
	}
	var moved bool
	err = s.update(func(tx *bbolt.Tx) error {
		c, err := s.get(tx, k)
		if moved = false; err != nil || c == nil || c.State != from {
			return err
		}
		c.State, moved = to, true
		return s.put(tx, c)
	})
	return moved, err
}

// list scans the channels for those that pass keep, ordered by key.
func (s *channels) list(keep func(*store.Channel) bool, key func(*store.Channel) time.Time, limit int) ([]*store.Channel, error) {
	var out []*store.Channel
	s.log.mu.Lock() // the records held ahead of bbolt replace theirs
	defer s.log.mu.Unlock()
	err := s.db.View(func(tx *bbolt.Tx) error {
		bk := tx.Bucket(bucketChannels)
		if bk == nil {
			return nil
		}
		return bk.ForEach(func(_, v []byte) error {
			c := new(store.Channel)
			if err := json.Unmarshal(v, c); err != nil {
				return err
			}
			if c = s.log.overlay(c); keep(c) {
				out = append(out, c)
			}
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	return store.SortChannels(out, key, store.ListLimit(limit)), nil
}

func (s *channels) ToClaim(ctx context.Context, network string, limit int) ([]*store.Channel, error) {
	return s.list(func(c *store.Channel) bool { return store.IsClaimable(c, network) }, store.LastActivityOf, limit)
}

func (s *channels) Idle(ctx context.Context, before time.Time, limit int) ([]*store.Channel, error) {
	return s.list(func(c *store.Channel) bool { return store.IsIdle(c, before) }, store.LastActivityOf, limit)
}

func (s *channels) Withdrawing(ctx context.Context, after *store.Channel, limit int) ([]*store.Channel, error) {
	return s.list(store.WithdrawingAfter(after), store.WithdrawRequestedOf, limit)
}

func (s *channels) Refunding(ctx context.Context, limit int) ([]*store.Channel, error) {
	return s.list(store.IsRefunding, store.LastActivityOf, limit)
}

func (s *channels) ChannelStats(ctx context.Context) (map[string]store.ChannelStats, error) {
	out := map[string]store.ChannelStats{}
	_, err := s.list(func(c *store.Channel) bool { store.AddChannelStats(out, c); return false }, store.LastActivityOf, 0)
	return out, err
}

func (s *channels) PruneChannels(ctx context.Context, before time.Time) (int, error) {
	var n int
	err := s.update(func(tx *bbolt.Tx) error {
		n = 0
		bk := tx.Bucket(bucketChannels)
		if bk == nil {
			return nil
		}
		var gone [][]byte
		if err := bk.ForEach(func(k, v []byte) error {
			c := new(store.Channel)
			if err := json.Unmarshal(v, c); err != nil {
				return err
			}
			if store.IsPrunable(c, before) {
				gone = append(gone, append([]byte(nil), k...))
			}
			return nil
		}); err != nil {
			return err
		}
		for _, k := range gone {
			if err := bk.Delete(k); err != nil {
				return err
			}
		}
		n = len(gone)
		return nil
	})
	return n, err
}
