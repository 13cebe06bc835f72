package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/caddy-x402/caddy-x402/facilitator/store"
)

// Channels are the payment channels in PostgreSQL, shared by every
// instance on the database: a charge is one conditional UPDATE, so two
// instances never charge the same headroom; the charges of concurrent
// requests go together, one statement per group (charge.go).
type Channels struct {
	p       *Store
	charges chargeQueue
	known   channelMemo // the networks and configs of the channels read
}

var _ store.Channels = (*Channels)(nil)

// channelCols are the columns a record is read from, amounts as text.
const channelCols = `id, network, config, balance::text, charged::text, voucher_max::text, voucher_sig,
	claimed::text, block, withdraw_requested_at, last_activity, state, refund_nonce::text, claiming::text, refund_slot_at`

// scanChannel reads one record of channelCols, after the columns of
// before (when the query selects more), and keeps its network and config
// in s.known.
func (s *Channels) scanChannel(row pgx.Row, before ...any) (*store.Channel, error) {
	var (
		c       store.Channel
		cfg     []byte
		r       chargedRow // the chain's readings
		charged string
		vmax    *string
	)
	if err := row.Scan(append(before, &c.ID, &c.Network, &cfg, &r.balance, &charged, &vmax, &c.VoucherSignature,
		&r.claimed, &r.block, &r.withdraw, &c.LastActivity, &c.State, &r.nonce, &r.claiming, &r.slot)...); err != nil {
		return nil, err
	}
	var err error
	if c.Config, err = s.known.parse(c.ID, c.Network, cfg); err != nil {
		return nil, fmt.Errorf("channel %s: its config: %w", c.ID, err)
	}
	var ok [2]bool
	c.Charged, ok[0] = new(big.Int).SetString(charged, 10)
	ok[1] = true
	if vmax != nil {
		c.VoucherMax, ok[1] = new(big.Int).SetString(*vmax, 10)
	}
	if !ok[0] || !ok[1] {
		return nil, fmt.Errorf("channel %s: an amount is not a decimal integer", c.ID)
	}
	if err := r.fill(&c); err != nil {
		return nil, err
	}
	return &c, nil
}

// chargedRow is one row of chargedCols: the chain's readings of a
// channel, the fence of a claim under way and the refund slot, which
// other instances may have moved (scanChannel reads them into one too).
type chargedRow struct {
	balance, claimed, nonce, claiming string
	block                             int64
	withdraw, slot                    *time.Time
}

// dest are the row's scan destinations, after those of before.
func (cr *chargedRow) dest(before ...any) []any {
	return append(before, &cr.balance, &cr.claimed, &cr.block, &cr.withdraw, &cr.nonce, &cr.claiming, &cr.slot)
}

// fill sets c's chain readings (balance, claimed, block, withdrawal,
// refund nonce), claim fence and refund slot from the row: a charge's, or
// a record read whole. A fence of 0 is none (nil), as the embedded stores
// have it.
func (cr *chargedRow) fill(c *store.Channel) error {
	var ok [4]bool
	c.Balance, ok[0] = new(big.Int).SetString(cr.balance, 10)
	c.Claimed, ok[1] = new(big.Int).SetString(cr.claimed, 10)
	c.RefundNonce, ok[2] = new(big.Int).SetString(cr.nonce, 10)
	c.Claiming, ok[3] = nil, true
	if cr.claiming != "0" {
		c.Claiming, ok[3] = new(big.Int).SetString(cr.claiming, 10)
	}
	if !ok[0] || !ok[1] || !ok[2] || !ok[3] {
		return fmt.Errorf("channel %s: an amount is not a decimal integer", c.ID)
	}
	c.Block = uint64(cr.block)
	if cr.withdraw != nil {
		c.WithdrawRequestedAt = *cr.withdraw
	}
	if cr.slot != nil {
		c.RefundSlotAt = cr.slot.UTC()
	}
	return nil
}

// maxKnownChannels bounds the memo of channels' networks and configs (a
// few hundred bytes an entry); a full memo starts afresh.
const maxKnownChannels = 1 << 16

// channelMemo memoises what never changes of a channel's record, by id:
// its network and config. Every record read whole fills it, so a config
// is decoded once, not on every paid request, and a charge of a channel
// it holds returns only what the charge did not write (chargedCols,
// charge.go).
type channelMemo struct {
	mu sync.Mutex
	m  map[string]knownChannel
}

// knownChannel is what the memo holds of a channel.
type knownChannel struct {
	network string
	config  store.ChannelConfig
	raw     string // the config as stored
}

// parse is the config raw of channel id on network, decoded once: a
// record whose network or config differs from the memo's is decoded
// again and replaces it.
func (cm *channelMemo) parse(id, network string, raw []byte) (store.ChannelConfig, error) {
	cm.mu.Lock()
	kc, ok := cm.m[id]
	cm.mu.Unlock()
	if ok && kc.network == network && kc.raw == string(raw) {
		return kc.config, nil
	}
	var c store.ChannelConfig
	if err := json.Unmarshal(raw, &c); err != nil {
		return store.ChannelConfig{}, err
	}
	cm.mu.Lock()
	if cm.m == nil || len(cm.m) >= maxKnownChannels {
		cm.m = map[string]knownChannel{}
	}
	cm.m[id] = knownChannel{network: network, config: c, raw: string(raw)}
	cm.mu.Unlock()
	return c, nil
}

