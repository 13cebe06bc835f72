package postgres

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/caddy-x402/caddy-x402/facilitator/store"
)

// Bounds of the charge queue.
const (
	// chargeFlights is how many groups of charges may be in flight at
	// once (each on a connection of its own): a charge that finds fewer
	// goes at once, alone or with those that waited, and one that finds
	// them all busy waits for the next group. One: a group commit, so
	// that the charges of concurrent requests share statements rather
	// than each finding a flight free (with four, 70% of the charges of
	// 16 buyers went alone, and the database's CPU per voucher was
	// 131-168 us against 77-103 with one on this machine's shared cores;
	// docs/benchmarks.md). A charge that comes while the group is out
	// waits for it: at most one round trip more.
	chargeFlights = 1
	// maxChargeGroup bounds the charges of one statement.
	maxChargeGroup = 256
)

// chargeQueue holds the charges waiting for a statement: those that came
// while every flight was taken, sent together as the next group.
type chargeQueue struct {
	mu       sync.Mutex
	waiting  []*queuedCharge
	inFlight int
	busy     map[string]bool // the channels of the groups in flight
	// crowded counts down the groups since the last one of several
	// charges: while it is above zero, charges come together, and one
	// that finds the flight free lets the others catch up (Charge).
	crowded int
}

// crowdedGroups is how many groups of one charge in a row end a crowd.
const crowdedGroups = 8

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
// statement at the same time (chargeGroup: the conditional UPDATE of each,
// all at once, a refused one answered with the record read after it). A
// charge that finds a flight free goes at once (while charges come
// together, after the goroutines runnable at that moment have had the
// processor once), so a lone charge is one round trip, as before. Two
// charges of one channel never share a group: the second goes in the next
// one, and sees the first's result. A
// statement that fails fails every charge of its group (ErrUnavailable
// when the database was out of reach): the group was written whole or not
// at all, and Channel tells which. A ctx that ends before the charge is
// sent takes it out of the queue (ErrUnavailable, nothing written); once
// sent, the charge is answered as it went (the statement's own budget
// bounds the wait).
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
	crowded := q.crowded > 0
	q.mu.Unlock()
	if fly {
		if crowded {
			// The flight is this charge's, and charges have been coming
			// together: before it takes the group, the goroutines that
			// are runnable get the processor once, and the requests of
			// them that reach Charge meanwhile wait in the queue and go in
			// this group instead of each in a statement of its own (16
			// buyers on two instances: 5% of the charges alone against
			// 16%, 0.18 statements a voucher against 0.26;
			// docs/benchmarks.md). One buyer's charges come one at a time
			// and go at once: the yield would cost each about 10 us of CPU.
			runtime.Gosched()
		}
		s.flyOnce()
	}
	select {
	case <-qc.done:
		return qc.c, qc.err
	case <-ctx.Done():
		q.mu.Lock()
		taken := qc.taken
		if !taken { // not sent: it never will be
			q.waiting = slices.DeleteFunc(q.waiting, func(w *queuedCharge) bool { return w == qc })
		}
		q.mu.Unlock()
		if !taken {
			return nil, fmt.Errorf("%w: %w", store.ErrUnavailable, ctx.Err())
		}
		<-qc.done // sent: its answer says what happened (the statement has a budget of its own)
		return qc.c, qc.err
	}
}

// flyOnce sends the waiting charges as one group on the flight its caller
// holds, then hands the flight to a goroutine that sends the charges that
// came meanwhile, or gives it back when there are none: the caller's own
// answer never waits for another group.
func (s *Channels) flyOnce() {
	if s.sendGroup() {
		go s.fly()
	}
}

// fly sends groups on the flight it holds until none waits.
func (s *Channels) fly() {
	for s.sendGroup() {
	}
}

// sendGroup sends the next group of waiting charges, if any, and says
// whether the flight goes on (landed).
func (s *Channels) sendGroup() bool {
	g := s.charges.take()
	if len(g) > 0 {
		s.chargeGroup(g)
	}
	return s.charges.landed(g)
}

// take takes the next group from the waiting charges: one charge per
// channel, in the order they came, of the channels no group in flight
// holds; a channel's next charge waits for a group after the one that
// holds it (and sees its result).
func (q *chargeQueue) take() []*queuedCharge {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.busy == nil {
		q.busy = map[string]bool{}
	}
	var g []*queuedCharge
	rest := q.waiting[:0]
	for _, qc := range q.waiting {
		if len(g) < maxChargeGroup && !q.busy[qc.key] {
			qc.taken = true
			q.busy[qc.key] = true
			g = append(g, qc)
		} else {
			rest = append(rest, qc)
		}
	}
	clear(q.waiting[len(rest):])
	q.waiting = rest
	switch {
	case len(g) > 1:
		q.crowded = crowdedGroups
	case len(g) == 1 && q.crowded > 0:
		q.crowded--
	}
	return g
}

