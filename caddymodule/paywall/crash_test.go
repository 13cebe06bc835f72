//go:build linux

package paywall

import (
	"context"
	"crypto/ecdsa"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/caddy-x402/caddy-x402/caddymodule/internal/httpx"
	"github.com/caddy-x402/caddy-x402/caddymodule/internal/testutil"
	"github.com/caddy-x402/caddy-x402/facilitator/devnet"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// crashChildEnv names the config file a crash-test child runs Caddy with.
const crashChildEnv = "X402_CADDY_CRASH_CHILD"

// TestCrashChild is the Caddy that TestCrashRedeem kills: this test binary
// started again with the config in crashChildEnv. Run directly, it skips.
func TestCrashChild(t *testing.T) {
	path := os.Getenv(crashChildEnv)
	if path == "" {
		t.Skip("the child of TestCrashRedeem")
	}
	cfg, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := caddy.Load(cfg, true); err != nil {
		t.Fatal(err)
	}
	fmt.Println("CADDY-READY")
	select {} // until SIGKILL
}

// crashCaddy runs Caddy in a child process with a file-backed journal and
// redemption store, on a devnet of the parent's.
type crashCaddy struct {
	t      *testing.T
	config string
	url    string

	mu  sync.Mutex
	cmd *exec.Cmd
}

func (c *crashCaddy) start() {
	t := c.t
	self, err := os.Executable() // this test binary (os.Args may be a test's)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self, "-test.run=^TestCrashChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), crashChildEnv+"="+c.config, "X402_CRASH_SIGNER="+devnet.SignerPrivateKey)
	// The child dies with the test, whatever happens to the test.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &limitedWriter{w: &stderr, n: 1 << 16}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c.mu.Lock()
	c.cmd = cmd
	c.mu.Unlock()
	ready := make(chan bool, 1)
	var seen strings.Builder
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := out.Read(buf)
			seen.Write(buf[:n])
			if strings.Contains(seen.String(), "CADDY-READY") {
				ready <- true
				io.Copy(io.Discard, out)
				return
			}
			if err != nil {
				ready <- false
				return
			}
		}
	}()
	select {
	case ok := <-ready:
		if !ok {
			_ = cmd.Wait()
			t.Fatalf("the Caddy child exited before it was ready: %s\n%s", seen.String(), stderr.String())
		}
	case <-time.After(60 * time.Second):
		t.Fatal("the Caddy child was not ready within 60 s")
	}
}

// limitedWriter keeps the first n bytes written.
type limitedWriter struct {
	w io.Writer
	n int
}

func (l *limitedWriter) Write(p []byte) (int, error) {
	if l.n > 0 {
		q := p
		if len(q) > l.n {
			q = q[:l.n]
		}
		l.n -= len(q)
		l.w.Write(q)
	}
	return len(p), nil
}

// kill SIGKILLs the child and waits for it to be gone.
func (c *crashCaddy) kill() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cmd == nil {
		return
	}
	_ = c.cmd.Process.Signal(syscall.SIGKILL)
	_ = c.cmd.Wait()
	c.cmd = nil
}

