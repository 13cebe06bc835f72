package cluster

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi/bind"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/jackc/pgx/v5"

	"github.com/caddy-x402/caddy-x402/facilitator/devnet"
	"github.com/caddy-x402/caddy-x402/facilitator/exact"
	"github.com/caddy-x402/caddy-x402/facilitator/token"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
	"github.com/caddy-x402/caddy-x402/internal/pgtest"
	"github.com/caddy-x402/caddy-x402/internal/tcpproxy"
)

// Texts the instances answer with (caddymodule/paywall/reply.go, paymentid.go and
// the facilitator's reasons), compared exactly.
const (
	textBusyElsewhere = "another request with this payment is being served"
	// textBusyUnknown: the same, before the request holding the payment
	// has written which authorization it is.
	textBusyUnknown        = "another request with this payment, or with a different authorization with the same nonce from the same payer, is being served"
	textStoreDown          = "the payment store cannot be reached, so this payment was not taken: nothing was verified, settled or charged"
	textPaidUnrecorded     = "the payment settled, but the payment store cannot be reached to record it, so the resource is not served yet"
	textStoreNotSettled    = "the payment store cannot be reached, so this payment was not settled: nothing was broadcast or charged"
	textStoreNotConfirmed  = "the payment store cannot be reached, so the outcome of an earlier attempt with this payment cannot be read now: nothing more was charged for this request"
	textPaymentIDDelivered = "payment already delivered"
	textPaymentIDConflict  = "payment identifier already used with a different payload"
	textPending            = x402.ErrTextPending
	textAlreadyUsed        = x402.ErrTextAlreadyUsed
)

// price is what every paid route asks, in the token's smallest units.
const price = 1000

// host is the Host header of every request, whichever instance gets it, as
// a load balancer keeps it: the paywall binds a payment to its resource
// URL, which is made of it.
const host = "shop.test"

// noSharedStore is the by-hand mode that starts the instances without
// storage postgres (each on its own bbolt files).
var noSharedStore = os.Getenv("CLUSTER_NO_SHARED_STORE") == "1"

// debug (CLUSTER_DEBUG=1) logs every answer of the failover and the
// instances' fill and lease logs.
var debug = os.Getenv("CLUSTER_DEBUG") == "1"

// The caddy binary, built once from this checkout on first use.
var caddyBin struct {
	once sync.Once
	dir  string
	path string
	err  error
}

func TestMain(m *testing.M) {
	flag.Parse()
	code := m.Run()
	if caddyBin.dir != "" {
		os.RemoveAll(caddyBin.dir)
	}
	os.Exit(code)
}

// caddyBinary builds ./caddy of the module this package is in, once.
func caddyBinary(t *testing.T) string {
	t.Helper()
	caddyBin.once.Do(func() {
		out, err := exec.Command("go", "env", "GOMOD").Output()
		root := filepath.Dir(strings.TrimSpace(string(out)))
		if err != nil || root == "." || root == "" {
			caddyBin.err = fmt.Errorf("finding the module root with go env GOMOD: %v %s", err, out)
			return
		}
		if caddyBin.dir, caddyBin.err = os.MkdirTemp("", "x402-cluster-bin-"); caddyBin.err != nil {
			return
		}
		path := filepath.Join(caddyBin.dir, "caddy")
		start := time.Now()
		cmd := exec.Command("go", "build", "-o", path, "./caddy")
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			caddyBin.err = fmt.Errorf("go build ./caddy: %v\n%s", err, out)
			return
		}
		caddyBin.path = path
		fmt.Fprintf(os.Stderr, "e2e/cluster: built %s in %v\n", path, time.Since(start).Round(time.Millisecond))
	})
	if caddyBin.err != nil {
		t.Fatal(caddyBin.err)
	}
	return caddyBin.path
}

// options shape a cluster.
type options struct {
	// instances is how many to start (default 3), named A, B, C, ...
	instances int
	// global are extra lines of the x402 global option, such as
	// "settle_timeout 1s".
	global string
	// pg is the server to use; nil starts one for the test.
	pg *pgtest.Server
	// dontStart leaves the instances to the test (start).
	dontStart bool
	// storeProxy puts a TCP proxy (internal/tcpproxy) between the
	// instances and PostgreSQL, so that the test can slow the store
	// (cluster.proxy.SetDelay) or cut its connections.
	storeProxy bool
}

