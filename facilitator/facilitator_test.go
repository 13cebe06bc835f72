package facilitator_test

import (
	"context"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/caddy-x402/caddy-x402/facilitator"
	"github.com/caddy-x402/caddy-x402/facilitator/network"
)

// connCounter forwards TCP connections from a loopback port to target and
// counts those open: a connection is counted from accept until either side
// closes it.
type connCounter struct {
	ln     net.Listener
	target string
	open   atomic.Int64
	wg     sync.WaitGroup

	mu    sync.Mutex
	conns map[net.Conn]struct{} // the clients' side, closed at cleanup
}

func newConnCounter(t *testing.T, target string) *connCounter {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	c := &connCounter{ln: ln, target: target, conns: map[net.Conn]struct{}{}}
	c.wg.Add(1)
	go c.accept()
	t.Cleanup(func() {
		ln.Close()
		c.mu.Lock()
		for conn := range c.conns {
			conn.Close()
		}
		c.mu.Unlock()
		c.wg.Wait()
	})
	return c
}

func (c *connCounter) accept() {
	defer c.wg.Done()
	for {
		client, err := c.ln.Accept()
		if err != nil {
			return
		}
		c.open.Add(1)
		c.mu.Lock()
		c.conns[client] = struct{}{}
		c.mu.Unlock()
		c.wg.Add(1)
		go func() {
			defer c.wg.Done()
			defer c.open.Add(-1)
			defer func() {
				client.Close()
				c.mu.Lock()
				delete(c.conns, client)
				c.mu.Unlock()
			}()
			up, err := net.Dial("tcp", c.target)
			if err != nil {
				return
			}
			defer up.Close()
			done := make(chan struct{}, 2)
			go func() { io.Copy(up, client); done <- struct{}{} }()
			go func() { io.Copy(client, up); done <- struct{}{} }()
			<-done // either side closed: close both
			client.Close()
			up.Close()
			<-done
		}()
	}
}

// TestCloseReleasesRPCConnections makes and closes facilitators one after
// the other, as Caddy config reloads do, each talking to the devnet through
// a proxy that counts the open TCP connections. Every closed facilitator
// must close its idle RPC connections: the count falls back to none,
// instead of growing by a few per facilitator until Go's idle timeout
// (90 s) closes them. The bound below is generous for a loaded machine.
func TestCloseReleasesRPCConnections(t *testing.T) {
	const cycles = 30
	counter := newConnCounter(t, chain.RPCURL()[len("http://"):])
	nc := testnetConfig()
	nc.SignerKeys = nil // reads only; the shared facilitator's engine owns the devnet signer
	nc.RPCURLs = []string{"http://" + counter.ln.Addr().String()}
	nc.EIP712Name, nc.Decimals = "", 0 // read from the token: more RPC calls, as at a real start
	peak := int64(0)
	for i := 0; i < cycles; i++ {
		f, err := facilitator.New(context.Background(), facilitator.Config{Networks: []network.Config{nc}, Logger: testLogger()})
		if err != nil {
			t.Fatal(err)
		}
		peak = max(peak, counter.open.Load())
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
	}
	start := time.Now()
	for counter.open.Load() > 0 && time.Since(start) < 10*time.Second {
		time.Sleep(20 * time.Millisecond)
	}
	open := counter.open.Load()
	t.Logf("%d facilitators made and closed: at most %d RPC connections open after a New, %d open %s after the last Close",
		cycles, peak, open, time.Since(start).Round(10*time.Millisecond))
	if open != 0 {
		t.Errorf("%d RPC connections still open after %d facilitators were closed, want 0", open, cycles)
	}
}
