package facilitator_test

import (
	"bufio"
	"context"
	"crypto/ecdsa"
	"encoding/hex"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/caddy-x402/caddy-x402/facilitator"
	"github.com/caddy-x402/caddy-x402/facilitator/evm"
	"github.com/caddy-x402/caddy-x402/facilitator/exact"
	"github.com/caddy-x402/caddy-x402/facilitator/httpapi"
	"github.com/caddy-x402/caddy-x402/facilitator/network"
	"github.com/caddy-x402/caddy-x402/facilitator/store"
	"github.com/caddy-x402/caddy-x402/facilitator/store/bolt"
	"github.com/caddy-x402/caddy-x402/facilitator/store/postgres"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// The crash test runs the facilitator as a child process (this test
// binary, re-executed with X402_CHILD set) against the dev chain served
// over JSON-RPC by the test process, kills it with SIGKILL during a burst
// of settles, restarts it on the same journal and checks the journal
// against the chain.

const childEnv = "X402_CHILD"

// runChild is the child's main: a facilitator on a loopback port, its
// address printed on stdout, until killed.
func runChild() int {
	nc, _ := network.Builtin(network.CronosTestnet)
	nc.RPCURLs = []string{os.Getenv("X402_CHILD_RPC")}
	for _, hexKey := range strings.Split(os.Getenv("X402_CHILD_KEY"), ",") {
		key, err := evm.ParseKey(hexKey)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		nc.SignerKeys = append(nc.SignerKeys, key)
	}
	cfg := facilitator.Config{
		Networks:           []network.Config{nc},
		JournalPath:        os.Getenv("X402_CHILD_JOURNAL"),
		ReplaceAfterBlocks: 3,
		Logger:             testLogger(),
	}
	if d, err := time.ParseDuration(os.Getenv("X402_CHILD_SETTLE_TIMEOUT")); err == nil {
		cfg.SettleTimeout = d
	}
	cfg.SerialSettle = os.Getenv("X402_CHILD_SERIAL") != ""
	if os.Getenv("X402_CHILD_QUIET") != "" {
		cfg.Logger = nil
	}
	if dsn := os.Getenv("X402_CHILD_POSTGRES"); dsn != "" {
		// One instance of several on a shared PostgreSQL store.
		p, err := postgres.Open(context.Background(), dsn, postgres.Options{})
		if err != nil {
			fmt.Fprintln(os.Stderr, "postgres:", err)
			return 1
		}
		defer p.Close()
		cfg.Journal, cfg.JournalPath = p.Journal(), ""
	}
	f, err := facilitator.New(context.Background(), cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "facilitator:", err)
		return 1
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Printf("READY http://%s\n", ln.Addr())
	_ = http.Serve(ln, httpapi.New(f, httpapi.Config{NoRateLimits: true}))
	return 0
}

type child struct {
	cmd *exec.Cmd
	url string
}

func startChild(t testing.TB, key *ecdsa.PrivateKey, journal string, env ...string) *child {
	t.Helper()
	return startChildOn(t, chain.RPCURL(), []*ecdsa.PrivateKey{key}, journal, env...)
}

// startChildOn starts a facilitator child on the node at rpcURL with the
// given signer keys; env adds X402_CHILD_* settings.
func startChildOn(t testing.TB, rpcURL string, keys []*ecdsa.PrivateKey, journal string, env ...string) *child {
	t.Helper()
	hexKeys := make([]string, len(keys))
	for i, k := range keys {
		hexKeys[i] = hex.EncodeToString(crypto.FromECDSA(k))
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$", "-test.bench=^$")
	cmd.Env = append(os.Environ(), childEnv+"=1",
		"X402_CHILD_KEY="+strings.Join(hexKeys, ","),
		"X402_CHILD_RPC="+rpcURL,
		"X402_CHILD_JOURNAL="+journal)
	cmd.Env = append(cmd.Env, env...)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ready := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if u, ok := strings.CutPrefix(sc.Text(), "READY "); ok {
				ready <- u
			}
		}
	}()
	select {
	case u := <-ready:
		return &child{cmd: cmd, url: u}
	case <-time.After(60 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatal("the facilitator child did not start")
	}
	return nil
}

// cpu is the CPU time (user and system) the child has used so far, read
// from /proc; 0 where there is no /proc.
func (c *child) cpu() time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", c.cmd.Process.Pid))
	if err != nil {
		return 0
	}
	s := string(b)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	var utime, stime int64
	fmt.Sscan(fields[11], &utime)
	fmt.Sscan(fields[12], &stime)
	return time.Duration(utime+stime) * time.Second / 100 // USER_HZ is 100 on Linux
}

func (c *child) kill() {
	_ = c.cmd.Process.Signal(syscall.SIGKILL)
	_, _ = c.cmd.Process.Wait()
}

func (c *child) pending(t *testing.T) int {
	return networkHealth(t, c.url).PendingSettlements
}

func TestCrashRecovery(t *testing.T) {
	if testing.Short() {
		t.Skip("crash test skipped in -short mode")
	}
	// Killing at the first broadcast catches settlements never journaled;
	// killing later catches a group journaled and part sent.
	for _, killAt := range []uint64{1, 12} {
		t.Run(fmt.Sprintf("kill after %d sent", killAt), func(t *testing.T) { crashRecovery(t, killAt) })
	}
}