// cluster is a PostgreSQL database, a development chain, an upstream and
// several Caddy instances with one config on them.
type cluster struct {
	t      *testing.T
	pg     *pgtest.Server
	dsn    string // "" without the shared store
	chain  *devnet.Chain
	up     *upstream
	payTo  common.Address
	config string // the Caddyfile's path
	nodes  []*instance
	tok    *token.EIP3009TokenCaller
	// proxy is between the instances and PostgreSQL (options.storeProxy);
	// dsn goes through it, the test's own connections (connect) do not.
	proxy *tcpproxy.Proxy
	// direct is the database's connection string without the proxy.
	direct string
}

// newCluster starts PostgreSQL (pgtest: skips without its binaries), the
// devnet at 1 s blocks with 20 buyers, the upstream, and the instances.
func newCluster(t *testing.T, o options) *cluster {
	t.Helper()
	if testing.Short() {
		t.Skip("starts PostgreSQL, a chain and several Caddy processes")
	}
	c := &cluster{t: t, pg: o.pg}
	if c.pg == nil {
		c.pg = pgtest.Start(t)
	}
	bin := caddyBinary(t)
	if !noSharedStore {
		c.dsn = c.pg.DSN(t)
		c.direct = c.dsn
		if o.storeProxy {
			px, err := tcpproxy.Start(fmt.Sprintf("127.0.0.1:%d", c.pg.Port()))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { px.Close() })
			c.proxy = px
			c.dsn = strings.Replace(c.dsn, fmt.Sprintf("127.0.0.1:%d/", c.pg.Port()), px.Addr()+"/", 1)
		}
	}
	chain, err := devnet.Start(devnet.Config{BlockTime: time.Second, Buyers: 20})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { chain.Close() })
	c.chain = chain
	if c.tok, err = token.NewEIP3009TokenCaller(chain.Token(), chain.Client()); err != nil {
		t.Fatal(err)
	}
	c.up = newUpstream(t)
	var b [20]byte
	_, _ = rand.Read(b[:])
	c.payTo = common.BytesToAddress(b[:])

	storage := "\t\tstorage postgres {env.X402_DATABASE_URL}\n"
	if noSharedStore {
		storage = "" // each instance on the bbolt files in its own data dir
		t.Log("CLUSTER_NO_SHARED_STORE=1: the instances run WITHOUT storage postgres, each on its own journal and redemption store")
	}
	global := ""
	for _, l := range strings.Split(strings.TrimSpace(o.global), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			global += "\t\t" + l + "\n"
		}
	}
	caddyfile := fmt.Sprintf(`{
	admin 127.0.0.1:{$ADMIN_PORT}
	persist_config off
	x402 {
		network cronos-testnet {
			rpc {$X402_RPC}
			signer_key {env.X402_SIGNER_KEY}
		}
%s%s	}
}

http://:{$PORT} {
	bind 127.0.0.1
	x402_facilitator {
		rate_limit off
	}
	x402 /paid/* {
		pay_to %[3]s
		amount %[4]d
		network cronos-testnet
		attempt_limit off
	}
	x402 /after/* {
		pay_to %[3]s
		amount %[4]d
		network cronos-testnet
		attempt_limit off
		settle after
	}
	x402 /access/* {
		pay_to %[3]s
		amount %[4]d
		network cronos-testnet
		attempt_limit off
		access 1h
	}
	x402 /access-short/* {
		pay_to %[3]s
		amount %[4]d
		network cronos-testnet
		attempt_limit off
		access 5s
	}
	x402 /upto-after/* {
		pay_to %[3]s
		amount %[4]d
		network cronos-testnet
		attempt_limit off
		scheme upto
		meter json usage.total_tokens 2
		settle after
	}
	x402 /chan/* {
		pay_to %[3]s
		amount %[4]d
		network cronos-testnet
		attempt_limit off
		scheme batch-settlement
		claim_every 2s
	}
	x402 /chan-meter/* {
		pay_to %[3]s
		amount %[4]d
		network cronos-testnet
		attempt_limit off
		scheme batch-settlement
		meter json usage.total_tokens 2
		claim_every 2s
	}
	x402 /chanload/* {
		pay_to %[3]s
		amount %[4]d
		network cronos-testnet
		scheme batch-settlement
		claim_every 2s
	}
	respond /chanload/* "paid content" 200
	respond /free "ok" 200
	reverse_proxy %[5]s {
		header_up X-Instance {$NAME}
	}
}
`, global, storage, c.payTo.Hex(), price, c.up.srv.Listener.Addr())
	c.config = filepath.Join(t.TempDir(), "Caddyfile")
	if err := os.WriteFile(c.config, []byte(caddyfile), 0o600); err != nil {
		t.Fatal(err)
	}
	n := o.instances
	if n == 0 {
		n = 3
	}
	for i := range n {
		c.nodes = append(c.nodes, &instance{c: c, bin: bin, name: string(rune('A' + i)), dir: t.TempDir()})
	}
	// Registered after the chain, PostgreSQL and the upstream, so it runs
	// before their cleanups: the instances go first.
	t.Cleanup(func() {
		for _, in := range c.nodes {
			in.stop()
		}
		if t.Failed() {
			for _, in := range c.nodes {
				t.Logf("instance %s (port %d), log tail:\n%s", in.name, in.port, in.logTail(40))
			}
		}
	})
	if !o.dontStart {
		c.start(c.nodes...)
	}
	return c
}

