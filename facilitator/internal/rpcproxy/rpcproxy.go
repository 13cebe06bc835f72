// Package rpcproxy is a TCP proxy on loopback that fault tests put between
// the facilitator and a JSON-RPC node, to produce real network faults on
// demand: the node going away (Down: the port refuses connections and every
// open connection is reset), coming back on the same address (Up), and
// lagging (SetDelay). Those faults cannot otherwise be produced on demand
// against an in-process chain, whose server cannot be stopped and started
// without losing its state.
//
// TEST ONLY. It forwards bytes and does not look into them; it is not a
// production proxy.
package rpcproxy

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// dialTimeout bounds the proxy's dial of its target.
const dialTimeout = 10 * time.Second

// Proxy is a TCP proxy from a loopback port to a target address. Its
// methods are safe for concurrent use.
type Proxy struct {
	target string // host:port
	addr   string // 127.0.0.1:PORT

	mu      sync.Mutex // guards the fields below
	ln      net.Listener
	reserve *reservation // holds the port while no listener does
	conns   map[*conn]struct{}
	delay   time.Duration
	closed  bool
	// loseMarker and loseLeft arm LoseReplyTo.
	loseMarker []byte
	loseLeft   int

	wg sync.WaitGroup // accept loops and connections
}

// conn is a proxied connection.
type conn struct {
	client   net.Conn
	upstream net.Conn // nil until dialled
	done     chan struct{}
	once     sync.Once
	lose     atomic.Bool // the reply to the request just forwarded is to be lost
}

// close resets the client connection (RST rather than FIN, as when a node
// goes away) and closes the upstream one. It is idempotent.
func (c *conn) close(mu *sync.Mutex) {
	c.once.Do(func() {
		close(c.done)
		if tc, ok := c.client.(*net.TCPConn); ok {
			tc.SetLinger(0)
		}
		c.client.Close()
		mu.Lock()
		up := c.upstream
		mu.Unlock()
		if up != nil {
			up.Close()
		}
	})
}

// New starts a proxy to target, which is host:port (such as
// "127.0.0.1:8545") or an http URL with no path (such as
// "http://127.0.0.1:8545"). It listens on a free port of 127.0.0.1 and
// keeps that port until Close. Close it when done.
func New(target string) (*Proxy, error) {
	t, err := parseTarget(target)
	if err != nil {
		return nil, err
	}
	// The port is picked by binding the reservation, which then holds it
	// for the proxy's life: on Linux a socket can listen on a port another
	// socket is bound to (both with SO_REUSEADDR) but does not listen on,
	// so the port is never free between Down and Up. Where that is not
	// so, Up gives the reservation up and Down takes it again.
	res, port, err := reserve(0)
	if err != nil {
		return nil, fmt.Errorf("rpcproxy: reserve a port: %w", err)
	}
	p := &Proxy{
		target:  t,
		addr:    net.JoinHostPort("127.0.0.1", strconv.Itoa(port)),
		reserve: res,
		conns:   make(map[*conn]struct{}),
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if err := p.listenLocked(); err != nil {
		p.reserve.close()
		return nil, err
	}
	return p, nil
}

func parseTarget(target string) (string, error) {
	bad := fmt.Errorf("rpcproxy: target %q is neither host:port nor an http://host:port URL", target)
	hostPort := target
	if strings.Contains(target, "://") {
		u, err := url.Parse(target)
		if err != nil || u.Scheme != "http" || u.Host == "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.User != nil {
			return "", bad
		}
		hostPort = u.Host
		if u.Port() == "" {
			hostPort = net.JoinHostPort(u.Hostname(), "80")
		}
	}
	host, port, err := net.SplitHostPort(hostPort)
	if err != nil || host == "" {
		return "", bad
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		return "", bad
	}
	return hostPort, nil
}

// URL returns the proxy's address as an http URL, http://127.0.0.1:PORT.
// It is the same for the proxy's whole life.
func (p *Proxy) URL() string { return "http://" + p.addr }

// Addr returns the proxy's address, 127.0.0.1:PORT.
func (p *Proxy) Addr() string { return p.addr }

// SetDelay makes the proxy hold every chunk of bytes a client sends for d
// before forwarding it to the target, from the next chunk on: a lagging
// endpoint. Every request, the first of a new connection as well as later
// ones on a kept-alive connection, then takes at least d longer (a request
// its client writes in several pieces, d for each). The target's responses
// are not delayed. 0 removes the delay. A connection reset by Down or Close
// stops waiting at once.
func (p *Proxy) SetDelay(d time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.delay = d
}

// LoseReplyTo makes the next n requests whose bytes contain marker (for
// example a JSON-RPC method name) reach the target as usual, and then lose
// their reply: the proxy drops the target's answer and resets the client
// connection, as when a network fails after the node has taken a request.
// The client cannot tell whether its request was carried out. It matches
// within one chunk of bytes, which holds a small request whole.
func (p *Proxy) LoseReplyTo(marker string, n int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.loseMarker, p.loseLeft = []byte(marker), n
}

// armLoss reports whether the chunk's reply is to be lost, counting it.
func (p *Proxy) armLoss(chunk []byte) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.loseLeft <= 0 || !bytes.Contains(chunk, p.loseMarker) {
		return false
	}
	p.loseLeft--
	return true
}

func (p *Proxy) getDelay() time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.delay
}

