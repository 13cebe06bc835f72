package testutil

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
)

// A config load answers before the previous configuration's servers have
// stopped: Caddy waits only until their shutdown has begun. Its listeners
// use SO_REUSEPORT, so for a moment the old server's listening socket and
// the new one are both open on the port and the kernel hands new
// connections to either. A connection that reaches the old socket is then
// dropped unanswered: reset when the socket closes with it still queued
// ("connection reset by peer"), or, once accepted, closed by net/http,
// which reads the request, sees the server shutting down and hangs up
// ("EOF"). A client does not retry a fresh connection, so a test's request
// right after a load failed so (issue 37). Every load through this package
// therefore waits until the old configuration's listening sockets are
// closed, in the kernel, before the test goes on.

// listener is an address as caddy.ListenerUsage takes it.
type listener struct{ network, addr string }

// listeners counts, per address, the running configuration's HTTP servers
// listening there (none before the first load).
func listeners() map[listener]int {
	out := map[listener]int{}
	app, err := caddy.ActiveContext().AppIfConfigured("http")
	if err != nil {
		return out
	}
	httpApp, ok := app.(*caddyhttp.App)
	if !ok {
		return out
	}
	for _, srv := range httpApp.Servers {
		for _, l := range srv.Listen {
			na, err := caddy.ParseNetworkAddress(l)
			if err != nil {
				continue
			}
			for _, a := range na.Expand() {
				out[listener{a.Network, a.JoinHostPort(0)}]++
			}
		}
	}
	return out
}

// awaitOldListeners waits until every listening socket of the
// configuration that ran before a load (before, from listeners) is closed,
// but for those the running configuration holds itself: until Caddy counts
// no more users of the address than the running configuration's servers,
// and the kernel lists no more listening TCP sockets on its port (the
// socket closes after Caddy stops counting it, once its accept loop has
// returned).
func awaitOldListeners(t testing.TB, before map[listener]int) {
	t.Helper()
	now := listeners()
	deadline := time.Now().Add(30 * time.Second)
	for l := range before {
		for !closed(l, now) {
			if time.Now().After(deadline) {
				t.Fatalf("the previous configuration still listens on %s %s 30 s after a config load: its server does not stop", l.network, l.addr)
			}
			time.Sleep(2 * time.Millisecond)
		}
	}
}

// closed tells whether the address l has no listeners beyond those of the
// running configuration (now).
func closed(l listener, now map[listener]int) bool {
	if caddy.ListenerUsage(l.network, l.addr) > now[l] {
		return false
	}
	if !strings.HasPrefix(l.network, "tcp") {
		return true
	}
	_, p, err := net.SplitHostPort(l.addr)
	if err != nil {
		return true
	}
	port, err := strconv.Atoi(p)
	if err != nil {
		return true
	}
	held := 0 // the running configuration's listeners on this port
	for o, n := range now {
		if _, op, err := net.SplitHostPort(o.addr); err == nil && op == p && strings.HasPrefix(o.network, "tcp") {
			held += n
		}
	}
	n, ok := kernelListeners(port)
	return !ok || n <= held
}

// kernelListeners counts the listening TCP sockets on port in this network
// namespace (/proc/net/tcp and tcp6); ok is false where /proc cannot tell.
func kernelListeners(port int) (n int, ok bool) {
	suffix := fmt.Sprintf(":%04X", port)
	for _, name := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		f, err := os.Open(name)
		if err != nil {
			continue
		}
		ok = true
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			// sl local_address rem_address st ...; st 0A is LISTEN
			fields := strings.Fields(sc.Text())
			if len(fields) > 3 && fields[3] == "0A" && strings.HasSuffix(fields[1], suffix) {
				n++
			}
		}
		f.Close()
	}
	return n, ok
}