// landed frees the channels of group g, which was answered, and says
// whether a waiting charge may go now on the flight its caller holds;
// when none may, the flight is given back.
func (q *chargeQueue) landed(g []*queuedCharge) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	for _, qc := range g {
		delete(q.busy, qc.key)
	}
	for _, qc := range q.waiting {
		if !q.busy[qc.key] {
			return true
		}
	}
	q.inFlight--
	return false
}

// chargeGroup sends one group (distinct channels) in one statement and
// answers each charge: the conditional UPDATE of every charge at once,
// the channels locked in the order of their ids (every group's order, so
// that two groups never wait for each other in a circle; a deadlock all
// the same, which PostgreSQL ends by failing one statement whole, is sent
// again). The refused charges' records are read by a second statement,
// which (unlike the UPDATE's snapshot) sees a charge that won meanwhile.
func (s *Channels) chargeGroup(g []*queuedCharge) {
	slices.SortFunc(g, func(a, b *queuedCharge) int { return strings.Compare(a.key, b.key) })
	n := len(g)
	// The amounts go as pgtype.Numeric, which pgx encodes straight to the
	// binary numeric; a decimal string took it a failed encode plan (an
	// error formatted and dropped) per amount first.
	ids, sigs := make([]string, n), make([][]byte, n)
	prevs, chargeds, maxes := make([]pgtype.Numeric, n), make([]pgtype.Numeric, n), make([]pgtype.Numeric, n)
	for i, qc := range g {
		ids[i], sigs[i] = qc.key, qc.v.Signature
		prevs[i], chargeds[i], maxes[i] = numeric(qc.prev), numeric(qc.charged), numeric(qc.v.Max)
	}
	ctx, cancel := s.p.ctx()
	defer cancel()
	got := make([]*store.Channel, n)
	var err error
	for try := 0; try < 3; try++ {
		if err = s.updateGroup(ctx, got, g, ids, prevs, chargeds, maxes, sigs); !deadlocked(err) {
			break
		}
		clear(got)
	}
	if err != nil {
		for _, qc := range g {
			qc.err = pgError(err)
			close(qc.done)
		}
		return
	}
	var refused []string
	for i, c := range got {
		if c == nil {
			refused = append(refused, ids[i])
		}
	}
	current := map[string]*store.Channel{}
	var rerr error
	if len(refused) > 0 {
		var cs []*store.Channel
		cs, rerr = s.list(ctx, `WHERE id = ANY($1)`, refused)
		for _, c := range cs {
			current[c.ID] = c
		}
	}
	for i, qc := range g {
		cur := current[qc.key]
		switch {
		case got[i] != nil:
			qc.c = got[i]
		case rerr != nil:
			qc.err = pgError(rerr)
		case cur == nil:
			qc.err = store.ErrChannelNotFound
		default:
			qc.c, qc.err = cur, store.ChargeRefusal(cur, qc.prev, qc.charged)
			if qc.err == nil {
				qc.err = store.ErrChannelConflict // moved and moved back between the two statements
			}
		}
		close(qc.done)
	}
}

// chargeMode is how the charge statements go, a voucher's one round trip:
// prepared once per connection (pgx's statement cache), not parsed and
// planned by the server every time as the store's other statements are
// (tune), which halves a lone charge's time (BenchmarkChannelCharge); a
// connection's first charge prepares it, a round trip more. A mode the
// connection string chooses (default_query_exec_mode, as for a pooler
// that keeps no prepared statements) holds for the charges too.
func chargeMode(cfg *pgxpool.Config, dsn string) pgx.QueryExecMode {
	if choosesExecMode(dsn) {
		return cfg.ConnConfig.DefaultQueryExecMode
	}
	return pgx.QueryExecModeCacheStatement
}

// chargedCols are what a charge returns of a channel whose network and
// config the memo holds (channelMemo): the chain's readings, the claim
// fence and the refund slot, which may have changed since. The rest of
// the record is what the charge wrote (chargedRow.record); a channel the
// memo does not hold returns the whole record (channelCols), which fills
// the memo.
const chargedCols = `balance::text, claimed::text, block, withdraw_requested_at, refund_nonce::text, claiming::text, refund_slot_at`

// The charge statements by whether they return chargedCols (true) or the
// whole record (false).
var (
	chargeSQL      = map[bool]string{false: loneChargeSQL(channelCols), true: loneChargeSQL(chargedCols)}
	groupChargeSQL = map[bool]string{false: groupSQL(channelCols), true: groupSQL(chargedCols)}
)

