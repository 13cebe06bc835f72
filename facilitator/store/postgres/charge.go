package postgres

import (
	"context"
	"fmt"
	"math/big"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/caddy-x402/caddy-x402/facilitator/store"
)

// Bounds of the charge queue.
const (
	// chargeFlights is how many groups of charges may be in flight at
	// once (each on a connection of its own): a charge that finds fewer
	// goes at once, alone or with those that waited, and one that finds
	// them all busy waits for the next group. Two keep one group
	// travelling while the other is answered.
	chargeFlights = 2
	// maxChargeGroup bounds the charges of one statement.
	maxChargeGroup = 256
)

// chargeQueue holds the charges waiting for a statement: those that came
// while every flight was taken, sent together as the next group.
type chargeQueue struct {
	mu       sync.Mutex
	waiting  []*queuedCharge
	inFlight int
}

// queuedCharge is one charge of a group: its arguments and, once done is
// closed, its own answer.
type queuedCharge struct {
	key           string
	prev, charged *big.Int
	v             store.ChannelVoucher

	taken bool          // in a group (under chargeQueue.mu)
	done  chan struct{} // closed when c and err are set
	c     *store.Channel
	err   error
}

// Charge implements Channels: the charge joins the queue and is sent in
// one statement with the charges of other requests that wait for a
// statement at the same time (x402_charge_channels: the conditional
// UPDATE of each in turn, a refused one answered with the record read
// after it). A charge that finds a flight free goes at once, so a lone
// charge is one round trip, as before. A statement that fails fails every
// charge of its group (ErrUnavailable when the database was out of
// reach): the group was written whole or not at all, and Channel tells
// which. A ctx that ends before the answer answers ErrUnavailable too.
func (s *Channels) Charge(ctx context.Context, id string, prev, charged *big.Int, v store.ChannelVoucher) (*store.Channel, error) {
	k, err := store.ChannelKey(id)
	if err != nil {
		return nil, err
	}
	if err := store.CheckCharge(prev, charged, v); err != nil {
		return nil, err
	}
	qc := &queuedCharge{key: k, prev: prev, charged: charged, v: v, done: make(chan struct{})}
	q := &s.charges
	q.mu.Lock()
	q.waiting = append(q.waiting, qc)
	fly := q.inFlight < chargeFlights
	if fly {
		q.inFlight++
	}
	q.mu.Unlock()
	if fly {
		s.flyOnce()
	}
	select {
	case <-qc.done:
		return qc.c, qc.err
	case <-ctx.Done():
		q.mu.Lock()
		if !qc.taken { // not sent: it never will be
			q.waiting = slices.DeleteFunc(q.waiting, func(w *queuedCharge) bool { return w == qc })
		}
		q.mu.Unlock()
		return nil, fmt.Errorf("%w: %w", store.ErrUnavailable, ctx.Err())
	}
}

// flyOnce sends the waiting charges as one group on the flight its caller
// holds, then hands the flight to a goroutine that sends the charges that
// came meanwhile, or gives it back when there are none: the caller's own
// answer never waits for another group.
func (s *Channels) flyOnce() {
	if g := s.charges.take(); len(g) > 0 {
		s.chargeGroup(g)
	}
	if s.charges.keepFlight() {
		go s.fly()
	}
}

// fly sends groups on the flight it holds until none waits.
func (s *Channels) fly() {
	for {
		if g := s.charges.take(); len(g) > 0 {
			s.chargeGroup(g)
		}
		if !s.charges.keepFlight() {
			return
		}
	}
}

// take takes the next group from the waiting charges.
func (q *chargeQueue) take() []*queuedCharge {
	q.mu.Lock()
	defer q.mu.Unlock()
	n := min(len(q.waiting), maxChargeGroup)
	g := slices.Clone(q.waiting[:n])
	q.waiting = slices.Delete(q.waiting, 0, n)
	for _, qc := range g {
		qc.taken = true
	}
	return g
}

// keepFlight says whether charges wait for the flight its caller holds;
// when none does, the flight is given back.
func (q *chargeQueue) keepFlight() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.waiting) > 0 {
		return true
	}
	q.inFlight--
	return false
}

// chargeGroup sends one group in one statement and answers each charge.
// The charges go in the order of their channel ids (a channel's charges
// in the order they came), the order every group locks its rows in.
func (s *Channels) chargeGroup(g []*queuedCharge) {
	slices.SortStableFunc(g, func(a, b *queuedCharge) int { return strings.Compare(a.key, b.key) })
	n := len(g)
	ids, prevs, chargeds, maxes := make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	sigs := make([][]byte, n)
	for i, qc := range g {
		ids[i], prevs[i], chargeds[i], maxes[i], sigs[i] = qc.key, qc.prev.String(), qc.charged.String(), qc.v.Max.String(), qc.v.Signature
	}
	ctx, cancel := s.p.ctx()
	defer cancel()
	got := make([]*store.Channel, n)
	taken := make([]bool, n)
	err := func() error {
		rows, err := s.p.pool.Query(ctx, `SELECT ord, ok, `+channelCols+` FROM (
			SELECT r.ord, r.ok, (r.rec).* FROM x402_charge_channels($1::text[], $2::numeric[], $3::numeric[],
				$4::numeric[], $5::bytea[], $6) AS r WHERE (r.rec).id IS NOT NULL) AS x`,
			ids, prevs, chargeds, maxes, sigs, time.Now())
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var (
				ord int32
				ok  bool
			)
			c, err := scanChannel(rows, &ord, &ok)
			if err != nil {
				return err
			}
			if ord < 1 || int(ord) > n {
				return fmt.Errorf("x402_charge_channels answered for charge %d of %d", ord, n)
			}
			got[ord-1], taken[ord-1] = c, ok
		}
		return rows.Err()
	}()
	for i, qc := range g {
		switch cur := got[i]; {
		case err != nil:
			qc.err = pgError(err)
		case cur == nil:
			qc.err = store.ErrChannelNotFound
		case taken[i]:
			qc.c = cur
		default:
			qc.c, qc.err = cur, store.ChargeRefusal(cur, qc.prev, qc.charged)
			if qc.err == nil {
				qc.err = store.ErrChannelConflict // moved and moved back between the two statements
			}
		}
		close(qc.done)
	}
}
