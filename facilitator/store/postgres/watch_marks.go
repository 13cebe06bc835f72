package postgres

import (
	"context"
	"errors"
	"math"

	"github.com/jackc/pgx/v5"

	"github.com/caddy-x402/caddy-x402/facilitator/store"
)

var _ store.WatchMarks = (*Channels)(nil)

// WatchMark implements WatchMarks.
func (s *Channels) WatchMark(ctx context.Context, key string) (uint64, bool, error) {
	ctx, cancel := s.p.bound(ctx)
	defer cancel()
	var block int64
	err := s.p.pool.QueryRow(ctx, `SELECT block FROM x402_watch_marks WHERE key = $1`, key).Scan(&block)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, pgError(err)
	}
	return uint64(max(block, 0)), true, nil
}

// SetWatchMark implements WatchMarks: one round trip, never lowering the
// mark.
func (s *Channels) SetWatchMark(ctx context.Context, key string, next uint64) error {
	if next > math.MaxInt64 {
		return errors.New("a watch mark beyond the largest block number a bigint holds")
	}
	ctx, cancel := s.p.bound(ctx)
	defer cancel()
	_, err := s.p.pool.Exec(ctx, `INSERT INTO x402_watch_marks AS m (key, block) VALUES ($1, $2)
		ON CONFLICT (key) DO UPDATE SET block = greatest(m.block, excluded.block), updated_at = clock_timestamp()`, key, int64(next))
	return pgError(err)
}
