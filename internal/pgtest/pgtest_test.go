package pgtest_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/caddy-x402/caddy-x402/internal/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

func connect(t *testing.T, dsn string) *pgx.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatalf("connect %s: %v", dsn, err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

func count(t *testing.T, conn *pgx.Conn, sql string) int {
	t.Helper()
	var n int
	if err := conn.QueryRow(context.Background(), sql).Scan(&n); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return n
}

func TestServer(t *testing.T) {
	ctx := context.Background()
	s := pgtest.Start(t)
	dsn1, dsn2 := s.DSN(t), s.DSN(t)
	if dsn1 == dsn2 {
		t.Fatalf("DSN gave the same database twice: %s", dsn1)
	}

	c1 := connect(t, dsn1)
	if _, err := c1.Exec(ctx, `CREATE TABLE t (v text); INSERT INTO t VALUES ('kept')`); err != nil {
		t.Fatal(err)
	}
	c2 := connect(t, dsn2)
	if n := count(t, c2, `SELECT count(*) FROM pg_tables WHERE schemaname = 'public'`); n != 0 {
		t.Fatalf("second database has %d tables, want 0", n)
	}

	s.Stop(t)
	s.Stop(t) // idempotent
	cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if conn, err := pgx.Connect(cctx, dsn1); err == nil {
		conn.Close(ctx)
		t.Fatal("connected to a stopped server")
	}

	port := s.Port()
	s.Restart(t)
	if s.Port() != port {
		t.Fatalf("port changed across Restart: %d, then %d", port, s.Port())
	}
	if n := count(t, connect(t, dsn1), `SELECT count(*) FROM t WHERE v = 'kept'`); n != 1 {
		t.Fatalf("after Restart: %d rows, want 1", n)
	}
}

// A killed server loses no committed transaction, even one committed just
// before the kill.
func TestKill(t *testing.T) {
	ctx := context.Background()
	s := pgtest.Start(t)
	dsn := s.DSN(t)
	c := connect(t, dsn)
	if _, err := c.Exec(ctx, `CREATE TABLE t (n int)`); err != nil {
		t.Fatal(err)
	}
	for i := range 100 {
		if _, err := c.Exec(ctx, `INSERT INTO t VALUES ($1)`, i); err != nil {
			t.Fatal(err)
		}
	}
	s.Kill(t)
	s.Restart(t)
	if n := count(t, connect(t, dsn), `SELECT count(*) FROM t`); n != 100 {
		t.Fatalf("after Kill and Restart: %d rows, want 100", n)
	}
}

func TestShared(t *testing.T) {
	s := pgtest.Shared(t)
	if pgtest.Shared(t) != s {
		t.Fatal("Shared returned two servers")
	}
	if n := count(t, connect(t, s.DSN(t)), `SELECT 1`); n != 1 {
		t.Fatalf("SELECT 1 = %d", n)
	}
}
