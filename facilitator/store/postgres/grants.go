package postgres

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/caddy-x402/caddy-x402/facilitator/store"
)

// Grants are the access grants, the used sign-in nonces and the
// named secrets in PostgreSQL, shared by every instance on the database.
type Grants struct{ p *Store }

var (
	_ store.Grants  = (*Grants)(nil)
	_ store.Secrets = (*Grants)(nil)
)

// PutGrant implements Grants: one conditional upsert, so that two
// instances writing at once keep the later end.
func (g *Grants) PutGrant(gr *store.Grant) (bool, error) {
	payer, err := gr.Check()
	if err != nil {
		return false, pgError(err)
	}
	ctx, cancel := g.p.ctx()
	defer cancel()
	return g.p.execOne(ctx, `INSERT INTO x402_grants AS g (route, payer, start_at, end_at, tx_hash, network)
		VALUES ($1, $2, $3, $4, $5, $6)
		ON CONFLICT (route, payer) DO UPDATE SET start_at = excluded.start_at, end_at = excluded.end_at,
			tx_hash = excluded.tx_hash, network = excluded.network
		WHERE g.end_at < excluded.end_at`, gr.Route, payer, gr.Start, gr.End, gr.TxHash, gr.Network)
}

// Grant implements Grants.
func (g *Grants) Grant(route, payer string) (*store.Grant, error) {
	ctx, cancel := g.p.ctx()
	defer cancel()
	out := &store.Grant{Route: route}
	var tx, network *string
	err := g.p.pool.QueryRow(ctx, `SELECT payer, start_at, end_at, tx_hash, network FROM x402_grants WHERE route = $1 AND payer = $2`,
		route, strings.ToLower(payer)).Scan(&out.Payer, &out.Start, &out.End, &tx, &network)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, pgError(err)
	}
	if tx != nil {
		out.TxHash = *tx
	}
	if network != nil {
		out.Network = *network
	}
	return out, nil
}

// UseNonce implements Grants: the primary key decides between instances.
func (g *Grants) UseNonce(nonce string, expires time.Time) (bool, error) {
	ctx, cancel := g.p.ctx()
	defer cancel()
	return g.p.execOne(ctx, `INSERT INTO x402_siwx_nonces (nonce, expires_at) VALUES ($1, $2) ON CONFLICT (nonce) DO NOTHING`, nonce, expires)
}

// PruneGrants implements Grants.
func (g *Grants) PruneGrants(t time.Time) (int, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var n int
	err := g.p.pool.QueryRow(ctx, `WITH a AS (DELETE FROM x402_grants WHERE end_at < $1 RETURNING 1),
		b AS (DELETE FROM x402_siwx_nonces WHERE expires_at < $1 RETURNING 1)
		SELECT (SELECT count(*) FROM a) + (SELECT count(*) FROM b)`, t).Scan(&n)
	return n, pgError(err)
}

// Secret implements Secrets: the first instance to store the secret wins
// (INSERT ... ON CONFLICT DO NOTHING), and every instance then reads the
// stored one, in a statement of its own so that it sees a secret another
// instance committed meanwhile.
func (g *Grants) Secret(ctx context.Context, name string, gen func() ([]byte, error)) ([]byte, error) {
	var v []byte
	err := g.p.pool.QueryRow(ctx, `SELECT value FROM x402_secrets WHERE name = $1`, name).Scan(&v)
	if err == nil {
		return v, nil
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		return nil, pgError(err)
	}
	fresh, err := gen()
	if err != nil {
		return nil, pgError(err)
	}
	if _, err := g.p.pool.Exec(ctx, `INSERT INTO x402_secrets (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING`, name, fresh); err != nil {
		return nil, pgError(err)
	}
	err = g.p.pool.QueryRow(ctx, `SELECT value FROM x402_secrets WHERE name = $1`, name).Scan(&v)
	return v, pgError(err)
}

// DSN is the connection string of the store the grants live in, for tests