// start starts instances at the same moment and waits until each answers
// /healthcheck.
func (c *cluster) start(nodes ...*instance) {
	c.t.Helper()
	var wg sync.WaitGroup
	errs := make([]error, len(nodes))
	for i, in := range nodes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = in.start()
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		c.t.Fatal(err)
	}
}

// instance is one `caddy run` process.
type instance struct {
	c    *cluster
	bin  string
	name string
	dir  string // its HOME and XDG directories, config and log

	mu      sync.Mutex
	port    int
	admin   int
	cmd     *exec.Cmd
	done    chan struct{} // closed when the process has exited
	stopped bool          // SIGSTOPped
}

func (in *instance) logPath() string { return filepath.Join(in.dir, "caddy.log") }

// base is the instance's URL.
func (in *instance) base() string {
	in.mu.Lock()
	defer in.mu.Unlock()
	return fmt.Sprintf("http://127.0.0.1:%d", in.port)
}

// start runs the process on free ports and waits for /healthcheck; ports
// taken meanwhile by someone else are picked again.
func (in *instance) start() error {
	var err error
	for range 3 {
		if err = in.startOnce(); err == nil || !strings.Contains(in.logTail(40), "address already in use") {
			return err
		}
	}
	return err
}

func (in *instance) startOnce() error {
	port, err := pgtest.FreePort()
	if err != nil {
		return err
	}
	admin, err := pgtest.FreePort()
	if err != nil {
		return err
	}
	for _, d := range []string{"data", "config"} {
		if err := os.MkdirAll(filepath.Join(in.dir, d), 0o700); err != nil {
			return err
		}
	}
	log, err := os.OpenFile(in.logPath(), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	defer log.Close()
	fmt.Fprintf(log, "==== e2e/cluster: starting instance %s on port %d at %s\n", in.name, port, time.Now().Format(time.RFC3339Nano))
	cmd := exec.Command(in.bin, "run", "--config", in.c.config, "--adapter", "caddyfile")
	cmd.Dir = in.dir
	cmd.Env = []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + in.dir,
		"XDG_DATA_HOME=" + filepath.Join(in.dir, "data"),
		"XDG_CONFIG_HOME=" + filepath.Join(in.dir, "config"),
		"TMPDIR=" + os.TempDir(),
		"NAME=" + in.name,
		"PORT=" + strconv.Itoa(port),
		"ADMIN_PORT=" + strconv.Itoa(admin),
		"X402_RPC=" + in.c.chain.RPCURL(),
		"X402_SIGNER_KEY=" + in.c.chain.Signer().PrivateKey,
	}
	if in.c.dsn != "" {
		cmd.Env = append(cmd.Env, "X402_DATABASE_URL="+in.c.dsn)
	}
	cmd.Stdout, cmd.Stderr = log, log
	// The process dies with the test binary, whatever happens to it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("instance %s: %v", in.name, err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	in.mu.Lock()
	in.port, in.admin, in.cmd, in.done, in.stopped = port, admin, cmd, done, false
	in.mu.Unlock()

	deadline := time.Now().Add(90 * time.Second)
	url := fmt.Sprintf("http://127.0.0.1:%d/healthcheck", port)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		req.Host = host
		resp, err := client.Do(req)
		if err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
		cancel()
		if err == nil && resp.StatusCode == http.StatusOK {
			return nil
		}
		select {
		case <-done:
			return fmt.Errorf("instance %s exited before it was ready (%v); log tail:\n%s", in.name, cmd.ProcessState, in.logTail(40))
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			in.stop()
			return fmt.Errorf("instance %s: /healthcheck not 200 within 90 s; log tail:\n%s", in.name, in.logTail(40))
		}
	}
}

// kill SIGKILLs the process and waits until it is gone.
func (in *instance) kill() {
	in.stop()
}

