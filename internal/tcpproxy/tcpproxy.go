// Package tcpproxy is a TCP proxy on loopback that fault tests put between
// a client and a server (PostgreSQL, a node) to make the network slow or
// broken on demand: every byte is held for a settable delay in each
// direction (SetDelay: a round trip costs both delays more, as a distant
// or congested link does), and every open connection can be cut at once
// (Cut). The delay is latency, not bandwidth: bytes read at one moment go
// out together, that long later, in order.
//
// TEST ONLY. It is not a production proxy.
package tcpproxy

import (
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// dialTimeout bounds the proxy's dial of its target.
const dialTimeout = 10 * time.Second

// Proxy forwards the connections to its loopback address to a target.
// Its methods are safe for concurrent use.
type Proxy struct {
	target string
	ln     net.Listener
	// toTarget and toClient are the delays, in nanoseconds, of the bytes
	// going to the target and coming back.
	toTarget, toClient atomic.Int64

	mu     sync.Mutex
	conns  map[net.Conn]struct{}
	closed bool
	wg     sync.WaitGroup
	count  atomic.Int64 // connections accepted
	turns  atomic.Int64 // client bursts after the target spoke (Exchanges)
}

// Start listens on a free port of 127.0.0.1 and forwards every connection
// to target (host:port), with no delay until SetDelay.
func Start(target string) (*Proxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &Proxy{target: target, ln: ln, conns: map[net.Conn]struct{}{}}
	p.wg.Add(1)
	go p.accept()
	return p, nil
}

// Addr is the proxy's address (127.0.0.1:PORT).
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// Port is the proxy's port.
func (p *Proxy) Port() int { return p.ln.Addr().(*net.TCPAddr).Port }

// SetDelay holds the bytes going to the target for toTarget and those
// coming back for toClient, from now on (bytes already held keep their
// time). Zero forwards at once.
func (p *Proxy) SetDelay(toTarget, toClient time.Duration) {
	p.toTarget.Store(int64(toTarget))
	p.toClient.Store(int64(toClient))
}

// Delay is the current delays, to the target and back.
func (p *Proxy) Delay() (toTarget, toClient time.Duration) {
	return time.Duration(p.toTarget.Load()), time.Duration(p.toClient.Load())
}

// Connections is how many connections the proxy has accepted so far.
func (p *Proxy) Connections() int64 { return p.count.Load() }

// Exchanges is how many times, over every connection so far, the client
// sent bytes first or after it was given bytes of the target: for a
// protocol of requests and answers (PostgreSQL's, HTTP/1.1's), its round
// trips. Bytes the client sends in several writes before it hears back
// count once.
func (p *Proxy) Exchanges() int64 { return p.turns.Load() }

// Cut closes every open connection, both sides (the client sees its
// connection reset or ended); new connections are accepted as before.
func (p *Proxy) Cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for c := range p.conns {
		c.Close()
	}
}

// Close stops listening, closes every connection and waits for the
// proxy's goroutines to end.
func (p *Proxy) Close() error {
	p.mu.Lock()
	p.closed = true
	p.mu.Unlock()
	err := p.ln.Close()
	p.Cut()
	p.wg.Wait()
	return err
}

func (p *Proxy) accept() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.count.Add(1)
		p.wg.Add(1)
		go p.serve(c)
	}
}

// track adds c to the open connections; false when the proxy is closed.
func (p *Proxy) track(c net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return false
	}
	p.conns[c] = struct{}{}
	return true
}

func (p *Proxy) untrack(c net.Conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.conns, c)
	c.Close()
}

// serve forwards one connection.
func (p *Proxy) serve(client net.Conn) {
	defer p.wg.Done()
	defer p.untrack(client)
	if !p.track(client) {
		return
	}
	server, err := net.DialTimeout("tcp", p.target, dialTimeout)
	if err != nil {
		return
	}
	defer p.untrack(server)
	if !p.track(server) {
		return
	}
	done := make(chan struct{}, 2)
	// last is what the connection did last: 0 nothing, 1 read bytes of
	// the client, 2 gave the client bytes of the target; bytes of the
	// client read after 0 or 2 begin an exchange. down runs before the
	// bytes go to the client, not after: a client answers as soon as it
	// reads them, and its next bytes must find the connection at 2.
	var last atomic.Int32
	up := func() {
		if last.Swap(1) != 1 {
			p.turns.Add(1)
		}
	}
	down := func() { last.Store(2) }
	go func() { pipe(server, client, &p.toTarget, up, func() {}); done <- struct{}{} }()
	go func() { pipe(client, server, &p.toClient, func() {}, down); done <- struct{}{} }()
	<-done
	// One direction ended (its side closed, or failed): the connection
	// ends, as PostgreSQL's and HTTP's do, both sides at once.
	client.Close()
	server.Close()
	<-done
}

// chunk is bytes read at one moment, due out at a later one.
type chunk struct {
	b   []byte
	due time.Time
}

// pipe copies src to dst, each read held for the delay at the time it was
// read; read is called when bytes are read, writing just before they are
// written (so that whatever dst does on receiving them comes after it).
// It returns when src ends or either side fails.
func pipe(dst, src net.Conn, delay *atomic.Int64, read, writing func()) {
	q := make(chan chunk, 256)
	failed := make(chan struct{})
	go func() {
		defer close(q)
		for {
			buf := make([]byte, 32<<10)
			n, err := src.Read(buf)
			if n > 0 {
				read()
				select {
				case q <- chunk{buf[:n], time.Now().Add(time.Duration(delay.Load()))}:
				case <-failed:
					return
				}
			}
			if err != nil {
				return
			}
		}
	}()
	for c := range q {
		if d := time.Until(c.due); d > 0 {
			time.Sleep(d)
		}
		writing()
		if _, err := dst.Write(c.b); err != nil {
			close(failed)
			src.Close()
			for range q {
			}
			return
		}
	}
}