// loneChargeSQL is a lone charge's plain UPDATE (cheaper to plan),
// returning cols.
func loneChargeSQL(cols string) string {
	return `UPDATE x402_channels
		SET charged = $3::numeric, voucher_max = $4::numeric, voucher_sig = $5, last_activity = $6
		WHERE id = $1 AND charged = $2::numeric AND state = 'open' AND $3::numeric <= balance AND $3::numeric >= greatest(claimed, claiming)
		RETURNING ` + cols
}

// groupSQL is a group's UPDATE over arrays, each row with its own
// condition, returning each row's ordinal and cols.
func groupSQL(cols string) string {
	return `WITH u AS (
			SELECT * FROM unnest($1::text[], $2::numeric[], $3::numeric[], $4::numeric[], $5::bytea[])
				WITH ORDINALITY AS u(id, prev, charged, vmax, sig, ord))
		UPDATE x402_channels AS c SET charged = u.charged, voucher_max = u.vmax, voucher_sig = u.sig, last_activity = $6
		FROM u WHERE c.id = u.id AND c.charged = u.prev AND c.state = 'open' AND u.charged <= c.balance AND u.charged >= greatest(c.claimed, c.claiming)
		RETURNING u.ord, ` + qualified("c", cols)
}

// record is the record of channel kc after charge qc, made at now.
func (cr *chargedRow) record(kc knownChannel, qc *queuedCharge, now time.Time) (*store.Channel, error) {
	c := &store.Channel{ID: qc.key, Network: kc.network, Config: kc.config, Charged: new(big.Int).Set(qc.charged),
		VoucherMax: new(big.Int).Set(qc.v.Max), VoucherSignature: slices.Clone(qc.v.Signature),
		LastActivity: now, State: store.ChannelOpen}
	if err := cr.fill(c); err != nil {
		return nil, err
	}
	return c, nil
}

// updateGroup is the group's UPDATE: got[i] is the record after charge
// g[i], nil for a charge refused (or of a channel without a record).
// When the memo holds every channel of the group, the statement returns
// only chargedCols.
func (s *Channels) updateGroup(ctx context.Context, got []*store.Channel, g []*queuedCharge, ids []string, prevs, chargeds, maxes []pgtype.Numeric, sigs [][]byte) error {
	known := make([]knownChannel, len(g))
	slim := true
	for i, qc := range g {
		var ok bool
		known[i], ok = s.known.known(qc.key)
		slim = slim && ok
	}
	now := time.Now().Truncate(time.Microsecond) // last_activity, as the database keeps it
	// read reads a charge's record from row: the lone charge's, or that of
	// the charge the row's ordinal (ord, read first) names.
	read := func(row pgx.Row, ord *int64) (*store.Channel, error) {
		var before []any
		if ord != nil {
			before = append(before, ord)
		}
		if !slim {
			return s.scanChannel(row, before...)
		}
		var cr chargedRow
		if err := row.Scan(cr.dest(before...)...); err != nil {
			return nil, err
		}
		i := 0
		if ord != nil {
			i = int(*ord) - 1
		}
		if i < 0 || i >= len(g) {
			return nil, fmt.Errorf("the group's UPDATE answered for charge %d of %d", i+1, len(g))
		}
		return cr.record(known[i], g[i], now)
	}
	if len(ids) == 1 { // a lone charge
		c, err := read(s.p.pool.QueryRow(ctx, chargeSQL[slim], s.p.chargeMode, ids[0], prevs[0], chargeds[0], maxes[0], sigs[0], now), nil)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		got[0] = c
		return err
	}
	rows, err := s.p.pool.Query(ctx, groupChargeSQL[slim], s.p.chargeMode, ids, prevs, chargeds, maxes, sigs, now)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var ord int64
		c, err := read(rows, &ord)
		if err != nil {
			return err
		}
		if ord < 1 || int(ord) > len(got) {
			return fmt.Errorf("the group's UPDATE answered for charge %d of %d", ord, len(got))
		}
		got[ord-1] = c
	}
	return rows.Err()
}

// numeric is amount v as a parameter of a numeric column.
func numeric(v *big.Int) pgtype.Numeric { return pgtype.Numeric{Int: v, Valid: true} }

// qualified is cols (channelCols) with each column named as alias's.
func qualified(alias, cols string) string {
	fs := strings.Split(cols, ",")
	for i, f := range fs {
		fs[i] = alias + "." + strings.TrimSpace(f)
	}
	return strings.Join(fs, ", ")
}

// deadlocked says whether err is PostgreSQL's deadlock_detected: the
// statement failed whole, and may be sent again.
func deadlocked(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "40P01"
}