// known is what the memo holds of channel id.
func (cm *channelMemo) known(id string) (knownChannel, bool) {
	cm.mu.Lock()
	defer cm.mu.Unlock()
	kc, ok := cm.m[id]
	return kc, ok
}

// nullTime is t, or nil when zero.
func nullTime(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

// Sync implements Channels: one upsert.
func (s *Channels) Sync(ctx context.Context, id, network string, cfg store.ChannelConfig, cs store.ChainState) (*store.Channel, error) {
	k, err := store.ChannelKey(id)
	if err != nil {
		return nil, err
	}
	if err := store.CheckSync(network, &cfg, cs); err != nil {
		return nil, err
	}
	if cs.Block > 1<<63-1 {
		return nil, fmt.Errorf("%w: block %d", store.ErrBadCharge, cs.Block)
	}
	config, err := json.Marshal(cfg)
	if err != nil {
		return nil, err
	}
	ctx, cancel := s.p.bound(ctx)
	defer cancel()
	c, err := s.scanChannel(s.p.pool.QueryRow(ctx, `INSERT INTO x402_channels AS c
			(id, network, config, balance, charged, claimed, block, withdraw_requested_at, last_activity, state, refund_nonce)
		VALUES ($1, $2, $3, $4::numeric, $5::numeric, $5::numeric, $6, $7, $8, 'open', $9::numeric)
		ON CONFLICT (id) DO UPDATE SET
			claimed = greatest(c.claimed, excluded.claimed),
			refund_nonce = greatest(c.refund_nonce, excluded.refund_nonce),
			charged = greatest(c.charged, excluded.claimed),
			balance = CASE WHEN excluded.block >= c.block THEN excluded.balance ELSE c.balance END,
			withdraw_requested_at = CASE WHEN excluded.block >= c.block THEN excluded.withdraw_requested_at
				ELSE c.withdraw_requested_at END,
			block = greatest(c.block, excluded.block)
		RETURNING `+channelCols,
		k, network, string(config), cs.Balance.String(), cs.Claimed.String(), int64(cs.Block), nullTime(cs.WithdrawRequestedAt), time.Now(), store.RefundNonceOf(cs).String()))
	return c, pgError(err)
}

// get reads one record; nil when there is none.
func (s *Channels) get(ctx context.Context, k string) (*store.Channel, error) {
	c, err := s.scanChannel(s.p.pool.QueryRow(ctx, `SELECT `+channelCols+` FROM x402_channels WHERE id = $1`, k))
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	return c, pgError(err)
}

// Channel implements Channels.
func (s *Channels) Channel(ctx context.Context, id string) (*store.Channel, error) {
	k, err := store.ChannelKey(id)
	if err != nil {
		return nil, err
	}
	ctx, cancel := s.p.bound(ctx)
	defer cancel()
	return s.get(ctx, k)
}

// MarkClaimed implements Channels.
func (s *Channels) MarkClaimed(ctx context.Context, id string, claimed *big.Int) error {
	k, err := store.AmountKey(id, claimed)
	if err != nil {
		return err
	}
	ctx, cancel := s.p.bound(ctx)
	defer cancel()
	tag, err := s.p.pool.Exec(ctx, `UPDATE x402_channels SET claimed = greatest(claimed, $2::numeric),
		charged = greatest(charged, $2::numeric) WHERE id = $1`, k, claimed.String())
	if err != nil {
		return pgError(err)
	}
	if tag.RowsAffected() == 0 {
		return store.ErrChannelNotFound
	}
	return nil
}

// FenceClaim implements Channels: one conditional UPDATE, so that a
// charge of any instance either came before it (and the claim's total
// was checked against it) or meets the fence.
func (s *Channels) FenceClaim(ctx context.Context, id string, total *big.Int) (bool, error) {
	k, err := store.AmountKey(id, total)
	if err != nil {
		return false, err
	}
	ctx, cancel := s.p.bound(ctx)
	defer cancel()
	return s.p.execOne(ctx, `UPDATE x402_channels SET claiming = greatest(claiming, $2::numeric)
		WHERE id = $1 AND charged >= $2::numeric`, k, total.String())
}

// TakeRefundSlot implements Channels: one conditional UPDATE, so that of
// the instances asking at once one takes the slot.
func (s *Channels) TakeRefundSlot(ctx context.Context, id string, at time.Time, window time.Duration) (bool, error) {
	k, err := store.ChannelKey(id)
	if err != nil {
		return false, err
	}
	at = store.SlotTime(at)
	ctx, cancel := s.p.bound(ctx)
	defer cancel()
	return s.p.execOne(ctx, `UPDATE x402_channels SET refund_slot_at = $2
		WHERE id = $1 AND (refund_slot_at IS NULL OR refund_slot_at <= $3)`, k, at, at.Add(-window))
}

// ReturnRefundSlot implements Channels.
func (s *Channels) ReturnRefundSlot(ctx context.Context, id string, at time.Time) error {
	k, err := store.ChannelKey(id)
	if err != nil {
		return err
	}
	ctx, cancel := s.p.bound(ctx)
	defer cancel()
	_, err = s.p.execOne(ctx, `UPDATE x402_channels SET refund_slot_at = NULL WHERE id = $1 AND refund_slot_at = $2`, k, store.SlotTime(at))
	return err
}

// SetChannelState implements Channels.
func (s *Channels) SetChannelState(ctx context.Context, id, from, to string) (bool, error) {
	k, err := store.ChannelKey(id)
	if err != nil {
		return false, err
	}
	if err := store.CheckChannelState(to); err != nil {
		return false, err
	}
	ctx, cancel := s.p.bound(ctx)
	defer cancel()
	return s.p.execOne(ctx, `UPDATE x402_channels SET state = $3 WHERE id = $1 AND state = $2`, k, from, to)
}

// list runs a query of channelCols.
func (s *Channels) list(ctx context.Context, sql string, args ...any) ([]*store.Channel, error) {
	ctx, cancel := s.p.bound(ctx)
	defer cancel()
	rows, err := s.p.pool.Query(ctx, `SELECT `+channelCols+` FROM x402_channels `+sql, args...)
	if err != nil {
		return nil, pgError(err)
	}
	defer rows.Close()
	var out []*store.Channel
	for rows.Next() {
		c, err := s.scanChannel(rows)
		if err != nil {
			return nil, pgError(err)
		}
		out = append(out, c)
	}
	return out, pgError(rows.Err())
}

// ToClaim implements Channels.
func (s *Channels) ToClaim(ctx context.Context, network string, limit int) ([]*store.Channel, error) {
	return s.list(ctx, `WHERE network = $1 AND charged > claimed ORDER BY last_activity, id LIMIT $2`, network, store.ListLimit(limit))
}

// Idle implements Channels.
func (s *Channels) Idle(ctx context.Context, before time.Time, limit int) ([]*store.Channel, error) {
	return s.list(ctx, `WHERE state = 'open' AND last_activity < $1 ORDER BY last_activity, id LIMIT $2`, before, store.ListLimit(limit))
}

// Withdrawing implements Channels.
func (s *Channels) Withdrawing(ctx context.Context, after *store.Channel, limit int) ([]*store.Channel, error) {
	if after == nil {
		return s.list(ctx, `WHERE withdraw_requested_at IS NOT NULL ORDER BY withdraw_requested_at, id LIMIT $1`, store.ListLimit(limit))
	}
	return s.list(ctx, `WHERE withdraw_requested_at IS NOT NULL AND (withdraw_requested_at, id) > ($2, $3)
		ORDER BY withdraw_requested_at, id LIMIT $1`, store.ListLimit(limit), after.WithdrawRequestedAt, after.ID)
}

// Refunding implements Channels.
func (s *Channels) Refunding(ctx context.Context, limit int) ([]*store.Channel, error) {
	return s.list(ctx, `WHERE state = 'refunding' ORDER BY last_activity, id LIMIT $1`, store.ListLimit(limit))
}

// ChannelStats implements Channels: one aggregate query.
func (s *Channels) ChannelStats(ctx context.Context) (map[string]store.ChannelStats, error) {
	ctx, cancel := s.p.bound(ctx)
	defer cancel()
	rows, err := s.p.pool.Query(ctx, `SELECT network, count(*) FILTER (WHERE state = 'open'),
			coalesce(sum(charged - claimed) FILTER (WHERE charged > claimed), 0)::text, coalesce(sum(claimed), 0)::text
		FROM x402_channels GROUP BY network`)
	if err != nil {
		return nil, pgError(err)
	}
	defer rows.Close()
	out := map[string]store.ChannelStats{}
	for rows.Next() {
		var (
			network            string
			open               int64
			unclaimed, claimed string
		)
		if err := rows.Scan(&network, &open, &unclaimed, &claimed); err != nil {
			return nil, pgError(err)
		}
		st := store.ChannelStats{Open: int(open)}
		var ok1, ok2 bool
		st.Unclaimed, ok1 = new(big.Int).SetString(unclaimed, 10)
		st.Claimed, ok2 = new(big.Int).SetString(claimed, 10)
		if !ok1 || !ok2 {
			return nil, fmt.Errorf("channel sums of %s are not decimal integers", network)
		}
		out[network] = st
	}
	return out, pgError(rows.Err())
}

// PruneChannels implements Channels.
func (s *Channels) PruneChannels(ctx context.Context, before time.Time) (int, error) {
	ctx, cancel := s.p.bound(ctx)
	defer cancel()
	tag, err := s.p.pool.Exec(ctx, `DELETE FROM x402_channels WHERE state = 'closed' AND last_activity < $1`, before)
	if err != nil {
		return 0, pgError(err)
	}
	return int(tag.RowsAffected()), nil
}
