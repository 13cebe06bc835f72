package postgres

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/caddy-x402/caddy-x402/facilitator/store"
)

// Rotated secrets in PostgreSQL. A secret that was never rotated is the
// one row called name (x402_secrets), its generation 1. The first
// rotation copies it to name@1 and adds name@2; each later one adds the
// next generation. The row called name always holds the newest value, for
// builds that know no rotation. No schema change: generations are rows of
// x402_secrets under their own names.

var (
	_ store.RotatingSecrets = (*Grants)(nil)
	_ store.RotatingSecrets = (*Secrets)(nil)
)

// genSep separates a secret's name from its generation.
const genSep = "@"

// SecretVersions implements RotatingSecrets.
func (g *Grants) SecretVersions(ctx context.Context, name string) ([]store.SecretVersion, error) {
	return secretVersions(ctx, g.p.pool, name, false)
}

// Where is the storage's connection string with its credentials cut.
func (g *Grants) Where() string { return g.p.where }

// RotateSecret implements RotatingSecrets.
func (g *Grants) RotateSecret(ctx context.Context, name string, gen func() ([]byte, error), keep func(store.SecretVersion, time.Time) bool) (store.SecretVersion, []store.SecretVersion, error) {
	return rotateSecret(ctx, g.p.pool, name, gen, keep)
}

// Secrets is the secrets of a PostgreSQL store opened by a tool
// (caddy x402 rotate-key): its own connections, the schema migrated, no
// instance lease.
type Secrets struct {
	pool  *pgxpool.Pool
	where string
}

// OpenSecrets connects to the database at dsn for its secrets.
func OpenSecrets(ctx context.Context, dsn string) (*Secrets, error) {
	where := RedactDSN(dsn)
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("the PostgreSQL storage %s is not a valid connection string: %s", where, scrub(err, dsn))
	}
	cfg.MaxConns = 2
	cfg.ConnConfig.ConnectTimeout = 5 * time.Second
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("connecting to the PostgreSQL storage %s: %s", where, scrub(err, dsn))
	}
	if _, err := migrate(ctx, pool); err != nil {
		pool.Close()
		return nil, fmt.Errorf("preparing the x402 tables in the PostgreSQL storage %s: %s", where, scrub(err, dsn))
	}
	return &Secrets{pool: pool, where: where}, nil
}

// Where is the storage's connection string with its credentials cut.
func (s *Secrets) Where() string { return s.where }

// Close closes the connections.
func (s *Secrets) Close() { s.pool.Close() }

// Secret implements Secrets.
func (s *Secrets) Secret(ctx context.Context, name string, gen func() ([]byte, error)) ([]byte, error) {
	return (&Grants{&Store{pool: s.pool}}).Secret(ctx, name, gen)
}

// SecretVersions implements RotatingSecrets.
func (s *Secrets) SecretVersions(ctx context.Context, name string) ([]store.SecretVersion, error) {
	return secretVersions(ctx, s.pool, name, false)
}

// RotateSecret implements RotatingSecrets.
func (s *Secrets) RotateSecret(ctx context.Context, name string, gen func() ([]byte, error), keep func(store.SecretVersion, time.Time) bool) (store.SecretVersion, []store.SecretVersion, error) {
	return rotateSecret(ctx, s.pool, name, gen, keep)
}

type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// secretVersions reads name's generations, oldest first (locked for
// update in a rotation).
func secretVersions(ctx context.Context, q querier, name string, lock bool) ([]store.SecretVersion, error) {
	sql := `SELECT name, value, created_at FROM x402_secrets WHERE name = $1 OR left(name, length($1) + 1) = $1 || '` + genSep + `'`
	if lock {
		sql += ` FOR UPDATE`
	}
	rows, err := q.Query(ctx, sql, name)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var plain *store.SecretVersion
	var out []store.SecretVersion
	for rows.Next() {
		var n string
		v := store.SecretVersion{}
		if err := rows.Scan(&n, &v.Value, &v.Created); err != nil {
			return nil, err
		}
		if n == name {
			v.Gen = 1
			plain = &v
			continue
		}
		g, err := strconv.Atoi(strings.TrimPrefix(n, name+genSep))
		if err != nil || g < 1 {
			continue // not one of ours
		}
		v.Gen = g
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if len(out) == 0 && plain != nil {
		return []store.SecretVersion{*plain}, nil // never rotated
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Gen < out[j].Gen })
	return out, nil
}