func crashRecovery(t *testing.T, killAt uint64) {
	const burst, price = 40, 1000
	ctx := context.Background()
	key := newSignerKey(t, chain)
	signer := crypto.PubkeyToAddress(key.PublicKey)
	seller := newSeller(t)
	req := requirements(seller, fmt.Sprint(price))
	b := newBuyer(t, chain, (burst+3)*price)
	journal := t.TempDir() + "/journal.db"
	startBlock, err := chain.Client().BlockNumber(ctx)
	if err != nil {
		t.Fatal(err)
	}

	c1 := startChild(t, key, journal)
	// Hold blocks back so the kill finds settlements broadcast and not yet
	// mined, journaled and not yet sent, and not yet journaled.
	chain.PauseMining()
	bodies := make([][]byte, burst)
	for i := range bodies {
		h, _ := pay(t, b, req, exact.PaymentOptions{})
		bodies[i] = body(h, req)
	}
	var wg sync.WaitGroup
	for i := range bodies {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := http.Post(c1.url+x402.PathSettle, "application/json", strings.NewReader(string(bodies[i])))
			if err == nil {
				r.Body.Close()
			}
		}()
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		n, err := chain.Client().PendingNonceAt(ctx, signer)
		if err != nil {
			t.Fatal(err)
		}
		if n >= killAt || time.Now().After(deadline) {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	c1.kill()
	wg.Wait()
	inPool, _ := chain.Client().PendingNonceAt(ctx, signer)
	jb, err := bolt.OpenJournal(journal)
	if err != nil {
		t.Fatal(err)
	}
	atKill, _ := jb.Pending()
	jb.Close()
	t.Logf("killed with %d settlements journaled as pending, %d transactions in the pool", len(atKill), inPool)
	chain.ResumeMining()

	c2 := startChild(t, key, journal)
	defer func() { c2.kill() }()
	deadline = time.Now().Add(60 * time.Second)
	for c2.pending(t) > 0 {
		if time.Now().After(deadline) {
			t.Fatal("pending settlements from the journal were not reconciled within 60 s")
		}
		time.Sleep(100 * time.Millisecond)
	}

	// New settles succeed straight away, and so does a retry of every
	// payment of the burst that was never journaled.
	for range 3 {
		h, _ := pay(t, b, req, exact.PaymentOptions{})
		var s x402.SettleResponse
		if status := postWithURL(t, http.DefaultClient, c2.url+x402.PathSettle, body(h, req), &s); status != 200 || !s.Settled() {
			t.Fatalf("settle after restart = %d %+v", status, s)
		}
	}
	var mu sync.Mutex
	retried := 0
	for _, bd := range bodies {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var s x402.SettleResponse
			status := postWithURL(t, http.DefaultClient, c2.url+x402.PathSettle, bd, &s)
			switch {
			case status == 200 && s.Settled():
				mu.Lock()
				retried++
				mu.Unlock()
			case status == 200 && s.Error == x402.ErrTextAlreadyUsed:
			default:
				t.Errorf("retry of a burst payment = %d %+v", status, s)
			}
		}()
	}
	wg.Wait()
	c2.kill()

	// Every transaction the signer sent is in the journal; no record is
	// left pending; no authorization is settled twice; balances add up.
	j, err := bolt.OpenJournal(journal)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if p, err := j.Pending(); err != nil || len(p) != 0 {
		t.Fatalf("journal still has %d pending records (%v)", len(p), err)
	}
	head, _ := chain.Client().BlockNumber(ctx)
	txSigner := types.LatestSignerForChainID(chain.ChainID())
	successes := map[string]int{}
	sent := 0
	for n := startBlock + 1; n <= head; n++ {
		blk, err := chain.Client().BlockByNumber(ctx, new(big.Int).SetUint64(n))
		if err != nil {
			t.Fatal(err)
		}
		for _, tx := range blk.Transactions() {
			from, _ := types.Sender(txSigner, tx)
			if from != signer {
				continue
			}
			sent++
			rec, err := j.ByTx(tx.Hash().Hex())
			if err != nil {
				t.Fatalf("transaction %s of the signer is not in the journal: %v", tx.Hash().Hex(), err)
			}
			r, err := chain.Client().TransactionReceipt(ctx, tx.Hash())
			if err != nil {
				t.Fatal(err)
			}
			if r.Status == 1 {
				successes[rec.ID]++
				if rec.Status != store.StatusSettled || !strings.EqualFold(rec.TxHash, tx.Hash().Hex()) {
					t.Fatalf("record %s is %s (tx %s) but transaction %s succeeded", rec.ID, rec.Status, rec.TxHash, tx.Hash().Hex())
				}
			}
		}
	}
	for id, n := range successes {
		if n > 1 {
			t.Fatalf("authorization %s settled %d times", id, n)
		}
	}
	latest, _ := chain.Client().NonceAt(ctx, signer, nil)
	pendingNonce, _ := chain.Client().PendingNonceAt(ctx, signer)
	if latest != pendingNonce {
		t.Fatalf("signer has a nonce gap or stuck transactions: latest %d, pending %d", latest, pendingNonce)
	}
	settled := int64(len(successes))
	if got := balance(t, seller); got.Cmp(big.NewInt(settled*price)) != 0 {
		t.Fatalf("seller balance %s, want %d for %d settled authorizations", got, settled*price, settled)
	}
	if settled != burst+3 {
		t.Fatalf("%d authorizations settled, want all %d (burst, retries and new ones)", settled, burst+3)
	}
	t.Logf("signer sent %d transactions; %d settled from the burst before or during recovery, %d on retry", sent, burst-retried, retried)
}
