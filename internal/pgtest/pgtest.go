// Package pgtest starts a throwaway PostgreSQL server for tests: initdb in a
// temporary directory, then postgres on a free 127.0.0.1 port with durability
// settings that make it fast (fsync=off), stopped and removed when the test
// ends. It needs PostgreSQL's server binaries (initdb, postgres); without them
// tests skip, or fail when CI=true. Running as root, the server runs as the
// "postgres" OS user, since initdb and postgres refuse to run as root.
//
// The binaries are looked for in $PGTEST_BIN, then `pg_config --bindir`, then
// the newest /usr/lib/postgresql/*/bin (Debian's layout), then $PATH.
//
// Linux only: it uses the parent-death signal and /proc.
package pgtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// Server is a running PostgreSQL server in a temporary directory.
type Server struct {
	bin  string              // directory holding initdb and postgres
	dir  string              // temporary directory: data/, sock/, postgres.log
	port int                 // TCP port on 127.0.0.1, kept across restarts
	cred *syscall.Credential // the postgres OS user when running as root

	dbs atomic.Int64 // databases created by DSN, for unique names

	mu sync.Mutex
	p  *proc // the running postmaster; nil when stopped
}

// proc is one run of the postmaster.
type proc struct {
	cmd  *exec.Cmd
	done chan struct{} // closed when cmd has exited
}

// errUnavailable marks a machine without usable PostgreSQL binaries: Start
// and Shared skip the test then (fail under CI=true).
var errUnavailable = errors.New("PostgreSQL server binaries not available")

// Start starts a server for the test and stops it (and removes its directory) in t.Cleanup.
// Without PostgreSQL binaries it calls t.Skip with a clear message naming what to install
// (apt-get install postgresql), except when the environment has CI=true: then t.Fatal.
func Start(t testing.TB) *Server {
	t.Helper()
	s, err := newServer()
	if err != nil {
		fail(t, err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("pgtest: server log:%s", s.logTail())
		}
		if err := s.close(); err != nil {
			t.Error(err)
		}
	})
	return s
}

var shared struct {
	sync.Mutex
	s   *Server
	err error
}

// Shared returns one server for the whole test binary, started on first use
// and shared by all tests (and parallel tests) that call it; give each test
// its own database with DSN and don't Stop, Restart or Kill it. It registers
// nothing with t.Cleanup: call Main from TestMain to stop it and remove its
// directory when the tests are done. (Without Main the server still shuts
// down when the test binary exits, but its directory stays behind.)
// A failure to start is remembered, and skips or fails every caller like Start.
func Shared(t testing.TB) *Server {
	t.Helper()
	shared.Lock()
	if shared.s == nil && shared.err == nil {
		shared.s, shared.err = newServer()
	}
	s, err := shared.s, shared.err
	shared.Unlock()
	if err != nil {
		fail(t, err)
	}
	return s
}

// Main runs the tests and then stops the Shared server, if one was started,
// and exits with the tests' exit code. Use it as a package's TestMain:
//
//	func TestMain(m *testing.M) { pgtest.Main(m) }
func Main(m *testing.M) {
	code := m.Run()
	shared.Lock()
	if s := shared.s; s != nil {
		if err := s.close(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			code = max(code, 1)
		}
	}
	shared.Unlock()
	os.Exit(code)
}

// fail ends the test for a server that could not start: a skip when the
// binaries are missing (unless CI=true), a failure otherwise.
func fail(t testing.TB, err error) {
	t.Helper()
	if !errors.Is(err, errUnavailable) {
		t.Fatal(err)
	}
	msg := fmt.Sprintf("pgtest: %v: install them (Debian: apt-get install postgresql) or set PGTEST_BIN to the directory holding initdb and postgres", err)
	if ci, _ := strconv.ParseBool(os.Getenv("CI")); ci {
		t.Fatal(msg + " (not skipping: CI=true)")
	}
	t.Skip(msg)
}

