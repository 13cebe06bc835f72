package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/caddy-x402/caddy-x402/facilitator/store"
)

// Instance implements Shared.
func (p *Store) Instance() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.instance
}

// execOne runs a write of at most one row (a conditional UPDATE, an
// INSERT ... ON CONFLICT DO NOTHING) and says whether it wrote it.
func (p *Store) execOne(ctx context.Context, sql string, args ...any) (bool, error) {
	tag, err := p.pool.Exec(ctx, sql, args...)
	if err != nil {
		return false, pgError(err)
	}
	return tag.RowsAffected() == 1, nil
}

// pgError maps the store's own SQL errors to this package's, and marks
// with ErrUnavailable an error that is not the database's answer (a
// connection that failed or was cut, a budget that ran out): the store
// could not be reached, and the same call may succeed shortly. Nil stays
// nil.
func pgError(err error) error {
	if err == nil {
		return nil
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch pe.Code {
		case "XF001":
			return store.ErrFenced
		case "XF002":
			return fmt.Errorf("%w: %s", store.ErrFollowedElsewhere, pe.Message)
		}
		if serverGone(pe.Code) {
			return fmt.Errorf("%w: %w", store.ErrUnavailable, err)
		}
		return err
	}
	if errors.Is(err, pgx.ErrNoRows) || errors.Is(err, store.ErrUnavailable) {
		return err
	}
	return fmt.Errorf("%w: %w", store.ErrUnavailable, err)
}

// serverGone says whether a SQLSTATE is the server going away or refusing
// work for now rather than an answer to the statement: a connection
// exception (class 08), the server shut down or restarting (57P01
// admin_shutdown, 57P02 crash_shutdown, 57P03 cannot_connect_now), too
// many connections (53300). The same call may succeed shortly.
func serverGone(code string) bool {
	switch code {
	case "57P01", "57P02", "57P03", "53300":
		return true
	}
	return strings.HasPrefix(code, "08")
}

// ctx bounds one statement (or one batch, one round trip) of a method
// that takes no context: twice the lease, so that a slow store is waited
// for (a statement cut short costs its connection, and a new one costs a
// round trip more) while one that does not answer is given up on.
func (p *Store) ctx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), p.timeout)
}

// bound is ctx bounded by a statement's budget as well (ctx).
func (p *Store) bound(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, p.timeout)
}
