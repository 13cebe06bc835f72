// Package rpcproxy is a proxy on loopback that fault tests put between
// the facilitator and a JSON-RPC node, to produce network faults on demand:
// the node going away (Down: the port refuses connections and every open
// connection is reset), coming back on the same address (Up), lagging
// (SetDelay), losing the reply to a request it carried out (LoseReplyTo)
// and losing a request on its way (LoseRequestTo). Those faults are real:
// the facilitator's HTTP client sees refused and reset TCP connections and
// late answers, and they cannot
// otherwise be produced on demand against an in-process chain, whose
// server cannot be stopped and started without losing its state.
//
// It also answers chosen JSON-RPC calls itself with an error object
// (FailMethod, FailCalls, FailInBatch). Those are fakes, stand-ins for
// node-side errors that the development chain cannot produce on demand;
// their doc comments say which.
//
// The proxy reads each HTTP request and its JSON-RPC body (a single call
// or a batch) whole, forwards it on its own TCP connection to the target
// and copies the answer back, one request at a time per connection.
//
// TEST ONLY. It is not a production proxy.
package rpcproxy

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// dialTimeout bounds the proxy's dial of its target.
const dialTimeout = 10 * time.Second

// Proxy is a proxy from a loopback port to a JSON-RPC node over HTTP. Its
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
	lose    armed // LoseReplyTo
	drop    armed // LoseRequestTo
	// failures are the armed JSON-RPC failures, failed the calls answered
	// with an error so far, calls the calls received, by method.
	failures []*failure
	failed   []Call
	calls    map[string]int
	// holdMethod and holdRelease are set by Hold until Release.
	holdMethod  string
	holdRelease chan struct{}

	wg sync.WaitGroup // accept loops and connections
}

// conn is a proxied connection.
type conn struct {
	client   net.Conn
	upstream net.Conn // nil until dialled
	done     chan struct{}
	once     sync.Once
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

// SetDelay makes the proxy hold every request for d before forwarding it
// to the target, from the next request on: a lagging endpoint. Every
// request, the first of a new connection as well as later ones on a
// kept-alive connection, then takes at least d longer. The target's
// responses are not delayed. 0 removes the delay. A connection reset by
// Down or Close stops waiting at once.
func (p *Proxy) SetDelay(d time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.delay = d
}

// LoseReplyTo makes the next n requests whose body contains marker (for
// example a JSON-RPC method name) reach the target as usual, and then lose
// their reply: the proxy drops the target's answer and resets the client
// connection, as when a network fails after the node has taken a request.
// The client cannot tell whether its request was carried out.
func (p *Proxy) LoseReplyTo(marker string, n int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.lose = armed{[]byte(marker), n}
}

// LoseRequestTo makes the next n requests whose body contains marker never
// reach the target: the proxy drops the request and resets the client
// connection after the client has sent it, as when a network fails on the
// way to the node. The client cannot tell this from a lost reply
// (LoseReplyTo).
func (p *Proxy) LoseRequestTo(marker string, n int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.drop = armed{[]byte(marker), n}
}

// armed is a fault for the next left requests whose body holds marker.
type armed struct {
	marker []byte
	left   int
}

// fires reports whether the fault a takes this request, counting it.
func (p *Proxy) fires(a *armed, body []byte) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if a.left <= 0 || !bytes.Contains(body, a.marker) {
		return false
	}
	a.left--
	return true
}

func (p *Proxy) getDelay() time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.delay
}

// FailMethod makes the proxy answer every call of method, on its own or
// inside a batch, with the JSON-RPC error object {code, message} instead
// of forwarding it; the other calls of a batch reach the target as usual,
// and the answer holds theirs and the errors in the batch's order. It
// lasts until ClearFailures.
//
// FAKE: it stands in for a node-internal error, such as geth's -32000
// "header not found" (a block the node does not have yet, behind a load
// balancer) or "missing trie node" (state the node has pruned), which the
// development chain cannot produce on demand. The node never sees the
// failed calls.
func (p *Proxy) FailMethod(method string, code int, message string) {
	p.FailCalls(method, "", code, message)
}

// FailCalls is FailMethod for only those calls of method whose params, as
// the client sent them (JSON), contain paramsContain; "" matches every
// call. Go-ethereum's clients write hex in lower case: to fail only a
// simulated transferWithAuthorization, for instance, pass method eth_call
// and "\"0xe3ee160e" (the quote and 0x begin the data field). FAKE, as
// FailMethod.
func (p *Proxy) FailCalls(method, paramsContain string, code int, message string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.failures = append(p.failures, &failure{method: method, params: []byte(paramsContain), code: code, message: message, index: -1})
}