// rotateSecret adds the next generation of name, in one transaction that
// locks name's rows.
func rotateSecret(ctx context.Context, pool *pgxpool.Pool, name string, gen func() ([]byte, error), keep func(store.SecretVersion, time.Time) bool) (store.SecretVersion, []store.SecretVersion, error) {
	fresh, err := gen()
	if err != nil {
		return store.SecretVersion{}, nil, err
	}
	tx, err := pool.Begin(ctx)
	if err != nil {
		return store.SecretVersion{}, nil, err
	}
	defer tx.Rollback(ctx)
	// The plain row is the lock that serialises rotations (and the first
	// secret, when there was none).
	if _, err := tx.Exec(ctx, `INSERT INTO x402_secrets (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING`, name, fresh); err != nil {
		return store.SecretVersion{}, nil, err
	}
	var plain store.SecretVersion
	if err := tx.QueryRow(ctx, `SELECT value, created_at FROM x402_secrets WHERE name = $1 FOR UPDATE`, name).Scan(&plain.Value, &plain.Created); err != nil {
		return store.SecretVersion{}, nil, err
	}
	vs, err := secretVersions(ctx, tx, name, true)
	if err != nil {
		return store.SecretVersion{}, nil, err
	}
	if len(vs) == 1 && vs[0].Gen == 1 && string(vs[0].Value) == string(fresh) {
		// There was none: the first generation is the fresh one.
		if _, err := tx.Exec(ctx, `INSERT INTO x402_secrets (name, value, created_at) VALUES ($1, $2, $3)`, name+genSep+"1", fresh, plain.Created); err != nil {
			return store.SecretVersion{}, nil, err
		}
		return store.SecretVersion{Gen: 1, Value: fresh, Created: plain.Created}, nil, tx.Commit(ctx)
	}
	if len(vs) == 1 && vs[0].Gen == 1 {
		// Never rotated: the plain row becomes generation 1.
		if _, err := tx.Exec(ctx, `INSERT INTO x402_secrets (name, value, created_at) VALUES ($1, $2, $3) ON CONFLICT (name) DO NOTHING`,
			name+genSep+"1", vs[0].Value, vs[0].Created); err != nil {
			return store.SecretVersion{}, nil, err
		}
	}
	if len(vs) == 0 {
		return store.SecretVersion{}, nil, errors.New("the secret's rows changed during the rotation: run it again")
	}
	added := store.SecretVersion{Gen: vs[len(vs)-1].Gen + 1, Value: fresh}
	if err := tx.QueryRow(ctx, `INSERT INTO x402_secrets (name, value) VALUES ($1, $2) RETURNING created_at`,
		name+genSep+strconv.Itoa(added.Gen), fresh).Scan(&added.Created); err != nil {
		return store.SecretVersion{}, nil, err
	}
	if _, err := tx.Exec(ctx, `UPDATE x402_secrets SET value = $2 WHERE name = $1`, name, fresh); err != nil {
		return store.SecretVersion{}, nil, err
	}
	var dropped []store.SecretVersion
	for i, v := range vs {
		retired := added.Created
		if i+1 < len(vs) {
			retired = vs[i+1].Created
		}
		if keep == nil || keep(v, retired) {
			continue
		}
		if _, err := tx.Exec(ctx, `DELETE FROM x402_secrets WHERE name = $1`, name+genSep+strconv.Itoa(v.Gen)); err != nil {
			return store.SecretVersion{}, nil, err
		}
		dropped = append(dropped, v)
	}
	return added, dropped, tx.Commit(ctx)
}
