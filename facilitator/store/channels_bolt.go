package store

import (
	"context"
	"encoding/json"
	"math/big"
	"time"

	bolt "go.etcd.io/bbolt"
)

// bucketChannels holds the payment channels (JSON) by channel id, in the
// redemption store's file.
var bucketChannels = []byte("payment-channels")

// boltChannels are the channels in the redemption store's bbolt file.
type boltChannels struct {
	db  *bolt.DB
	log *chanLog // charges logged ahead of bbolt (channels_bolt_log.go)
}

// Channels is the channel store in the same file as the redemptions.
func (b *boltRedemptions) Channels() Channels { return b.channels }

// get reads a record in a transaction; nil when there is none.
func (s *boltChannels) get(tx *bolt.Tx, k string) (*Channel, error) { return boltChannel(tx, k) }

// put writes a record in an update transaction.
func (s *boltChannels) put(tx *bolt.Tx, c *Channel) error {
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
func (s *boltChannels) update(fn func(tx *bolt.Tx) error) error { return s.log.update(fn) }

func (s *boltChannels) Sync(ctx context.Context, id, network string, cfg ChannelConfig, cs ChainState) (*Channel, error) {
	k, err := channelKey(id)
	if err != nil {
		return nil, err
	}
	if err := checkSync(network, &cfg, cs); err != nil {
		return nil, err
	}
	var out *Channel
	err = s.update(func(tx *bolt.Tx) error {
		c, err := s.get(tx, k)
		if err != nil {
			return err
		}
		if c == nil {
			c = newChannel(k, network, cfg, cs, time.Now())
		} else {
			c.applySync(cs)
		}
		out = c
		return s.put(tx, c)
	})
	return out, err
}

// Charge implements Channels: checked against the record as charged so
// far, logged with one write and answered; bbolt takes it at the next
// checkpoint (chanLog).
func (s *boltChannels) Charge(ctx context.Context, id string, prev, charged *big.Int, v ChannelVoucher) (*Channel, error) {
	k, err := channelKey(id)
	if err != nil {
		return nil, err
	}
	if err := checkChargeArgs(prev, charged, v); err != nil {
		return nil, err
	}
	return s.log.charge(k, prev, charged, v)
}

func (s *boltChannels) Channel(ctx context.Context, id string) (*Channel, error) {
	k, err := channelKey(id)
	if err != nil {
		return nil, err
	}
	return s.log.read(k)
}

func (s *boltChannels) MarkClaimed(ctx context.Context, id string, claimed *big.Int) error {
	k, err := channelKey(id)
	if err != nil {
		return err
	}
	if !amountOK(claimed) {
		return ErrBadCharge
	}
	var missing bool
	err = s.update(func(tx *bolt.Tx) error {
		c, err := s.get(tx, k)
		if missing = c == nil; err != nil || missing || claimed.Cmp(c.Claimed) <= 0 {
			return err
		}
		c.raiseClaimed(claimed)
		return s.put(tx, c)
	})
	if err == nil && missing {
		err = ErrChannelNotFound
	}
	return err
}

func (s *boltChannels) SetChannelState(ctx context.Context, id, from, to string) (bool, error) {
	k, err := channelKey(id)
	if err != nil {
		return false, err
	}
	if err := checkState(to); err != nil {
		return false, err
	}
	var moved bool
	err = s.update(func(tx *bolt.Tx) error {
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
func (s *boltChannels) list(keep func(*Channel) bool, key func(*Channel) time.Time, limit int) ([]*Channel, error) {
	var out []*Channel
	s.log.mu.Lock() // the records held ahead of bbolt replace theirs
	defer s.log.mu.Unlock()
	err := s.db.View(func(tx *bolt.Tx) error {
		bk := tx.Bucket(bucketChannels)
		if bk == nil {
			return nil
		}
		return bk.ForEach(func(_, v []byte) error {
			c := new(Channel)
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
	return sortChannels(out, key, listLimit(limit)), nil
}

func (s *boltChannels) ToClaim(ctx context.Context, network string, limit int) ([]*Channel, error) {
	return s.list(func(c *Channel) bool { return claimable(c, network) }, lastActivity, limit)
}

func (s *boltChannels) Idle(ctx context.Context, before time.Time, limit int) ([]*Channel, error) {
	return s.list(func(c *Channel) bool { return idle(c, before) }, lastActivity, limit)
}

func (s *boltChannels) Withdrawing(ctx context.Context, after *Channel, limit int) ([]*Channel, error) {
	return s.list(withdrawingAfter(after), withdrawRequested, limit)
}

func (s *boltChannels) Refunding(ctx context.Context, limit int) ([]*Channel, error) {
	return s.list(refunding, lastActivity, limit)
}

func (s *boltChannels) ChannelStats(ctx context.Context) (map[string]ChannelStats, error) {
	out := map[string]ChannelStats{}
	_, err := s.list(func(c *Channel) bool { addStats(out, c); return false }, lastActivity, 0)
	return out, err
}

func (s *boltChannels) PruneChannels(ctx context.Context, before time.Time) (int, error) {
	var n int
	err := s.update(func(tx *bolt.Tx) error {
		n = 0
		bk := tx.Bucket(bucketChannels)
		if bk == nil {
			return nil
		}
		var gone [][]byte
		if err := bk.ForEach(func(k, v []byte) error {
			c := new(Channel)
			if err := json.Unmarshal(v, c); err != nil {
				return err
			}
			if prunable(c, before) {
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