// Down takes the endpoint away, as when a node goes down: it stops
// listening, so that new connections are refused (ECONNREFUSED), and resets
// every open connection, so that requests in flight fail. The port stays
// reserved for Up: a socket bound to it keeps the kernel from handing it
// out as a free port (to a listener on port 0 or an outgoing connection);
// a program that asks for this very port with SO_REUSEADDR, as Go's
// net.Listen does, can still take it on Linux. Down on a proxy that is down
// does nothing.
func (p *Proxy) Down() {
	p.mu.Lock()
	ln := p.ln
	p.ln = nil
	conns := make([]*conn, 0, len(p.conns))
	for c := range p.conns {
		conns = append(conns, c)
	}
	if ln != nil {
		ln.Close()
		if p.reserve == nil && !p.closed {
			p.reserve, _, _ = reserve(p.port())
		}
	}
	p.mu.Unlock()
	for _, c := range conns {
		c.close(&p.mu)
	}
}

// Up brings the endpoint back on the same address after Down. Up on a
// proxy that is up does nothing; after Close it is an error.
func (p *Proxy) Up() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return errors.New("rpcproxy: closed")
	}
	if p.ln != nil {
		return nil
	}
	return p.listenLocked()
}

// Close stops the proxy for good, resets every open connection, frees the
// port and waits for the proxy's goroutines. It is idempotent.
func (p *Proxy) Close() error {
	p.Down()
	p.mu.Lock()
	p.closed = true
	if p.reserve != nil {
		p.reserve.close()
		p.reserve = nil
	}
	p.mu.Unlock()
	p.wg.Wait()
	return nil
}

// listenLocked listens on the proxy's address and starts accepting.
func (p *Proxy) listenLocked() error {
	ln, err := net.Listen("tcp", p.addr)
	if err != nil && errors.Is(err, syscall.EADDRINUSE) && p.reserve != nil {
		// Where the reservation cannot share the port with a listener,
		// give it up first.
		p.reserve.close()
		p.reserve = nil
		ln, err = net.Listen("tcp", p.addr)
	}
	if err != nil {
		return fmt.Errorf("rpcproxy: listen on %s: %w", p.addr, err)
	}
	p.ln = ln
	p.wg.Add(1)
	go p.accept(ln)
	return nil
}

func (p *Proxy) accept(ln net.Listener) {
	defer p.wg.Done()
	for {
		c, err := ln.Accept()
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			return // closed by Down or Close
		}
		pc := &conn{client: c, done: make(chan struct{})}
		p.mu.Lock()
		if p.ln != ln { // Down came in between
			p.mu.Unlock()
			pc.close(&p.mu)
			continue
		}
		p.conns[pc] = struct{}{}
		p.wg.Add(1)
		p.mu.Unlock()
		go p.serve(pc)
	}
}

func (p *Proxy) serve(c *conn) {
	defer p.wg.Done()
	defer func() {
		c.close(&p.mu)
		p.mu.Lock()
		delete(p.conns, c)
		p.mu.Unlock()
	}()
	up, err := net.DialTimeout("tcp", p.target, dialTimeout)
	if err != nil {
		return // the client sees its connection reset
	}
	p.mu.Lock()
	c.upstream = up
	p.mu.Unlock()
	select {
	case <-c.done: // reset while dialling
		up.Close()
		return
	default:
	}
	errc := make(chan struct{}, 2)
	go func() {
		p.forward(c, up)
		errc <- struct{}{}
	}()
	go func() {
		p.backward(c, up)
		errc <- struct{}{}
	}()
	<-errc // either way ends the connection
	c.close(&p.mu)
	<-errc
}

// forward copies from the client to the target, holding each chunk for the
// delay in force when it arrives.
func (p *Proxy) forward(c *conn, up net.Conn) {
	buf := make([]byte, 32<<10)
	for {
		n, err := c.client.Read(buf)
		if n > 0 {
			if d := p.getDelay(); d > 0 {
				t := time.NewTimer(d)
				select {
				case <-t.C:
				case <-c.done:
					t.Stop()
					return
				}
			}
			if p.armLoss(buf[:n]) {
				c.lose.Store(true)
			}
			if _, werr := up.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// backward copies the target's replies to the client, except a reply that
// LoseReplyTo marked: that one is dropped and the connection reset.
func (p *Proxy) backward(c *conn, up net.Conn) {
	buf := make([]byte, 32<<10)
	for {
		n, err := up.Read(buf)
		if n > 0 {
			if c.lose.Load() {
				return // the caller resets the client connection
			}
			if _, werr := c.client.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// reservation is a TCP socket bound to the proxy's port that does not
// listen: it keeps the port from being handed to anyone else while
// connections to it are refused.
type reservation struct {
	close func()
}

func (p *Proxy) port() int {
	_, port, _ := net.SplitHostPort(p.addr)
	n, _ := strconv.Atoi(port)
	return n
}

// reserve binds a socket, with SO_REUSEADDR, to 127.0.0.1:port (0 picks a
// free port) without listening on it, and returns the port.
func reserve(port int) (*reservation, int, error) {
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, syscall.IPPROTO_TCP)
	if err != nil {
		return nil, 0, err
	}
	fail := func(err error) (*reservation, int, error) {
		syscall.Close(fd)
		return nil, 0, err
	}
	if err := syscall.SetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_REUSEADDR, 1); err != nil {
		return fail(err)
	}
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Port: port, Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		return fail(err)
	}
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		return fail(err)
	}
	sa4, ok := sa.(*syscall.SockaddrInet4)
	if !ok || sa4.Port == 0 {
		return fail(errors.New("no port bound"))
	}
	return &reservation{close: func() { syscall.Close(fd) }}, sa4.Port, nil
}