// stop SIGCONTs (if stopped) and SIGKILLs the process, and waits for it.
func (in *instance) stop() {
	in.mu.Lock()
	cmd, done := in.cmd, in.done
	in.cmd, in.stopped = nil, false
	in.mu.Unlock()
	if cmd == nil {
		return
	}
	_ = cmd.Process.Signal(syscall.SIGCONT)
	_ = cmd.Process.Signal(syscall.SIGKILL)
	<-done
}

// pause SIGSTOPs the process; resume SIGCONTs it.
func (in *instance) pause() {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.cmd != nil {
		_ = in.cmd.Process.Signal(syscall.SIGSTOP)
		in.stopped = true
	}
}

func (in *instance) resume() {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.cmd != nil {
		_ = in.cmd.Process.Signal(syscall.SIGCONT)
		in.stopped = false
	}
}

// log is the instance's log so far.
func (in *instance) log() string {
	b, _ := os.ReadFile(in.logPath())
	return string(b)
}

// logTail is the last n lines of the log.
func (in *instance) logTail(n int) string {
	lines := strings.Split(strings.TrimRight(in.log(), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return "\t" + strings.Join(lines, "\n\t")
}

// logCount counts the log lines that contain s.
func (in *instance) logCount(s string) int {
	return strings.Count(in.log(), s)
}

// loggedInts sums the JSON integer field of the log lines that contain s.
func (in *instance) loggedInts(s, field string) int {
	re := regexp.MustCompile(`"` + regexp.QuoteMeta(field) + `":(\d+)`)
	sum := 0
	for _, l := range strings.Split(in.log(), "\n") {
		if strings.Contains(l, s) {
			if m := re.FindStringSubmatch(l); m != nil {
				n, _ := strconv.Atoi(m[1])
				sum += n
			}
		}
	}
	return sum
}

// client is the buyers' HTTP client: many connections per instance.
var client = &http.Client{
	Transport: &http.Transport{MaxIdleConns: 1000, MaxIdleConnsPerHost: 400, IdleConnTimeout: 30 * time.Second},
	Timeout:   2 * time.Minute,
}

// upstream is the content server behind every instance: it counts its
// runs per path and per instance (X-Instance) and answers
// "content <path> tx=<X-Payment-Tx-Hash>"; under /upto-after/ and at
// /chan-meter/held it streams server-sent events (streamFirst, then
// streamRest after release), at /chan-meter/now the same events at once.
type upstream struct {
	srv  *httptest.Server
	mu   sync.Mutex
	hits map[string]map[string]int // path -> instance -> runs
	// streams receives the instance's name as a stream starts (when
	// there is room); release, closed, lets the streams end.
	streams chan string
	release chan struct{}
}

// The events of an /upto-after/ stream: the first at once, the rest
// (50 units used: a charge of 100 at the route's meter) after release.
const (
	streamFirst = "data: {\"delta\":\"Hel\",\"usage\":null}\n\n"
	streamRest  = "data: {\"delta\":\"lo\",\"usage\":{\"total_tokens\":50}}\n\ndata: [DONE]\n\n"
)

func newUpstream(t *testing.T) *upstream {
	u := &upstream{hits: map[string]map[string]int{}, streams: make(chan string, 64), release: make(chan struct{})}
	u.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u.mu.Lock()
		if u.hits[r.URL.Path] == nil {
			u.hits[r.URL.Path] = map[string]int{}
		}
		u.hits[r.URL.Path][r.Header.Get("X-Instance")]++
		u.mu.Unlock()
		if r.URL.Path == "/chan-meter/now" {
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprint(w, streamFirst+streamRest)
			return
		}
		if strings.HasPrefix(r.URL.Path, "/upto-after/") || r.URL.Path == "/chan-meter/held" {
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprint(w, streamFirst)
			w.(http.Flusher).Flush()
			select {
			case u.streams <- r.Header.Get("X-Instance"):
			default:
			}
			select {
			case <-u.release:
			case <-r.Context().Done():
			case <-time.After(time.Minute):
			}
			fmt.Fprint(w, streamRest)
			return
		}
		fmt.Fprintf(w, "content %s tx=%s", r.URL.Path, r.Header.Get("X-Payment-Tx-Hash"))
	}))
	t.Cleanup(u.srv.Close)
	return u
}

// runs is how often the upstream ran for path, in all.
func (u *upstream) runs(path string) int {
	u.mu.Lock()
	defer u.mu.Unlock()
	n := 0
	for _, v := range u.hits[path] {
		n += v
	}
	return n
}