// FailInBatch fails one call, once: in the next batch that holds more than
// index+1 calls of method, the call at position index among them (0 is
// the first) is answered with the JSON-RPC error object {code, message}
// and not forwarded; the others, before and after it, reach the target.
// Single calls and smaller batches are forwarded as usual until it fires.
// Failed tells whether it has, and which call it failed.
//
// FAKE: with eth_sendRawTransaction it stands in for a node's transaction
// pool refusing one transaction of a batch while it takes the ones after
// it, as geth does with "txpool is full" or "transaction underpriced"
// when its pool is full and the transaction's fee is the lowest; the
// development chain's pool cannot be made to refuse one chosen
// transaction on demand. The node never sees the failed transaction.
func (p *Proxy) FailInBatch(method string, index int, code int, message string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.failures = append(p.failures, &failure{method: method, code: code, message: message, index: index, once: true})
}

// ClearFailures removes every failure set by FailMethod, FailCalls and
// FailInBatch, those that have not fired as well. What Failed reports is
// kept.
func (p *Proxy) ClearFailures() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.failures = nil
}

// Call is a JSON-RPC call the proxy answered with an error.
type Call struct {
	// Method and Params are the call's, Params as the client sent them.
	Method string
	Params json.RawMessage
	// Code and Message are the error the proxy answered.
	Code    int
	Message string
}

// Failed returns the calls the proxy has answered with an error, oldest
// first.
func (p *Proxy) Failed() []Call {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]Call(nil), p.failed...)
}

// Calls returns the number of JSON-RPC calls of method the proxy has
// received, on their own or inside batches, since it was made; failed
// ones and ones held by Hold count as well.
func (p *Proxy) Calls(method string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.calls[method]
}

// Hold makes requests with a call of method (on its own or inside a batch)
// wait in the proxy, before anything else is done with them, until
// Release; other requests go on. A connection reset by Down or Close stops
// waiting at once. Tests use it to let work pile up behind a request, so
// that what follows it is sent together.
func (p *Proxy) Hold(method string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.holdMethod = method
	if p.holdRelease == nil {
		p.holdRelease = make(chan struct{})
	}
}

// Release lets the requests that Hold holds go on, and ends the hold.
func (p *Proxy) Release() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.holdRelease != nil {
		close(p.holdRelease)
	}
	p.holdMethod, p.holdRelease = "", nil
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
	cr, ur := bufio.NewReader(c.client), bufio.NewReader(up)
	for p.roundTrip(c, cr, up, ur) {
	}
}

// roundTrip carries one request from the client to the target and its
// answer back, with the faults in force; false ends the connection.
func (p *Proxy) roundTrip(c *conn, cr *bufio.Reader, up net.Conn, ur *bufio.Reader) bool {
	req, err := http.ReadRequest(cr)
	if err != nil {
		return false
	}
	body, err := io.ReadAll(req.Body)
	req.Body.Close()
	if err != nil {
		return false
	}
	if d := p.getDelay(); d > 0 {
		t := time.NewTimer(d)
		select {
		case <-t.C:
		case <-c.done:
			t.Stop()
			return false
		}
	}
	calls, batch := parseCalls(body)
	if !p.hold(c, calls) {
		return false
	}
	answers := p.fail(calls, batch)
	failed := 0
	for _, a := range answers {
		if a != nil {
			failed++
		}
	}
	var resp *http.Response
	if failed == 0 || failed < len(calls) {
		if failed > 0 {
			var kept []json.RawMessage
			for i, cl := range calls {
				if answers[i] == nil {
					kept = append(kept, cl.raw)
				}
			}
			body, _ = json.Marshal(kept)
			req.Header.Del("Accept-Encoding") // the answer is to be read
		}
		if p.fires(&p.drop, body) {
			return false // the caller resets the client connection
		}
		lose := p.fires(&p.lose, body)
		req.Body, req.ContentLength, req.TransferEncoding = io.NopCloser(bytes.NewReader(body)), int64(len(body)), nil
		if err := req.Write(up); err != nil {
			return false
		}
		resp, err = http.ReadResponse(ur, req)
		if err != nil || lose {
			return false
		}
		if failed > 0 {
			resp = merge(resp, calls, answers)
		}
	} else {
		resp = jsonResponse(req, combine(calls, answers, nil, batch))
	}
	err = resp.Write(c.client)
	resp.Body.Close()
	return err == nil && !req.Close && !resp.Close
}

// call is one JSON-RPC call of a request body.
type call struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	raw    json.RawMessage
}

// parseCalls reads a JSON-RPC request body: a single call or a batch. A
// body that is neither gives no calls.
func parseCalls(body []byte) (calls []*call, batch bool) {
	t := bytes.TrimSpace(body)
	if len(t) > 0 && t[0] == '[' {
		var raws []json.RawMessage
		if json.Unmarshal(t, &raws) != nil {
			return nil, false
		}
		for _, r := range raws {
			cl := &call{raw: r}
			if json.Unmarshal(r, cl) != nil {
				cl = &call{raw: r}
			}
			calls = append(calls, cl)
		}
		return calls, true
	}
	cl := &call{raw: t}
	if json.Unmarshal(t, cl) != nil {
		return nil, false
	}
	return []*call{cl}, false
}

