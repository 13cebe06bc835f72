//go:build unix

package postgres

import (
	"context"
	"math/big"
	"net"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/caddy-x402/caddy-x402/facilitator/store/storetest"
	"github.com/caddy-x402/caddy-x402/internal/pgtest"
)

// TestConnAlive: a live idle connection is alive; one whose backend the
// server ended (it sends a FATAL notice, then closes) is not, as soon as
// the notice arrives; a conn that is no socket is taken as alive (its
// statement's error tells).
func TestConnAlive(t *testing.T) {
	dsn := pgtest.Shared(t).DSN(t)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	killer, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer killer.Close(ctx)

	nc := conn.PgConn().Conn()
	for i := range 3 { // checking reads nothing: it can be asked again
		if !connAlive(nc) {
			t.Fatalf("check %d: a live idle connection is not alive", i)
		}
	}
	if _, err := conn.Exec(ctx, `SELECT 1`); err != nil {
		t.Fatalf("the connection after the checks: %v", err)
	}
	if _, err := killer.Exec(ctx, `SELECT pg_terminate_backend($1)`, conn.PgConn().PID()); err != nil {
		t.Fatal(err)
	}
	await(t, "the ended backend's connection to show as not alive", func() bool { return !connAlive(nc) })

	// A reader parked on the socket (pgx's background reader on an idle
	// connection) does not make the check wait for it.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	client, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	server, err := l.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer server.Close()
	parked := make(chan struct{})
	go func() {
		close(parked)
		_, _ = client.Read(make([]byte, 1))
	}()
	<-parked
	checked := make(chan bool)
	go func() { checked <- connAlive(client) }()
	select {
	case ok := <-checked:
		if !ok {
			t.Fatal("a live connection with a parked reader is not alive")
		}
	case <-time.After(time.Minute):
		t.Fatal("the check waited a minute for the parked reader")
	}

	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	if !connAlive(a) {
		t.Fatal("a conn that is no socket is not taken as alive")
	}
}

// TestPostgresEndedConnectionsReplaced: when the server ends the pool's
// connections (an administrator, a restarted pooler), the next charge is
// sent on a new connection and taken, not failed on a dead one.
func TestPostgresEndedConnectionsReplaced(t *testing.T) {
	dsn := pgtest.Shared(t).DSN(t)
	s := openGroupTest(t, dsn)
	ctx := context.Background()
	for i := range int64(8) { // connections in the pool
		if _, err := s.Charge(ctx, storetest.ChannelID(1+int(i%4)), big.NewInt(i/4), big.NewInt(i/4+1), storetest.Voucher(big.NewInt(i/4+1))); err != nil {
			t.Fatal(err)
		}
	}
	killer, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer killer.Close(ctx)
	var ended int
	if err := killer.QueryRow(ctx, `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
		WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend'`).Scan(&ended); err != nil || ended == 0 {
		t.Fatalf("ended %d connections: %v", ended, err)
	}
	await(t, "the ended backends to exit", func() bool {
		var n int
		err := killer.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend'`).Scan(&n)
		return err == nil && n == 0
	})
	for i := range int64(4) {
		if _, err := s.Charge(ctx, storetest.ChannelID(1+int(i)), big.NewInt(2), big.NewInt(3), storetest.Voucher(big.NewInt(3))); err != nil {
			t.Fatalf("charge %d after the connections were ended: %v", i, err)
		}
	}
}