// TestCrashRedeem kills Caddy (SIGKILL) at the two moments that lose a
// paid answer, restarts it on the same journal and redemption store, and
// checks that the buyer's retry with the same X-PAYMENT gets the resource,
// once, and that the money moved once:
//
//  1. after the payment settled and the upstream was called, before the
//     answer began;
//  2. after the transaction was broadcast, before it was in a block (the
//     record says only "settling"; the outcome is found by authorization).
func TestCrashRedeem(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Caddy in child processes")
	}
	chain, err := devnet.Start(devnet.Config{BlockTime: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { chain.Close() })

	var ran atomic.Int32
	var c *crashCaddy
	killNow := make(chan bool, 4) // one value per upstream request: SIGKILL the child?
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ran.Add(1)
		if <-killNow {
			c.kill()
			return
		}
		fmt.Fprintf(w, "resource tx=%s", r.Header.Get(httpx.HeaderTxHash))
	}))
	t.Cleanup(up.Close)

	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	dir := t.TempDir()
	config := fmt.Sprintf(`{"admin":{"disabled":true},"apps":{
		"x402":{"networks":[{"name":"cronos-testnet","rpc":[%q],"signer_keys":["{env.X402_CRASH_SIGNER}"]}],
			"settle_timeout":60000000000,"journal":%q,"redemptions":%q},
		"http":{"servers":{"s":{"listen":["127.0.0.1:%d"],"routes":[{"handle":[
			{"handler":"x402","pay_to":%q,"amount":"29"},
			{"handler":"reverse_proxy","upstreams":[{"dial":%q}]}]}]}}}}}`,
		chain.RPCURL(), filepath.Join(dir, "journal.db"), filepath.Join(dir, "redemptions.db"), port, testutil.SellerAddr, up.Listener.Addr().String())
	cfgPath := filepath.Join(dir, "caddy.json")
	if err := os.WriteFile(cfgPath, []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	c = &crashCaddy{t: t, config: cfgPath, url: fmt.Sprintf("http://127.0.0.1:%d/paid", port)}
	c.start()
	t.Cleanup(c.kill)

	ctx := context.Background()
	buyer, reqs, balances := paidRoute(t, chain, testutil.SellerAddr)
	client := &http.Client{Timeout: 30 * time.Second}
	fetch := func(header string) (int, string, error) {
		req, _ := http.NewRequest(http.MethodGet, c.url, nil)
		req.Header.Set("X-Payment", header)
		resp, err := client.Do(req)
		if err != nil {
			return 0, "", err
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b), nil
	}

	t.Run("killed after the upstream was called", func(t *testing.T) {
		header := testutil.Pay(t, buyer, reqs)
		buyerBefore, sellerBefore := balances()
		ranBefore := ran.Load()
		killNow <- true
		if status, body, err := fetch(header); err == nil {
			t.Fatalf("the request survived the kill: %d %s", status, body)
		}
		c.start()
		killNow <- false
		status, body, err := fetch(header)
		if err != nil || status != http.StatusOK || !strings.HasPrefix(body, "resource tx=0x") {
			t.Fatalf("retry after the crash: %d %q %v; want 200 and the resource", status, body, err)
		}
		if status, body, _ := fetch(header); status != http.StatusPaymentRequired || !strings.Contains(body, x402.ErrTextAlreadyUsed) {
			t.Errorf("after delivery: %d %s", status, body)
		}
		if n := ran.Load() - ranBefore; n != 2 {
			t.Errorf("the upstream ran %d times; want 2 (the killed request and the retry)", n)
		}
		buyerAfter, sellerAfter := balances()
		testutil.AssertDelta(t, "buyer", buyerBefore, buyerAfter, -29)
		testutil.AssertDelta(t, "seller", sellerBefore, sellerAfter, 29)
	})

	t.Run("killed while the transaction waits for its block", func(t *testing.T) {
		header := testutil.Pay(t, buyer, reqs)
		buyerBefore, sellerBefore := balances()
		ranBefore := ran.Load()
		signer := crypto.PubkeyToAddress(testutil.BuyerKey(t, devnet.SignerPrivateKey).PublicKey)
		_, pendingBefore, err := chain.NonceAt(ctx, signer)
		if err != nil {
			t.Fatal(err)
		}
		chain.PauseMining()
		done := make(chan string, 1)
		go func() {
			status, body, err := fetch(header)
			if err != nil {
				done <- ""
				return
			}
			done <- fmt.Sprintf("%d %.300s", status, body)
		}()
		// Kill once the transaction is in the pool, or after 5 s at the
		// latest (the record then says only "settling", broadcast or not).
		broadcast := false
		for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			if _, pending, err := chain.NonceAt(ctx, signer); err == nil && pending > pendingBefore {
				broadcast = true
				break
			}
		}
		t.Logf("killed with the transaction broadcast: %v", broadcast)
		c.kill()
		if answer := <-done; answer != "" {
			t.Fatalf("the request was answered before the kill: %s", answer)
		}
		chain.ResumeMining()
		c.start()
		killNow <- false
		var status int
		var body string
		for end := time.Now().Add(20 * time.Second); ; time.Sleep(100 * time.Millisecond) {
			status, body, err = fetch(header)
			if err == nil && status == http.StatusPaymentRequired && strings.Contains(body, x402.ErrTextPending) && time.Now().Before(end) {
				continue
			}
			break
		}
		if err != nil || status != http.StatusOK || !strings.HasPrefix(body, "resource tx=0x") {
			t.Fatalf("retry after the crash: %d %q %v; want 200 and the resource", status, body, err)
		}
		if n := ran.Load() - ranBefore; n != 1 {
			t.Errorf("the upstream ran %d times; want 1", n)
		}
		buyerAfter, sellerAfter := balances()
		testutil.AssertDelta(t, "buyer", buyerBefore, buyerAfter, -29)
		testutil.AssertDelta(t, "seller", sellerBefore, sellerAfter, 29)
	})
}

// paidRoute is what the tests that run Caddy as a child process pay on
// their route (29 units to sellerAddr on the devnet's token): the buyer
// (devnet buyer 1), the requirements, and a reader of the buyer's and the
// seller's balances.
func paidRoute(t *testing.T, chain *devnet.Chain, sellerAddr string) (*ecdsa.PrivateKey, x402.PaymentRequirements, func() (*big.Int, *big.Int)) {
	buyer := testutil.BuyerKey(t, devnet.Buyer1PrivateKey)
	buyerAddr := crypto.PubkeyToAddress(buyer.PublicKey)
	reqs := x402.PaymentRequirements{Scheme: "exact", Network: "cronos-testnet", PayTo: sellerAddr,
		Asset: devnet.TokenAddress.Hex(), MaxAmountRequired: "29", MaxTimeoutSeconds: 300,
		Extra: &x402.DomainInfo{Name: devnet.TokenName, Version: devnet.TokenVersion}}
	balances := func() (*big.Int, *big.Int) {
		ctx := context.Background()
		b, err := chain.BalanceOf(ctx, buyerAddr)
		if err != nil {
			t.Fatal(err)
		}
		s, err := chain.BalanceOf(ctx, common.HexToAddress(sellerAddr))
		if err != nil {
			t.Fatal(err)
		}
		return b, s
	}
	return buyer, reqs, balances
}