// runsBy is how often the upstream ran for path through the instance.
func (u *upstream) runsBy(path, instance string) int {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.hits[path][instance]
}

// answer is an instance's answer to one request.
type answer struct {
	node   string // the instance's name
	status int    // 0 when the request failed (err)
	body   []byte
	header http.Header
	err    error
	sent   time.Time // when the request went
	at     time.Time // when the answer came
}

// fields of a JSON answer body.
type answerBody struct {
	Error       string `json:"error"`
	TxHash      string `json:"txHash"`
	Transaction string `json:"transaction"`
	PaymentID   string `json:"paymentId"`
	Retry       string `json:"retry"`
}

func (a answer) json() answerBody {
	var b answerBody
	_ = json.Unmarshal(a.body, &b)
	return b
}

// kind sorts an answer for counting: "200", "402 <error>", "409 <error>",
// "503 <error>", "error: ...".
func (a answer) kind() string {
	switch {
	case a.err != nil:
		return "no answer (" + shortErr(a.err) + ")"
	case a.status == http.StatusOK:
		return "200"
	}
	if e := a.json().Error; e != "" {
		return fmt.Sprintf("%d %s", a.status, e)
	}
	return fmt.Sprintf("%d %q", a.status, bytes.TrimSpace(a.body))
}

func (a answer) String() string {
	if a.err != nil {
		return fmt.Sprintf("%s: %v", a.node, a.err)
	}
	return fmt.Sprintf("%s: %d Retry-After=%q %s", a.node, a.status, a.header.Get("Retry-After"), bytes.TrimSpace(a.body))
}

// shortErr names a transport error without its addresses.
func shortErr(err error) string {
	s := err.Error()
	for _, k := range []string{"connection reset", "EOF", "connection refused", "deadline exceeded", "timeout"} {
		if strings.Contains(s, k) {
			return k
		}
	}
	return s
}

// txHash is the transaction of a 200 (the settlement response header,
// v1 or v2).
func (a answer) txHash() string {
	if h := a.header.Get("X-Payment-Response"); h != "" {
		var sr x402.SettleResponse
		if x402.DecodeBase64JSON(h, &sr) == nil {
			return sr.TxHash
		}
	}
	if h := a.header.Get("Payment-Response"); h != "" {
		var sr x402.ReferenceSettleResponse
		if x402.DecodeBase64JSON(h, &sr) == nil {
			return sr.Transaction
		}
	}
	return ""
}

// get sends GET path to the instance with the headers, with timeout
// (0: the client's).
func (in *instance) get(path string, hdr map[string]string, timeout time.Duration) answer {
	ctx := context.Background()
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	a := answer{node: in.name, sent: time.Now()}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, in.base()+path, nil)
	if err != nil {
		a.err = err
		return a
	}
	req.Host = host
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := client.Do(req)
	if err != nil {
		a.err, a.at = err, time.Now()
		return a
	}
	defer resp.Body.Close()
	a.body, a.err = io.ReadAll(resp.Body)
	a.status, a.header, a.at = resp.StatusCode, resp.Header, time.Now()
	if a.err != nil {
		a.status = 0
	}
	return a
}

// payment is a signed payment for one path.
type payment struct {
	path   string
	header string // the X-PAYMENT (v1) or PAYMENT-SIGNATURE (v2) value
	v2     bool
	buyer  common.Address
	nonce  [32]byte
}

func (p *payment) headers() map[string]string {
	if p.v2 {
		return map[string]string{"Payment-Signature": p.header}
	}
	return map[string]string{"X-Payment": p.header}
}

// pay sends the payment to the instance.
func (in *instance) pay(p *payment, timeout time.Duration) answer {
	return in.get(p.path, p.headers(), timeout)
}

// requirements fetches a route's 402 unpaid from the instance.
func (c *cluster) requirements(in *instance, path string) x402.PaymentRequirements {
	c.t.Helper()
	a := in.get(path, nil, 30*time.Second)
	if a.status != http.StatusPaymentRequired {
		c.t.Fatalf("GET %s unpaid: %v", path, a)
	}
	var pr x402.PaymentRequired
	if err := json.Unmarshal(a.body, &pr); err != nil {
		c.t.Fatalf("the 402 of %s: %v", path, err)
	}
	reqs, err := pr.Requirements()
	if err != nil {
		c.t.Fatal(err)
	}
	return reqs
}