// newServer runs initdb in a new temporary directory and starts postgres.
func newServer() (*Server, error) {
	bin, err := findBin()
	if err != nil {
		return nil, err
	}
	s := &Server{bin: bin}
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			return nil, fmt.Errorf("%w: running as root needs the postgres OS user to run them as: %v", errUnavailable, err)
		}
		uid, _ := strconv.ParseUint(u.Uid, 10, 32)
		gid, _ := strconv.ParseUint(u.Gid, 10, 32)
		s.cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
	}
	if s.dir, err = os.MkdirTemp("", "pgtest-"); err != nil {
		return nil, err
	}
	ok := false
	defer func() {
		if !ok {
			os.RemoveAll(s.dir)
		}
	}()
	// 0711: the postgres user must reach data/ and sock/ but needs no more.
	if err := os.Chmod(s.dir, 0o711); err != nil {
		return nil, err
	}
	for _, d := range []string{s.path("data"), s.path("sock")} {
		if err := os.Mkdir(d, 0o700); err != nil {
			return nil, err
		}
		if s.cred != nil {
			if err := os.Chown(d, int(s.cred.Uid), int(s.cred.Gid)); err != nil {
				return nil, err
			}
		}
	}
	initdb := s.command("initdb", "-D", s.path("data"), "-U", "postgres", "-A", "trust",
		"-E", "UTF8", "--locale=C", "--no-sync")
	if out, err := initdb.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("pgtest: initdb: %v\n%s", err, out)
	}
	// The free port can be taken before postgres binds it: try a few.
	for range 3 {
		if s.port, err = FreePort(); err != nil {
			return nil, err
		}
		if err = s.start(); err == nil || !strings.Contains(err.Error(), "already in use") {
			break
		}
	}
	if err != nil {
		return nil, err
	}
	ok = true
	return s, nil
}

// DSN is a libpq URL for a fresh database created for this call (CREATE DATABASE with a unique name),
// e.g. postgres://postgres@127.0.0.1:PORT/NAME?sslmode=disable. Each call gives a new empty database.
// The database is dropped in t.Cleanup if the server is still running then.
func (s *Server) DSN(t testing.TB) string {
	t.Helper()
	name := fmt.Sprintf("pgtest_%d", s.dbs.Add(1))
	if err := s.exec("CREATE DATABASE " + name); err != nil {
		t.Fatalf("pgtest: create database %s: %v%s", name, err, s.logTail())
	}
	t.Cleanup(func() { s.exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)") })
	return s.url(name)
}

// Port is the server's TCP port on 127.0.0.1; it stays the same across Restart.
func (s *Server) Port() int { return s.port }

// Stop stops the server (fast shutdown); the data stays, so Restart can bring it back. Idempotent.
func (s *Server) Stop(t testing.TB) {
	t.Helper()
	if err := s.halt(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
}

// Kill stops the server immediately, simulating a crash: SIGKILL to the
// postmaster and all its backends, with no shutdown checkpoint. Restart then
// runs crash recovery; committed transactions survive, since only fsync is
// off and the operating system keeps what was written. Idempotent.
func (s *Server) Kill(t testing.TB) {
	t.Helper()
	if err := s.halt(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
}

// Restart starts a stopped server again on the same port and data; a running
// one is stopped first (fast shutdown).
func (s *Server) Restart(t testing.TB) {
	t.Helper()
	if err := s.halt(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if err := s.start(); err != nil {
		t.Fatal(err)
	}
}

// start starts the postmaster and waits until it accepts connections.
func (s *Server) start() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.p != nil {
		return errors.New("pgtest: server already running")
	}
	log, err := os.OpenFile(s.path("postgres.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer log.Close() // postgres has its own copy
	cmd := s.command("postgres", "-D", s.path("data"), "-p", strconv.Itoa(s.port), "-k", s.path("sock"),
		"-c", "listen_addresses=127.0.0.1", "-c", "max_connections=200",
		// Fast but still crash-safe against a killed server (not a killed
		// machine): no fsync, but commits reach the OS before they return.
		"-c", "fsync=off", "-c", "full_page_writes=off", "-c", "synchronous_commit=on",
		// Statement counts for benchmarks (CREATE EXTENSION pg_stat_statements
		// in a database to read them).
		"-c", "shared_preload_libraries=pg_stat_statements")
	cmd.Stdout, cmd.Stderr = log, log
	// Its own process group, away from the terminal's Ctrl-C: the test
	// binary stops it, or the parent-death signal does, with SIGINT (fast
	// shutdown), if the test binary dies without cleaning up.
	cmd.SysProcAttr.Setpgid = true
	cmd.SysProcAttr.Pdeathsig = syscall.SIGINT
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("pgtest: start postgres: %v", err)
	}
	p := &proc{cmd: cmd, done: make(chan struct{})}
	go func() { cmd.Wait(); close(p.done) }()
	s.p = p

	deadline := time.Now().Add(30 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		conn, err := pgx.Connect(ctx, s.url("postgres"))
		if err == nil {
			conn.Close(ctx)
			cancel()
			return nil
		}
		cancel()
		select {
		case <-p.done:
			s.p = nil
			return fmt.Errorf("pgtest: postgres exited while starting (%v)%s", cmd.ProcessState, s.logTail())
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			kill(cmd.Process.Pid)
			<-p.done
			s.p = nil
			return fmt.Errorf("pgtest: postgres not accepting connections after 30s: %v%s", err, s.logTail())
		}
	}
}

// halt stops the server, with SIGINT (fast shutdown) or by killing it, and
// waits for it. A stopped server is left alone.
func (s *Server) halt(sig syscall.Signal) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.p
	if p == nil {
		return nil
	}
	s.p = nil
	pid := p.cmd.Process.Pid
	if sig == syscall.SIGKILL {
		kill(pid)
		<-p.done
		return nil
	}
	syscall.Kill(pid, sig)
	select {
	case <-p.done:
		return nil
	case <-time.After(time.Minute):
		kill(pid)
		<-p.done
		return fmt.Errorf("pgtest: postgres did not stop within a minute of %v; killed it%s", sig, s.logTail())
	}
}

// kill kills the postmaster and its children at once, as a crash would, and
// waits for the children: one outliving the postmaster still holds its shared
// memory, and a restart refuses to start then. The children are found in
// /proc (Linux), since postgres puts each in a process group of its own.
func kill(postmaster int) {
	syscall.Kill(postmaster, syscall.SIGSTOP) // no new children meanwhile
	children := childrenOf(postmaster)
	syscall.Kill(postmaster, syscall.SIGKILL)
	for _, pid := range children {
		syscall.Kill(pid, syscall.SIGKILL)
	}
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		if !slices.ContainsFunc(children, func(pid int) bool {
			state, _, ok := stat(strconv.Itoa(pid))
			return ok && state != "Z" // a zombie holds no memory, and may never be reaped
		}) {
			return
		}
	}
}

// childrenOf are the live children of process pid, from /proc (Linux).
func childrenOf(pid int) []int {
	var children []int
	dir, _ := os.ReadDir("/proc")
	for _, e := range dir {
		if _, ppid, ok := stat(e.Name()); ok && ppid == strconv.Itoa(pid) {
			child, _ := strconv.Atoi(e.Name())
			children = append(children, child)
		}
	}
	return children
}

// stat is a live process's state and parent, from /proc/PID/stat.
func stat(pid string) (state, ppid string, ok bool) {
	b, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return "", "", false
	}
	// "pid (comm) state ppid ...", where comm may hold anything.
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	if len(f) < 2 {
		return "", "", false
	}
	return f[0], f[1], true
}

// close stops the server and removes its directory.
func (s *Server) close() error {
	err := s.halt(syscall.SIGINT)
	return errors.Join(err, os.RemoveAll(s.dir))
}

// exec runs one statement on the postgres database.
func (s *Server) exec(sql string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, s.url("postgres"))
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, sql)
	return err
}

