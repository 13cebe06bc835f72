package tcpproxy

import (
	"bytes"
	"crypto/rand"
	"io"
	"net"
	"testing"
	"time"
)

// echo starts a server that sends back what it reads.
func echo(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { io.Copy(c, c); c.Close() }()
		}
	}()
	return ln.Addr().String()
}

func start(t *testing.T) *Proxy {
	t.Helper()
	p, err := Start(echo(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

func dial(t *testing.T, p *Proxy) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", p.Addr())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// roundTrip writes msg and reads it back, returning how long it took.
func roundTrip(t *testing.T, c net.Conn, msg []byte) time.Duration {
	t.Helper()
	start := time.Now()
	errc := make(chan error, 1)
	go func() { _, err := c.Write(msg); errc <- err }()
	got := make([]byte, len(msg))
	c.SetReadDeadline(time.Now().Add(30 * time.Second))
	if _, err := io.ReadFull(c, got); err != nil {
		t.Fatalf("reading back %d bytes: %v", len(msg), err)
	}
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, msg) {
		t.Fatalf("the %d bytes came back changed", len(msg))
	}
	return time.Since(start)
}

// TestForwards: bytes pass unchanged and in order, small and large, with
// and without a delay.
func TestForwards(t *testing.T) {
	big := make([]byte, 4<<20)
	rand.Read(big)
	for _, tc := range []struct {
		name  string
		delay time.Duration
		msg   []byte
	}{
		{"small, no delay", 0, []byte("hello")},
		{"4 MiB, no delay", 0, big},
		{"4 MiB, delayed", 5 * time.Millisecond, big},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := start(t)
			p.SetDelay(tc.delay, tc.delay)
			roundTrip(t, dial(t, p), tc.msg)
		})
	}
}

// TestDelay: a round trip costs at least both delays, each direction its
// own; a delay set later applies to the bytes read after it.
func TestDelay(t *testing.T) {
	p := start(t)
	c := dial(t, p)
	if d := roundTrip(t, c, []byte("warm")); d > time.Second {
		t.Logf("an undelayed round trip took %v (a loaded machine)", d)
	}
	p.SetDelay(60*time.Millisecond, 90*time.Millisecond)
	if up, down := p.Delay(); up != 60*time.Millisecond || down != 90*time.Millisecond {
		t.Fatalf("Delay() = %v, %v", up, down)
	}
	for range 3 {
		if d := roundTrip(t, c, []byte("ping")); d < 150*time.Millisecond {
			t.Errorf("a round trip through 60 ms + 90 ms took %v, want at least 150 ms", d)
		}
	}
	p.SetDelay(0, 200*time.Millisecond)
	if d := roundTrip(t, c, []byte("pong")); d < 200*time.Millisecond {
		t.Errorf("a round trip through 0 + 200 ms took %v, want at least 200 ms", d)
	}
}

// TestCut: Cut ends the open connections (the client reads EOF or an
// error); new connections are served; Close refuses them.
func TestCut(t *testing.T) {
	p := start(t)
	c := dial(t, p)
	roundTrip(t, c, []byte("before"))
	p.Cut()
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	if n, err := c.Read(make([]byte, 1)); err == nil {
		t.Fatalf("a cut connection read %d bytes, no error", n)
	} else if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Fatal("a cut connection stayed open")
	}
	roundTrip(t, dial(t, p), []byte("after"))
	if n := p.Connections(); n != 2 {
		t.Errorf("Connections() = %d, want 2", n)
	}
	if n := p.Exchanges(); n != 2 {
		t.Errorf("Exchanges() = %d, want 2 (one round trip on each connection)", n)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if c, err := net.DialTimeout("tcp", p.Addr(), time.Second); err == nil {
		c.Close()
		t.Error("a closed proxy accepted a connection")
	}
}

// TestExchanges: each request sent after the answer to the previous one
// is an exchange, however many writes it takes; a client that sends again
// before any answer is one exchange. The count is read at points the
// client's own reads define (an answer read back, the server's receipt of
// a write), never after a sleep.
func TestExchanges(t *testing.T) {
	srv := heldEcho(t)
	p, err := Start(srv.addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	c := dial(t, p)
	for i := range 3 {
		c.Write([]byte("request"))
		srv.await(t, "request")
		srv.answer()
		readBack(t, c, "request")
		if n := p.Exchanges(); n != int64(i+1) {
			t.Fatalf("after %d round trips Exchanges() = %d", i+1, n)
		}
	}
	// Two writes before the client hears back (the server answers only
	// when both reached it, each in its own read of the proxy): one
	// exchange.
	c.Write([]byte("a"))
	srv.await(t, "a")
	c.Write([]byte("b"))
	srv.await(t, "b")
	srv.answer()
	readBack(t, c, "ab")
	if n := p.Exchanges(); n != 4 {
		t.Errorf("two writes before an answer: Exchanges() = %d, want 4", n)
	}
}

// heldEchoServer echoes what it reads on its one connection, only when
// the test says (answer), and tells the test each read it made.
type heldEchoServer struct {
	addr    string
	reads   chan string   // each read of the server
	answers chan struct{} // one send: echo what was read since the last answer
}

func heldEcho(t *testing.T) *heldEchoServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	s := &heldEchoServer{addr: ln.Addr().String(), reads: make(chan string, 16), answers: make(chan struct{})}
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		in := make(chan []byte)
		go func() {
			defer close(in)
			for {
				buf := make([]byte, 1024)
				n, err := c.Read(buf)
				if n > 0 {
					in <- buf[:n]
				}
				if err != nil {
					return
				}
			}
		}()
		var held []byte
		for {
			select {
			case b, ok := <-in:
				if !ok {
					return
				}
				held = append(held, b...)
				s.reads <- string(b) // after it is held: an answer now echoes it
			case <-s.answers:
				if _, err := c.Write(held); err != nil {
					return
				}
				held = nil
			}
		}
	}()
	return s
}

// await waits until the server has read want (in one or more reads).
func (s *heldEchoServer) await(t *testing.T, want string) {
	t.Helper()
	var got string
	for got != want {
		select {
		case r := <-s.reads:
			got += r
		case <-time.After(10 * time.Second):
			t.Fatalf("the server read %q, want %q", got, want)
		}
	}
}

// answer has the server echo what it read since its last answer.
func (s *heldEchoServer) answer() { s.answers <- struct{}{} }

// readBack reads want from c.
func readBack(t *testing.T, c net.Conn, want string) {
	t.Helper()
	got := make([]byte, len(want))
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.ReadFull(c, got); err != nil || string(got) != want {
		t.Fatalf("read %q, %v; want %q", got, err, want)
	}
}