// sign signs a v1 payment of the requirements by the buyer, for path.
func (c *cluster) sign(buyer devnet.Account, reqs x402.PaymentRequirements, path string) *payment {
	c.t.Helper()
	header, p, err := exact.CreatePayment(buyer.Key, reqs, exact.PaymentOptions{})
	if err != nil {
		c.t.Fatal(err)
	}
	return &payment{path: path, header: header, buyer: p.Authorization.From, nonce: p.Authorization.Nonce}
}

// offerV2 is a route's version 2 402 (its PAYMENT-REQUIRED header).
func (c *cluster) offerV2(in *instance, path string) x402.PaymentRequiredV2 {
	c.t.Helper()
	a := in.get(path, nil, 30*time.Second)
	var pr x402.PaymentRequiredV2
	if a.status != http.StatusPaymentRequired {
		c.t.Fatalf("GET %s unpaid: %v", path, a)
	}
	if err := x402.DecodeBase64JSON(a.header.Get("Payment-Required"), &pr); err != nil || len(pr.Accepts) == 0 {
		c.t.Fatalf("PAYMENT-REQUIRED of %s: %v %+v", path, err, pr)
	}
	return pr
}

// signV2 signs a version 2 payment of the offer with the
// payment-identifier extension carrying id.
func (c *cluster) signV2(buyer devnet.Account, offer x402.PaymentRequiredV2, path, id string) *payment {
	c.t.Helper()
	exts, err := x402.WithPaymentID(offer.Extensions, id)
	if err != nil || exts == nil {
		c.t.Fatalf("payment id %s for %v: %v", id, offer.Extensions, err)
	}
	header, p, err := exact.CreatePaymentV2(buyer.Key, offer.Accepts[0], offer.Resource, exact.PaymentOptions{Extensions: exts})
	if err != nil {
		c.t.Fatal(err)
	}
	return &payment{path: path, header: header, v2: true, buyer: p.Authorization.From, nonce: p.Authorization.Nonce}
}

// burst sends each payment to its instance at the same moment and returns
// the answers in order.
func burst(payments []*payment, to func(i int) *instance, timeout time.Duration) []answer {
	out := make([]answer, len(payments))
	var wg sync.WaitGroup
	gate := make(chan struct{})
	for i, p := range payments {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-gate
			out[i] = to(i).pay(p, timeout)
		}()
	}
	close(gate)
	wg.Wait()
	return out
}

// busy reports whether an answer is the 409 of a payment that another
// request is serving.
func busy(a answer) bool {
	e := a.json().Error
	return a.status == http.StatusConflict && (e == textBusyElsewhere || e == textBusyUnknown) && a.header.Get("Retry-After") == "2"
}

// retryable reports whether an answer says to send the same header again:
// 409 (served elsewhere, or its payment id in progress), 402 pending, 503
// (store out of reach, or paid but not recorded), a 500 whose outcome is
// not known yet, or no answer at all.
func retryable(a answer) bool {
	switch {
	case a.err != nil:
		return true
	case busy(a):
		return true
	case a.status == http.StatusPaymentRequired && a.json().Error == textPending:
		return true
	case a.status == http.StatusServiceUnavailable, a.status == http.StatusInternalServerError:
		return true
	}
	return false
}

// retryAfter is how long an answer asks to wait: its Retry-After, else
// 200 ms.
func retryAfter(a answer) time.Duration {
	if a.header != nil {
		if s, err := strconv.Atoi(a.header.Get("Retry-After")); err == nil && s > 0 {
			return time.Duration(s) * time.Second
		}
	}
	return 200 * time.Millisecond
}

// retryElsewhere retries, at once and each until it is delivered (or for
// three minutes), every payment whose first answer was not a 200 on the
// two other instances rest, in turn. It returns each payment's final
// answer, every answer it got (the first one first) and when the last
// retry was answered (zero when none was needed).
func retryElsewhere(first []answer, payments []*payment, rest []*instance) (final []answer, tries [][]answer, doneAt time.Time) {
	final, tries = make([]answer, len(first)), make([][]answer, len(first))
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i, f := range first {
		final[i], tries[i] = f, []answer{f}
		if f.status == http.StatusOK {
			continue
		}
		wg.Go(func() {
			all := deliver(payments[i], []*instance{rest[i%2], rest[(i+1)%2]}, time.Now().Add(3*time.Minute), 0)
			last := all[len(all)-1]
			mu.Lock()
			defer mu.Unlock()
			final[i], tries[i] = last, append(tries[i], all...)
			if last.at.After(doneAt) {
				doneAt = last.at
			}
		})
	}
	wg.Wait()
	return final, tries, doneAt
}

