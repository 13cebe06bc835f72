package app_test

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig"

	"github.com/caddy-x402/caddy-x402/caddymodule/internal/testutil"
)

// portsChildEnv names the JSON config a ports-test child runs Caddy with.
const portsChildEnv = "X402_PORTS_CHILD"

// TestPortsChild is a gateway of TestSecondGatewayOnOnePort: this test
// binary started again with the config in portsChildEnv. It says
// CADDY-READY once Caddy runs, or CADDY-FAILED and the error. Run
// directly, it skips.
func TestPortsChild(t *testing.T) {
	path := os.Getenv(portsChildEnv)
	if path == "" {
		t.Skip("a child of TestSecondGatewayOnOnePort")
	}
	cfg, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := caddy.Load(cfg, true); err != nil {
		fmt.Println("CADDY-FAILED: " + err.Error())
		os.Exit(3)
	}
	fmt.Println("CADDY-READY")
	select {} // until SIGKILL
}

// gateway is a Caddy child process.
type gateway struct {
	cmd  *exec.Cmd
	out  string // what it printed up to CADDY-READY or its exit
	done bool   // exited
}

// startGateway runs a Caddy child with caddyfile and waits until it runs
// or exits.
func startGateway(t *testing.T, caddyfile string) *gateway {
	t.Helper()
	cfg, _, err := caddyconfig.GetAdapter("caddyfile").Adapt([]byte(caddyfile), nil)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "caddy.json")
	if err := os.WriteFile(path, cfg, 0o600); err != nil {
		t.Fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self, "-test.run=^TestPortsChild$", "-test.count=1")
	// Its own data directory: each child has its own redemption records.
	cmd.Env = append(os.Environ(), portsChildEnv+"="+path, "HOME="+dir, "XDG_DATA_HOME="+dir, "XDG_CONFIG_HOME="+dir)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	g := &gateway{cmd: cmd}
	t.Cleanup(func() {
		if !g.done {
			_ = cmd.Process.Signal(syscall.SIGKILL)
			_ = cmd.Wait()
		}
	})
	seen := make(chan string, 1)
	go func() {
		var b strings.Builder
		buf := make([]byte, 4096)
		for {
			n, err := out.Read(buf)
			b.Write(buf[:n])
			if strings.Contains(b.String(), "CADDY-READY") {
				seen <- b.String()
				_, _ = io.Copy(io.Discard, out)
				return
			}
			if err != nil {
				seen <- b.String()
				return
			}
		}
	}()
	select {
	case g.out = <-seen:
	case <-time.After(90 * time.Second):
		t.Fatal("the Caddy child neither ran nor exited within 90 s")
	}
	if !strings.Contains(g.out, "CADDY-READY") {
		_ = cmd.Wait()
		g.done = true
	}
	return g
}

// TestSecondGatewayOnOnePort (issue 32, finding 10): a second gateway
// started on the port a first one serves does not start, and says which
// address is taken and by which process; the first goes on answering
// alone. With share_ports in the x402 global option it starts.
func TestSecondGatewayOnOnePort(t *testing.T) {
	port := testutil.FreePort(t)
	config := func(body, x402 string) string {
		return fmt.Sprintf("{\n\tadmin off\n\tpersist_config off\n\tx402 {\n\t\tdevnet\n\t\t%s\n\t}\n}\n:%d {\n\trespond %q\n}\n", x402, port, body)
	}
	get := func() string {
		t.Helper()
		resp, err := (&http.Client{Timeout: 10 * time.Second}).Get(fmt.Sprintf("http://127.0.0.1:%d/", port))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return fmt.Sprintf("%d %s", resp.StatusCode, b)
	}

	first := startGateway(t, config("first", ""))
	if first.done {
		t.Fatalf("the first gateway did not start: %s", first.out)
	}
	if got := get(); got != "200 first" {
		t.Fatalf("the first gateway answers %q", got)
	}

	second := startGateway(t, config("second", ""))
	if !second.done {
		t.Fatalf("a second gateway started on port %d, which the first serves", port)
	}
	want := regexp.MustCompile(`CADDY-FAILED: .*x402: (\[::\]|0\.0\.0\.0):` + fmt.Sprint(port) + `: address already in use by process ` + fmt.Sprint(first.cmd.Process.Pid) +
		` \(` + regexp.QuoteMeta(comm(t)) + `\), which listens on it: two servers on one port take turns answering \(Caddy's listeners share ports\), ` +
		`so this one does not start; stop the other, choose another port, or set share_ports in the x402 global option if they are meant to share it\n`)
	t.Logf("the second gateway: %s", second.out)
	if !want.MatchString(second.out) || second.cmd.ProcessState.ExitCode() != 3 {
		t.Errorf("the second gateway exited %d saying\n%s\nwant it to match %s", second.cmd.ProcessState.ExitCode(), second.out, want)
	}
	for i := 0; i < 4; i++ {
		if got := get(); got != "200 first" {
			t.Fatalf("answer %d after the refused start: %q, want the first gateway's", i, got)
		}
	}

	// Meant to share it: the deployment says so.
	shared := startGateway(t, config("shared", "share_ports"))
	if shared.done {
		t.Fatalf("a gateway with share_ports did not start: %s", shared.out)
	}
}

// TestReloadKeepsItsPorts: a reload in the same process re-binds the
// ports the running config listens on (Caddy's listener pool): they are
// its own, and the reload goes through, with share_ports or without.
func TestReloadKeepsItsPorts(t *testing.T) {
	site := func(body string) string {
		return fmt.Sprintf(":%d {\n\trespond %q\n}\n", testutil.SitePort, body)
	}
	tester := testutil.NewTester(t, testutil.GlobalBlock("")+site("one"))
	if resp, b := testutil.Get(t, tester, testutil.SiteURL+"/", nil); resp.StatusCode != 200 || string(b) != "one" {
		t.Fatalf("first config answers %d %q", resp.StatusCode, b)
	}
	for _, c := range []struct{ extra, body string }{{"", "two"}, {"share_ports", "three"}, {"", "four"}} {
		testutil.LoadConfig(t, testutil.GlobalBlock(c.extra)+site(c.body))
		if resp, b := testutil.Get(t, tester, testutil.SiteURL+"/", nil); resp.StatusCode != 200 || string(b) != c.body {
			t.Fatalf("after the reload to %q the site answers %d %q", c.body, resp.StatusCode, b)
		}
	}
}

// comm is the process name /proc gives this test binary (at most 15
// bytes).
func comm(t *testing.T) string {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	name := filepath.Base(self)
	if len(name) > 15 {
		name = name[:15]
	}
	return name
}