// hold counts the calls and waits while Hold holds one of them; false
// when the connection was reset meanwhile.
func (p *Proxy) hold(c *conn, calls []*call) bool {
	p.mu.Lock()
	if p.calls == nil {
		p.calls = make(map[string]int)
	}
	var wait chan struct{}
	for _, cl := range calls {
		p.calls[cl.Method]++
		if p.holdMethod != "" && cl.Method == p.holdMethod {
			wait = p.holdRelease
		}
	}
	p.mu.Unlock()
	if wait == nil {
		return true
	}
	select {
	case <-wait:
		return true
	case <-c.done:
		return false
	}
}

// failure is a JSON-RPC error the proxy answers for matching calls.
type failure struct {
	method  string
	params  []byte // a substring of the params; empty: any
	code    int
	message string
	index   int  // FailInBatch: the position among the batch's calls of method; -1: any call
	once    bool // removed once it has fired
}

// fail returns the error answers of the calls the failures match (nil
// for a call to forward), and records them.
func (p *Proxy) fail(calls []*call, batch bool) []json.RawMessage {
	p.mu.Lock()
	defer p.mu.Unlock()
	var answers []json.RawMessage
	answer := func(i int, f *failure) {
		cl := calls[i]
		if answers == nil {
			answers = make([]json.RawMessage, len(calls))
		}
		if answers[i] != nil {
			return
		}
		answers[i], _ = json.Marshal(map[string]any{
			"jsonrpc": "2.0", "id": cl.ID,
			"error": map[string]any{"code": f.code, "message": f.message},
		})
		p.failed = append(p.failed, Call{Method: cl.Method, Params: append(json.RawMessage(nil), cl.Params...), Code: f.code, Message: f.message})
	}
	kept := p.failures[:0]
	for _, f := range p.failures {
		fired := false
		if f.index >= 0 {
			var of []int // the positions of the calls of f.method
			for i, cl := range calls {
				if cl.Method == f.method && len(cl.ID) > 0 {
					of = append(of, i)
				}
			}
			if batch && len(of) > f.index+1 {
				answer(of[f.index], f)
				fired = true
			}
		} else {
			for i, cl := range calls {
				if cl.Method == f.method && len(cl.ID) > 0 && bytes.Contains(cl.Params, f.params) {
					answer(i, f)
				}
			}
		}
		if !fired || !f.once {
			kept = append(kept, f)
		}
	}
	p.failures = kept
	return answers
}

// combine puts the answers of a request's calls in the calls' order: the
// proxy's own, then the target's by ID; target answers that match no
// call go last.
func combine(calls []*call, own, target []json.RawMessage, batch bool) []byte {
	byID := make(map[string]json.RawMessage)
	var rest []json.RawMessage
	for _, a := range target {
		var m struct {
			ID json.RawMessage `json:"id"`
		}
		if json.Unmarshal(a, &m) != nil || len(m.ID) == 0 {
			rest = append(rest, a)
			continue
		}
		byID[compact(m.ID)] = a
	}
	var out []json.RawMessage
	for i, cl := range calls {
		switch {
		case own[i] != nil:
			out = append(out, own[i])
		case len(cl.ID) > 0 && byID[compact(cl.ID)] != nil:
			out = append(out, byID[compact(cl.ID)])
			delete(byID, compact(cl.ID))
		}
	}
	for _, a := range byID {
		rest = append(rest, a)
	}
	out = append(out, rest...)
	if !batch && len(out) == 1 {
		return out[0]
	}
	b, _ := json.Marshal(out)
	return b
}

func compact(id json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, id) != nil {
		return string(id)
	}
	return b.String()
}

// merge adds the proxy's answers to the target's answer of the rest of a
// batch. An answer that is not a JSON-RPC batch answer is passed on as it
// is.
func merge(resp *http.Response, calls []*call, own []json.RawMessage) *http.Response {
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	var target []json.RawMessage
	if err != nil || resp.StatusCode != http.StatusOK || json.Unmarshal(body, &target) != nil {
		resp.Body = io.NopCloser(bytes.NewReader(body))
		resp.ContentLength, resp.TransferEncoding = int64(len(body)), nil
		return resp
	}
	out := combine(calls, own, target, true)
	resp.Body = io.NopCloser(bytes.NewReader(out))
	resp.ContentLength, resp.TransferEncoding = int64(len(out)), nil
	resp.Header.Del("Content-Length")
	resp.Header.Del("Content-Encoding")
	return resp
}

// jsonResponse is the proxy's own 200 answer with a JSON body.
func jsonResponse(req *http.Request, body []byte) *http.Response {
	return &http.Response{
		StatusCode: http.StatusOK, ProtoMajor: 1, ProtoMinor: 1, Request: req,
		Header:        http.Header{"Content-Type": {"application/json"}},
		ContentLength: int64(len(body)), Body: io.NopCloser(bytes.NewReader(body)),
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
