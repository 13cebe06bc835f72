package postgres

import (
	"errors"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/caddy-x402/caddy-x402/facilitator/store"
)

// TestPgErrorServerGone: an answer of the server that says it is going
// away or takes no work now (a stopped PostgreSQL answers 57P01 to the
// sessions it terminates: TestPostgresDown saw it as a paid buyer's 500)
// is the store being unreachable; an answer to the statement is not.
func TestPgErrorServerGone(t *testing.T) {
	for _, tc := range []struct {
		code        string
		unavailable bool
	}{
		{"57P01", true},  // admin_shutdown: terminating connection due to administrator command
		{"57P02", true},  // crash_shutdown
		{"57P03", true},  // cannot_connect_now: the database system is starting up
		{"53300", true},  // too_many_connections
		{"08006", true},  // connection_failure
		{"08P01", true},  // protocol_violation
		{"23505", false}, // unique_violation: an answer
		{"40001", false}, // serialization_failure: an answer
		{"42P01", false}, // undefined_table: an answer
	} {
		err := pgError(&pgconn.PgError{Code: tc.code, Message: "m"})
		if got := errors.Is(err, store.ErrUnavailable); got != tc.unavailable {
			t.Errorf("SQLSTATE %s: unavailable %v, want %v (%v)", tc.code, got, tc.unavailable, err)
		}
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Code != tc.code {
			t.Errorf("SQLSTATE %s: the database's error is not kept in %v", tc.code, err)
		}
	}
	if !errors.Is(pgError(&pgconn.PgError{Code: "XF001"}), store.ErrFenced) {
		t.Error("XF001 is not ErrFenced")
	}
}