func (s *Server) url(db string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", s.port, db)
}

func (s *Server) path(name string) string { return filepath.Join(s.dir, name) }

// command is a command for one of the PostgreSQL binaries, run as the
// postgres user when we are root.
func (s *Server) command(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(filepath.Join(s.bin, name), args...)
	cmd.Dir = s.dir // a working directory the postgres user can reach
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: s.cred}
	return cmd
}

// logTail is the end of the server's log, for error messages.
func (s *Server) logTail() string {
	b, _ := os.ReadFile(s.path("postgres.log"))
	if len(b) > 4000 {
		b = b[len(b)-4000:]
	}
	if len(b) == 0 {
		return ""
	}
	return "\n--- postgres log (tail) ---\n" + string(b)
}

// findBin finds the directory holding initdb and postgres.
func findBin() (string, error) {
	if d := os.Getenv("PGTEST_BIN"); d != "" {
		if hasBinaries(d) {
			return d, nil
		}
		return "", fmt.Errorf("%w: no initdb and postgres in PGTEST_BIN=%s", errUnavailable, d)
	}
	// pg_config may come from libpq-dev alone, without the server.
	if out, err := exec.Command("pg_config", "--bindir").Output(); err == nil {
		if d := strings.TrimSpace(string(out)); hasBinaries(d) {
			return d, nil
		}
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	version := func(d string) float64 {
		v, _ := strconv.ParseFloat(filepath.Base(filepath.Dir(d)), 64)
		return v
	}
	sort.Slice(dirs, func(i, j int) bool { return version(dirs[i]) > version(dirs[j]) })
	for _, d := range dirs {
		if hasBinaries(d) {
			return d, nil
		}
	}
	if p, err := exec.LookPath("initdb"); err == nil {
		if p, err = filepath.EvalSymlinks(p); err == nil && hasBinaries(filepath.Dir(p)) {
			return filepath.Dir(p), nil
		}
	}
	return "", fmt.Errorf("%w (looked in pg_config --bindir, /usr/lib/postgresql/*/bin and $PATH)", errUnavailable)
}

func hasBinaries(dir string) bool {
	for _, name := range []string{"initdb", "postgres"} {
		if fi, err := os.Stat(filepath.Join(dir, name)); err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0 {
			return false
		}
	}
	return true
}

// FreePort is a TCP port on 127.0.0.1 that was free a moment ago, for
// the servers a test starts beside PostgreSQL.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
