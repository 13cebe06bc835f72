package pgtest_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/caddy-x402/caddy-x402/internal/pgtest"
)

// The server's CPU counts a backend's work while it runs and after it
// ended (reaped by the postmaster), and is 0 once the server stopped.
func TestCPU(t *testing.T) {
	s := pgtest.Start(t)
	conn := connect(t, s.DSN(t))
	before := s.CPU()
	if before <= 0 {
		t.Fatalf("CPU of a started server = %v, want > 0", before)
	}
	// About a second of a backend's CPU on this machine.
	if n := count(t, conn, `SELECT count(*) FROM generate_series(1, 5000000)`); n != 5000000 {
		t.Fatalf("count = %d", n)
	}
	live := s.CPU()
	if live-before < 100*time.Millisecond {
		t.Fatalf("CPU went from %v to %v over a query of 5,000,000 rows, want at least 100 ms more", before, live)
	}
	conn.Close(context.Background())
	var ended time.Duration
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		if ended = s.CPU(); ended >= live { // the backend's time, now in the postmaster's reaped children's
			break
		}
	}
	if ended < live {
		t.Fatalf("CPU after the backend ended = %v, want at least the %v counted while it ran", ended, live)
	}
	s.Stop(t)
	if got := s.CPU(); got != 0 {
		t.Fatalf("CPU of a stopped server = %v, want 0", got)
	}
	if got := pgtest.ProcessCPU(os.Getpid(), false); got <= 0 {
		t.Fatalf("ProcessCPU of this process = %v, want > 0", got)
	}
	if got := pgtest.ProcessCPU(-1, false); got != 0 {
		t.Fatalf("ProcessCPU of no process = %v, want 0", got)
	}
}