// deliver sends the payment to the instances in turn until an answer is
// not retryable (a 200, or a final refusal) or the deadline passes,
// honouring Retry-After, and returns every answer, the last one last.
func deliver(p *payment, nodes []*instance, deadline time.Time, timeout time.Duration) []answer {
	var out []answer
	for i := 0; ; i++ {
		a := nodes[i%len(nodes)].pay(p, timeout)
		out = append(out, a)
		if !retryable(a) || time.Now().Add(retryAfter(a)).After(deadline) {
			return out
		}
		time.Sleep(retryAfter(a))
	}
}

// counts tallies answers by kind.
func counts(as []answer) map[string]int {
	m := map[string]int{}
	for _, a := range as {
		m[a.kind()]++
	}
	return m
}

// fmtCounts prints a tally sorted by kind.
func fmtCounts(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "\n\t%4d × %s", m[k], k)
	}
	return b.String()
}

// ---- the chain ----

var bg = context.Background()

// balance is the token balance of addr.
func (c *cluster) balance(addr common.Address) *big.Int {
	c.t.Helper()
	b, err := c.chain.BalanceOf(bg, addr)
	if err != nil {
		c.t.Fatal(err)
	}
	return b
}

// balances reads the token balances of addrs.
func (c *cluster) balances(addrs ...common.Address) map[common.Address]*big.Int {
	m := map[common.Address]*big.Int{}
	for _, a := range addrs {
		m[a] = c.balance(a)
	}
	return m
}

// nonces is the signer's latest (mined) and pending nonce.
func (c *cluster) nonces() (latest, pending uint64) {
	c.t.Helper()
	latest, pending, err := c.chain.NonceAt(bg, c.chain.Signer().Address)
	if err != nil {
		c.t.Fatal(err)
	}
	return latest, pending
}

// head is the latest block number.
func (c *cluster) head() uint64 {
	c.t.Helper()
	n, err := c.chain.Client().BlockNumber(bg)
	if err != nil {
		c.t.Fatal(err)
	}
	return n
}

