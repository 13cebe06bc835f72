package postgres

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/caddy-x402/caddy-x402/facilitator/store"
)

// CoolOffs are the cooling-offs in PostgreSQL, shared by every
// instance on the database.
type CoolOffs struct{ p *Store }

var _ store.CoolOffs = (*CoolOffs)(nil)

// Strike implements CoolOffs: in one transaction, the keys' rows are made
// (a row with no strikes stands for none), locked in key order (so that
// two instances striking at once wait for each other and never deadlock),
// and written.
func (s *CoolOffs) Strike(ctx context.Context, keys []string, txHash string, now time.Time, base, max time.Duration) ([]store.CoolOff, error) {
	keys, err := store.CheckStrike(keys, txHash, base, max)
	if err != nil {
		return nil, err
	}
	sorted := slices.Clone(keys)
	slices.Sort(sorted)
	sorted = slices.Compact(sorted)
	got := map[string]store.CoolOff{}
	err = pgx.BeginFunc(ctx, s.p.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `INSERT INTO x402_cool_offs (key, strikes, until_at, tx_hash)
			SELECT k, 0, to_timestamp(0), '' FROM unnest($1::text[]) AS k ORDER BY k
			ON CONFLICT (key) DO NOTHING`, sorted); err != nil {
			return err
		}
		rows, err := tx.Query(ctx, `SELECT key, strikes, until_at, tx_hash FROM x402_cool_offs
			WHERE key = ANY($1) ORDER BY key FOR UPDATE`, sorted)
		if err != nil {
			return err
		}
		cur, err := collectCoolOffs(rows)
		if err != nil {
			return err
		}
		var ks, txs []string
		var strikes []int32
		var untils []time.Time
		for _, c := range cur {
			var old *store.CoolOff
			if c.Strikes > 0 {
				old = &c
			}
			n, changed := store.StrikeOne(old, c.Key, txHash, now, base, max)
			got[c.Key] = n
			if changed {
				ks, strikes, untils, txs = append(ks, n.Key), append(strikes, int32(n.Strikes)), append(untils, n.Until), append(txs, n.TxHash)
			}
		}
		if len(ks) == 0 {
			return nil
		}
		_, err = tx.Exec(ctx, `UPDATE x402_cool_offs AS c SET strikes = u.strikes, until_at = u.until_at, tx_hash = u.tx_hash
			FROM unnest($1::text[], $2::int[], $3::timestamptz[], $4::text[]) AS u(key, strikes, until_at, tx_hash)
			WHERE c.key = u.key`, ks, strikes, untils, txs)
		return err
	})
	if err != nil {
		return nil, pgError(err)
	}
	out := make([]store.CoolOff, len(keys))
	for i, k := range keys {
		out[i] = got[k]
	}
	return out, nil
}

// CoolingOff implements CoolOffs.
func (s *CoolOffs) CoolingOff(ctx context.Context, keys []string, now time.Time) (*store.CoolOff, error) {
	lower := make([]string, len(keys))
	for i, k := range keys {
		lower[i] = strings.ToLower(k)
	}
	rows, err := s.p.pool.Query(ctx, `SELECT key, strikes, until_at, tx_hash FROM x402_cool_offs
		WHERE key = ANY($1) AND strikes > 0 AND until_at > $2 ORDER BY until_at DESC, array_position($1, key) LIMIT 1`, lower, now)
	if err != nil {
		return nil, err
	}
	cs, err := collectCoolOffs(rows)
	if err != nil {
		return nil, err
	}
	return store.LatestCoolOff(cs, now), nil
}

// PruneCoolOffs implements CoolOffs.
func (s *CoolOffs) PruneCoolOffs(t time.Time) (int, error) {
	ctx, cancel := s.p.ctx()
	defer cancel()
	tag, err := s.p.pool.Exec(ctx, `DELETE FROM x402_cool_offs WHERE until_at < $1`, t)
	if err != nil {
		return 0, err
	}
	return int(tag.RowsAffected()), nil
}

// collectCoolOffs reads the rows of a cooling-off query.
func collectCoolOffs(rows pgx.Rows) ([]store.CoolOff, error) {
	var out []store.CoolOff
	for rows.Next() {
		var c store.CoolOff
		var strikes int32
		if err := rows.Scan(&c.Key, &strikes, &c.Until, &c.TxHash); err != nil {
			rows.Close()
			return nil, err
		}
		c.Strikes = int(strikes)
		out = append(out, c)
	}
	return out, rows.Err()
}
