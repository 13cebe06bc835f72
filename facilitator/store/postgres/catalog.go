package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/caddy-x402/caddy-x402/facilitator/store"
)

// Catalog is the discovery catalog in PostgreSQL, shared by every
// instance on the database: each lists what any of them cataloged.
type Catalog struct{ p *Store }

var _ store.Catalog = (*Catalog)(nil)

// catalogLock is the advisory lock key that serialises catalog writes, so
// that two instances writing at once cannot both pass the total bound.
const catalogLock = 0x783430320005 // "x402" 5

// PutEntry implements Catalog: in one transaction that holds the catalog's
// advisory lock, the total checked, then one upsert.
func (c *Catalog) PutEntry(e *store.CatalogEntry, maxTotal int64) error {
	ce, err := e.Checked()
	if err != nil {
		return err
	}
	ctx, cancel := c.p.ctx()
	defer cancel()
	return pgx.BeginFunc(ctx, c.p.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, int64(catalogLock)); err != nil {
			return err
		}
		var total int64
		if err := tx.QueryRow(ctx, `SELECT coalesce(sum(size), 0) - coalesce((SELECT size FROM x402_catalog WHERE key = $1), 0) FROM x402_catalog`,
			ce.Key).Scan(&total); err != nil {
			return err
		}
		if total+int64(len(ce.Data)) > maxTotal {
			return store.ErrCatalogFull
		}
		_, err := tx.Exec(ctx, `INSERT INTO x402_catalog (key, type, pay_to, networks, schemes, data, size, updated_at)
			VALUES ($1, $2, $3, $4::text[], $5::text[], $6, $7, $8)
			ON CONFLICT (key) DO UPDATE SET type = excluded.type, pay_to = excluded.pay_to, networks = excluded.networks,
				schemes = excluded.schemes, data = excluded.data, size = excluded.size, updated_at = excluded.updated_at`,
			ce.Key, ce.Type, ce.PayTo, nonNil(ce.Networks), nonNil(ce.Schemes), ce.Data, len(ce.Data), ce.Updated)
		return err
	})
}

// catalogWhere is the filter of a catalog query, on parameters $1 to $4.
const catalogWhere = ` WHERE ($1 = '' OR type = $1) AND ($2 = '' OR pay_to = lower($2))
	AND ($3 = '' OR $3 = ANY(networks)) AND ($4 = '' OR $4 = ANY(schemes))`

// Entries implements Catalog.
func (c *Catalog) Entries(q store.CatalogQuery) ([]store.CatalogEntry, int, error) {
	ctx, cancel := c.p.ctx()
	defer cancel()
	var total int
	if err := c.p.pool.QueryRow(ctx, `SELECT count(*) FROM x402_catalog`+catalogWhere,
		q.Type, q.PayTo, q.Network, q.Scheme).Scan(&total); err != nil {
		return nil, 0, err
	}
	if q.Limit <= 0 || q.Offset >= total {
		return nil, total, nil
	}
	rows, err := c.p.pool.Query(ctx, `SELECT key, type, pay_to, networks, schemes, data, updated_at FROM x402_catalog`+catalogWhere+`
		ORDER BY key COLLATE "C" OFFSET $5 LIMIT $6`, q.Type, q.PayTo, q.Network, q.Scheme, q.Offset, q.Limit)
	if err != nil {
		return nil, 0, err
	}
	var out []store.CatalogEntry
	for rows.Next() {
		var e store.CatalogEntry
		if err := rows.Scan(&e.Key, &e.Type, &e.PayTo, &e.Networks, &e.Schemes, &e.Data, &e.Updated); err != nil {
			rows.Close()
			return nil, 0, err
		}
		out = append(out, e)
	}
	return out, total, rows.Err()
}

// PruneCatalog implements Catalog.
func (c *Catalog) PruneCatalog(t time.Time) (int, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	tag, err := c.p.pool.Exec(ctx, `DELETE FROM x402_catalog WHERE updated_at < $1`, t)
	if err != nil {
		return 0, err
	}
	return int(tag.RowsAffected()), nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