// waitIdle waits until the signer has nothing in the pool (pending nonce
// == latest) and that held for three seconds (three blocks), and returns
// the latest nonce. It fails the test after timeout.
func (c *cluster) waitIdle(timeout time.Duration) uint64 {
	c.t.Helper()
	deadline := time.Now().Add(timeout)
	var since time.Time
	var last uint64
	for {
		latest, pending := c.nonces()
		switch {
		case latest != pending || latest != last:
			since, last = time.Time{}, latest
			if latest == pending {
				since = time.Now()
			}
		case !since.IsZero() && time.Since(since) >= 3*time.Second:
			return latest
		case since.IsZero():
			since = time.Now()
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("the signer's transactions did not settle within %v: latest nonce %d, pending %d", timeout, latest, pending)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// used reports whether the authorization was used on chain.
func (c *cluster) used(p *payment) bool {
	c.t.Helper()
	ok, err := c.tok.AuthorizationState(&bind.CallOpts{Context: bg}, p.buyer, p.nonce)
	if err != nil {
		c.t.Fatal(err)
	}
	return ok
}

// authKey is an authorization: its payer and nonce.
type authKey struct {
	from  common.Address
	nonce [32]byte
}

func (p *payment) key() authKey { return authKey{p.buyer, p.nonce} }

// sentTx is a transaction of the signer that was mined.
type sentTx struct {
	hash   common.Hash
	nonce  uint64
	block  uint64
	ok     bool   // its receipt's status
	kind   string // "transfer" (an authorization on the token), "fill" (zero-value to the signer itself), or "other"
	auth   authKey
	method string
}

// ledger is what the signer's mined transactions in a range of blocks
// did.
type ledger struct {
	txs       []sentTx
	transfers int // token transfers that succeeded
	reverted  []sentTx
	fills     int
	other     []sentTx
	byAuth    map[authKey][]sentTx
}

// scan reads the signer's transactions in blocks [from, to].
func (c *cluster) scan(from, to uint64) ledger {
	c.t.Helper()
	cl := c.chain.Client()
	signer := types.LatestSignerForChainID(c.chain.ChainID())
	me := c.chain.Signer().Address
	tokABI, err := token.EIP3009TokenMetaData.GetAbi()
	if err != nil {
		c.t.Fatal(err)
	}
	l := ledger{byAuth: map[authKey][]sentTx{}}
	for n := from; n <= to; n++ {
		b, err := cl.BlockByNumber(bg, new(big.Int).SetUint64(n))
		if err != nil {
			c.t.Fatalf("block %d: %v", n, err)
		}
		for _, tx := range b.Transactions() {
			if sender, err := types.Sender(signer, tx); err != nil || sender != me {
				continue
			}
			r, err := cl.TransactionReceipt(bg, tx.Hash())
			if err != nil {
				c.t.Fatalf("receipt of %s: %v", tx.Hash(), err)
			}
			s := sentTx{hash: tx.Hash(), nonce: tx.Nonce(), block: n, ok: r.Status == types.ReceiptStatusSuccessful, kind: "other"}
			switch to := tx.To(); {
			case to != nil && *to == me && tx.Value().Sign() == 0:
				s.kind = "fill"
				l.fills++
			case to != nil && *to == c.chain.Token() && len(tx.Data()) >= 4:
				m, err := tokABI.MethodById(tx.Data()[:4])
				if err != nil || (m.Name != "transferWithAuthorization" && m.Name != "transferWithAuthorization0" && m.Name != "receiveWithAuthorization" && m.Name != "receiveWithAuthorization0") {
					break
				}
				args, err := m.Inputs.Unpack(tx.Data()[4:])
				if err != nil || len(args) < 6 {
					break
				}
				from, ok1 := args[0].(common.Address)
				nonce, ok2 := args[5].([32]byte)
				if !ok1 || !ok2 {
					break
				}
				s.kind, s.method, s.auth = "transfer", m.Name, authKey{from, nonce}
				l.byAuth[s.auth] = append(l.byAuth[s.auth], s)
				if s.ok {
					l.transfers++
				} else {
					l.reverted = append(l.reverted, s)
				}
			}
			if s.kind == "other" {
				l.other = append(l.other, s)
			}
			l.txs = append(l.txs, s)
		}
	}
	return l
}

// check fails the test for a transaction that is neither a token
// transfer of an authorization nor a zero-value fill, and for an
// authorization in two transactions; it logs what it saw.
func (l ledger) check(t *testing.T) {
	t.Helper()
	t.Logf("chain: the signer's mined transactions: %d, of which %d token transfers succeeded, %d reverted, %d zero-value fills, %d other",
		len(l.txs), l.transfers, len(l.reverted), l.fills, len(l.other))
	for _, s := range l.other {
		t.Errorf("chain: transaction %s (nonce %d, block %d) of the signer is neither a transfer with authorization nor a zero-value fill", s.hash, s.nonce, s.block)
	}
	for k, txs := range l.byAuth {
		if len(txs) > 1 {
			var hs []string
			for _, s := range txs {
				hs = append(hs, fmt.Sprintf("%s (nonce %d, block %d, ok %v)", s.hash, s.nonce, s.block, s.ok))
			}
			t.Errorf("chain: the authorization %s/%x is in %d transactions: %s", k.from, k.nonce, len(txs), strings.Join(hs, ", "))
		}
	}
	for _, s := range l.reverted {
		if len(l.byAuth[s.auth]) == 1 {
			t.Errorf("chain: the transfer %s of authorization %s/%x reverted", s.hash, s.auth.from, s.auth.nonce)
		}
	}
}

// settlement asks an instance's facilitator for the settlement of a
// transaction: its status ("settled", "pending", "failed") or the answer.
func (in *instance) settlement(txHash string) (string, answer) {
	a := in.get("/v2/x402/settlements/"+txHash, nil, 10*time.Second)
	var s struct {
		Status string `json:"status"`
		TxHash string `json:"txHash"`
	}
	if a.status == http.StatusOK && json.Unmarshal(a.body, &s) == nil && strings.EqualFold(s.TxHash, txHash) {
		return s.Status, a
	}
	return "", a
}

// delta is after - before.
func delta(before, after *big.Int) int64 {
	return new(big.Int).Sub(after, before).Int64()
}

// connect opens a connection to the cluster's database, closed at the
// end of the test.
func (c *cluster) connect() *pgx.Conn {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(bg, 10*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, c.direct)
	if err != nil {
		c.t.Fatal(err)
	}
	c.t.Cleanup(func() { conn.Close(bg) })
	return conn
}

// loggedFills counts the distinct nonces that the instances' logs say
// they filled with a zero-value transfer.
func (c *cluster) loggedFills() int {
	re := regexp.MustCompile(`"tx_nonce":(\d+)`)
	seen := map[string]bool{}
	for _, in := range c.nodes {
		for _, l := range strings.Split(in.log(), "\n") {
			if strings.Contains(l, "zero-value transfer") && strings.Contains(l, "fill") {
				if m := re.FindStringSubmatch(l); m != nil {
					seen[m[1]] = true
				}
			}
		}
	}
	return len(seen)
}
