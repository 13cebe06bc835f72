package app

import (
	"bufio"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
)

// Port sharing: Caddy's listeners set SO_REUSEPORT, so a second Caddy
// started on a port another process already serves starts without a
// word, and the two take turns answering (two configurations, two prices).
// At start, the x402 app refuses to run when another process listens on
// an address of this config's HTTP servers, naming it, unless share_ports
// says the deployment means it. A reload in the same process re-binds its
// own listeners (Caddy's listener pool): sockets of this process never
// count. The check reads /proc (Linux); elsewhere it is skipped.

// tcpListener is a listening TCP socket of /proc/net/tcp or tcp6.
type tcpListener struct {
	ip    net.IP
	port  uint
	inode string
}

// checkPortsFree returns an error naming the first address of the http
// app's servers that another process listens on.
func checkPortsFree(ctx caddy.Context) error {
	appIface, err := ctx.AppIfConfigured("http")
	if err != nil {
		return nil // no HTTP servers
	}
	httpApp, _ := appIface.(*caddyhttp.App)
	if httpApp == nil {
		return nil
	}
	listening, err := procListeners()
	if err != nil || len(listening) == 0 {
		return nil // no /proc to read: nothing to tell
	}
	own := ownSockets()
	for _, srv := range httpApp.Servers {
		for _, l := range srv.Listen {
			na, err := caddy.ParseNetworkAddress(l)
			if err != nil || na.IsUnixNetwork() {
				continue
			}
			ip := net.ParseIP(na.Host) // nil for any address (or a name)
			for _, s := range listening {
				if own[s.inode] || s.inode == "0" || s.port < na.StartPort || s.port > na.EndPort || !overlaps(ip, s.ip) {
					continue
				}
				return fmt.Errorf("%s: address already in use by %s, which listens on it: two servers on one port take turns answering (Caddy's listeners share ports), "+
					"so this one does not start; stop the other, choose another port, or set share_ports in the x402 global option if they are meant to share it",
					net.JoinHostPort(s.ip.String(), strconv.FormatUint(uint64(s.port), 10)), socketOwner(s.inode))
			}
		}
	}
	return nil
}

// overlaps reports whether a listener on ours (nil: any address) and one
// on theirs take the same connections.
func overlaps(ours, theirs net.IP) bool {
	return ours == nil || ours.IsUnspecified() || theirs.IsUnspecified() || ours.Equal(theirs)
}

// procListeners reads the listening TCP sockets of /proc/net/tcp and tcp6.
func procListeners() ([]tcpListener, error) {
	var out []tcpListener
	read := 0
	for _, name := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		f, err := os.Open(name)
		if err != nil {
			continue
		}
		read++
		sc := bufio.NewScanner(f)
		sc.Scan() // the header line
		for sc.Scan() {
			// sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode ...
			fields := strings.Fields(sc.Text())
			if len(fields) < 10 || fields[3] != "0A" { // 0A: LISTEN
				continue
			}
			ip, port, ok := procAddr(fields[1])
			if ok {
				out = append(out, tcpListener{ip: ip, port: port, inode: fields[9]})
			}
		}
		f.Close()
	}
	if read == 0 {
		return nil, errors.New("no /proc/net/tcp")
	}
	return out, nil
}

// procAddr parses a /proc/net/tcp address: the IP in hex, as 32-bit
// words in host (little-endian) order, a colon and the port in hex.
func procAddr(s string) (net.IP, uint, bool) {
	h, p, ok := strings.Cut(s, ":")
	if !ok {
		return nil, 0, false
	}
	port, err := strconv.ParseUint(p, 16, 16)
	if err != nil {
		return nil, 0, false
	}
	raw, err := hex.DecodeString(h)
	if err != nil || (len(raw) != 4 && len(raw) != 16) {
		return nil, 0, false
	}
	for i := 0; i < len(raw); i += 4 {
		raw[i], raw[i+1], raw[i+2], raw[i+3] = raw[i+3], raw[i+2], raw[i+1], raw[i]
	}
	return net.IP(raw), uint(port), true
}

// ownSockets are the socket inodes of this process's open files.
func ownSockets() map[string]bool {
	out := map[string]bool{}
	for _, inode := range socketInodes("/proc/self/fd") {
		out[inode] = true
	}
	return out
}

// socketInodes are the inodes of the sockets among the files of an fd
// directory.
func socketInodes(dir string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		link, err := os.Readlink(filepath.Join(dir, e.Name()))
		if err == nil && strings.HasPrefix(link, "socket:[") {
			out = append(out, strings.TrimSuffix(strings.TrimPrefix(link, "socket:["), "]"))
		}
	}
	return out
}

// socketOwner names the process holding a socket ("process 1234
// (caddy)"), or "another process" when /proc does not tell (another
// user's process).
func socketOwner(inode string) string {
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	self := strconv.Itoa(os.Getpid())
	for _, d := range dirs {
		pid := filepath.Base(d)
		if pid == self {
			continue
		}
		for _, in := range socketInodes(filepath.Join(d, "fd")) {
			if in == inode {
				name := "process " + pid
				if comm, err := os.ReadFile(filepath.Join(d, "comm")); err == nil {
					name += " (" + strings.TrimSpace(string(comm)) + ")"
				}
				return name
			}
		}
	}
	return "another process"
}
