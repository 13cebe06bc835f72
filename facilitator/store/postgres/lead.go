package postgres

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"

	"github.com/caddy-x402/caddy-x402/facilitator/store"
)

// leadPrefix keeps role keys apart from the claims of requests.
const leadPrefix = "lead:"

var _ store.Leader = (*Claims)(nil)

// Lead implements Leader: one round trip, fenced by the instance's lease
// (x402_fence), in the claims table that holds the requests' keys.
func (c *Claims) Lead(ctx context.Context, key string) (bool, error) {
	p := c.p
	var owner string
	err := p.pool.QueryRow(ctx, `WITH fence AS (SELECT x402_fence($2))
		INSERT INTO x402_claims AS c (key, owner) SELECT $1, $2 FROM fence
		ON CONFLICT (key) DO UPDATE SET owner = excluded.owner, taken_at = clock_timestamp()
		WHERE c.owner = excluded.owner
			OR NOT EXISTS (SELECT 1 FROM x402_instances i WHERE i.id = c.owner AND i.expires_at > clock_timestamp())
		RETURNING owner`, leadPrefix+key, p.Instance()).Scan(&owner)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, pgError(err)
	}
	return true, nil
}

// Resign implements Leader.
func (c *Claims) Resign(ctx context.Context, key string) error {
	_, err := c.p.pool.Exec(ctx, `DELETE FROM x402_claims WHERE key = $1 AND owner = $2`, leadPrefix+key, c.p.Instance())
	return pgError(err)
}
