package postgres_test

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/caddy-x402/caddy-x402/facilitator/store/postgres"
	"github.com/caddy-x402/caddy-x402/internal/pgtest"
)

// TestPostgresDurabilityWarning opens the store on a database whose
// sessions commit synchronously, then on one set to synchronous_commit=off
// (ALTER DATABASE, as an operator would): only the second start warns,
// naming the setting and what to do. (The test server runs with fsync=off,
// which is warned of every time.)
func TestPostgresDurabilityWarning(t *testing.T) {
	dsn := pgtest.Shared(t).DSN(t)
	open := func() []observer.LoggedEntry {
		t.Helper()
		core, logs := observer.New(zapcore.WarnLevel)
		p, err := postgres.Open(context.Background(), dsn, postgres.Options{Logger: zap.New(core)})
		if err != nil {
			t.Fatal(err)
		}
		p.Close()
		var out []observer.LoggedEntry
		for _, e := range logs.All() {
			if strings.Contains(e.Message, "lose acknowledged writes") {
				out = append(out, e)
			}
		}
		return out
	}
	const syncOff = "the PostgreSQL storage can lose acknowledged writes: synchronous_commit is off: a commit is acknowledged before it is on disk, so a crash of PostgreSQL loses the last settlements' journal and redemption rows; set it to on (ALTER DATABASE <db> SET synchronous_commit = on, or in postgresql.conf), and with replicas use synchronous ones (synchronous_standby_names) so a failover keeps them too"
	has := func(es []observer.LoggedEntry, msg string) bool {
		for _, e := range es {
			if e.Message == msg {
				return true
			}
		}
		return false
	}

	if es := open(); has(es, syncOff) || len(es) != 1 || !strings.Contains(es[0].Message, "fsync is off") {
		t.Fatalf("with synchronous_commit=on the start warned %v; want only the fsync warning", es)
	}

	conn, err := pgx.Connect(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	var db string
	if err := conn.QueryRow(context.Background(), "SELECT current_database()").Scan(&db); err == nil {
		_, err = conn.Exec(context.Background(), "ALTER DATABASE "+pgx.Identifier{db}.Sanitize()+" SET synchronous_commit = off")
	}
	conn.Close(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	es := open()
	if !has(es, syncOff) {
		t.Fatalf("with synchronous_commit=off the start warned %v; want %q", es, syncOff)
	}
	for _, e := range es {
		if e.Message == syncOff && e.ContextMap()["synchronous_commit"] != "off" {
			t.Errorf("warning fields %v; want synchronous_commit=off", e.ContextMap())
		}
	}
}
