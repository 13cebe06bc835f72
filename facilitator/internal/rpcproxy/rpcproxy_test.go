package rpcproxy

import (
	"context"
	"errors"
	"net"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/caddy-x402/caddy-x402/facilitator/devnet"
)

func chainID(cl *rpc.Client) (uint64, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var id hexutil.Uint64
	err := cl.CallContext(ctx, &id, "eth_chainId")
	return uint64(id), err
}

func TestDownUpDelay(t *testing.T) {
	chain, err := devnet.Start(devnet.Config{Buyers: 1, BlockTime: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer chain.Close()
	p, err := New(chain.RPCURL())
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	url := p.URL()
	if url != "http://"+p.Addr() || url == chain.RPCURL() {
		t.Fatalf("proxy URL %s, addr %s, chain %s", url, p.Addr(), chain.RPCURL())
	}
	cl, err := rpc.DialHTTP(url)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()

	if id, err := chainID(cl); err != nil || id != devnet.ChainID {
		t.Fatalf("through the proxy: chain id %d, %v", id, err)
	}

	// Down: the kept-alive connection is reset and new ones are refused.
	p.Down()
	p.Down() // idempotent
	if _, err := chainID(cl); !errors.Is(err, syscall.ECONNREFUSED) {
		t.Fatalf("while down: %v, want connection refused", err)
	}
	if c, err := net.Dial("tcp", p.Addr()); !errors.Is(err, syscall.ECONNREFUSED) {
		if c != nil {
			c.Close()
		}
		t.Fatalf("dial while down: %v, want connection refused", err)
	}

	// Up: the same URL works again.
	if err := p.Up(); err != nil {
		t.Fatal(err)
	}
	if err := p.Up(); err != nil { // idempotent
		t.Fatal(err)
	}
	if p.URL() != url {
		t.Fatalf("URL changed to %s", p.URL())
	}
	if runtime.GOOS == "linux" {
		p.mu.Lock()
		held := p.reserve != nil
		p.mu.Unlock()
		if !held {
			t.Fatal("the reservation did not share the port with the listener")
		}
	}
	if id, err := chainID(cl); err != nil || id != devnet.ChainID {
		t.Fatalf("after Up: chain id %d, %v", id, err)
	}

	// SetDelay: a request on the kept-alive connection lags.
	const d = 300 * time.Millisecond
	p.SetDelay(d)
	start := time.Now()
	if _, err := chainID(cl); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took < d {
		t.Fatalf("delayed request took %s, want at least %s", took, d)
	}

	// Down resets a request in flight at once.
	p.SetDelay(time.Minute)
	errc := make(chan error, 1)
	go func() {
		_, err := chainID(cl)
		errc <- err
	}()
	time.Sleep(100 * time.Millisecond)
	start = time.Now()
	p.Down()
	select {
	case err := <-errc:
		if err == nil {
			t.Fatal("request in flight succeeded across Down")
		}
		if time.Since(start) > 5*time.Second {
			t.Fatalf("request in flight failed only after %s", time.Since(start))
		}
		t.Logf("request in flight: %v", err)
	case <-time.After(10 * time.Second):
		t.Fatal("request in flight not failed by Down")
	}
	p.SetDelay(0)
	if err := p.Up(); err != nil {
		t.Fatal(err)
	}
	if id, err := chainID(cl); err != nil || id != devnet.ChainID {
		t.Fatalf("after second Up: chain id %d, %v", id, err)
	}

	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if err := p.Close(); err != nil { // idempotent
		t.Fatal(err)
	}
	if err := p.Up(); err == nil {
		t.Fatal("Up after Close succeeded")
	}
	if _, err := chainID(cl); err == nil {
		t.Fatal("request after Close succeeded")
	}
}

func TestTargets(t *testing.T) {
	for target, want := range map[string]string{
		"127.0.0.1:8545":         "127.0.0.1:8545",
		"http://127.0.0.1:8545":  "127.0.0.1:8545",
		"http://127.0.0.1:8545/": "127.0.0.1:8545",
		"http://localhost":       "localhost:80",
		"http://[::1]:8545":      "[::1]:8545",
	} {
		if got, err := parseTarget(target); err != nil || got != want {
			t.Errorf("parseTarget(%q) = %q, %v; want %q", target, got, err, want)
		}
	}
	for _, target := range []string{"", "127.0.0.1", "https://127.0.0.1:8545", "http://127.0.0.1:8545/rpc", "ws://127.0.0.1:8546", "127.0.0.1:x", ":8545"} {
		if _, err := New(target); err == nil {
			t.Errorf("New(%q) succeeded", target)
		}
	}
}

// proxied starts a devnet with buyers funded accounts and no blocks of
// its own, a proxy in front of it and a JSON-RPC client of the proxy; all
// three end with the test.
func proxied(t *testing.T, buyers int) (*devnet.Chain, *Proxy, *rpc.Client) {
	t.Helper()
	chain, err := devnet.Start(devnet.Config{Buyers: buyers, BlockTime: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { chain.Close() })
	p, err := New(chain.RPCURL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	cl, err := rpc.Dial(p.URL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return chain, p, cl
}

// TestLoseReplyTo: a marked request reaches the node but its reply is
// lost (the client sees its connection reset); other requests and the
// next marked one are answered.
func TestLoseReplyTo(t *testing.T) {
	_, p, cl := proxied(t, 1)
	p.LoseReplyTo("eth_chainId", 1)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var head hexutil.Uint64
	if err := cl.CallContext(ctx, &head, "eth_blockNumber"); err != nil {
		t.Fatalf("an unmarked request: %v", err)
	}
	if _, err := chainID(cl); err == nil {
		t.Fatal("the marked request was answered; want its reply lost")
	}
	if id, err := chainID(cl); err != nil || id != devnet.ChainID {
		t.Fatalf("the next marked request = %d, %v", id, err)
	}
}

// TestFailures: calls of a chosen method, alone or inside a batch, are
// answered by the proxy with a JSON-RPC error object while the other calls
// of the batch are answered by the node, in the batch's order; FailCalls
// picks calls by their params, FailInBatch fails one call of one batch
// once, and ClearFailures ends them.
func TestFailures(t *testing.T) {
	chain, p, cl := proxied(t, 2)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	wantErr := func(what string, err error, code int, msg string) {
		t.Helper()
		var re rpc.Error
		if !errors.As(err, &re) || re.ErrorCode() != code || re.Error() != msg {
			t.Fatalf("%s: %v, want JSON-RPC error %d %q", what, err, code, msg)
		}
	}
	var head hexutil.Uint64
	if err := cl.CallContext(ctx, &head, "eth_blockNumber"); err != nil {
		t.Fatal(err)
	}

	p.FailMethod("eth_blockNumber", -32000, "header not found")
	var n hexutil.Uint64
	wantErr("eth_blockNumber", cl.CallContext(ctx, &n, "eth_blockNumber"), -32000, "header not found")
	if id, err := chainID(cl); err != nil || id != devnet.ChainID {
		t.Fatalf("eth_chainId while eth_blockNumber fails: %d, %v", id, err)
	}
	var id1, id2 hexutil.Uint64
	batch := []rpc.BatchElem{
		{Method: "eth_chainId", Result: &id1},
		{Method: "eth_blockNumber", Result: &n},
		{Method: "eth_chainId", Result: &id2},
	}
	if err := cl.BatchCallContext(ctx, batch); err != nil {
		t.Fatal(err)
	}
	wantErr("eth_blockNumber in a batch", batch[1].Error, -32000, "header not found")
	if batch[0].Error != nil || batch[2].Error != nil || id1 != devnet.ChainID || id2 != devnet.ChainID {
		t.Fatalf("the other calls of the batch: %v %v, %d %d", batch[0].Error, batch[2].Error, id1, id2)
	}
	// A batch the proxy answers whole.
	batch = []rpc.BatchElem{{Method: "eth_blockNumber", Result: &n}, {Method: "eth_blockNumber", Result: &n}}
	if err := cl.BatchCallContext(ctx, batch); err != nil {
		t.Fatal(err)
	}
	wantErr("first of two", batch[0].Error, -32000, "header not found")
	wantErr("second of two", batch[1].Error, -32000, "header not found")
	if got := p.Calls("eth_blockNumber"); got != 5 {
		t.Fatalf("Calls(eth_blockNumber) = %d, want 5", got)
	}
	if got := len(p.Failed()); got != 4 {
		t.Fatalf("%d failed calls, want 4", got)
	}
	p.ClearFailures()
	if err := cl.CallContext(ctx, &n, "eth_blockNumber"); err != nil || n != head {
		t.Fatalf("eth_blockNumber after ClearFailures: %d, %v", n, err)
	}

	// FailCalls: only the balance of the first buyer.
	a, b := chain.Buyers()[0].Address, chain.Buyers()[1].Address
	p.FailCalls("eth_getBalance", strings.ToLower(a.Hex()), -32000, "missing trie node")
	var bal hexutil.Big
	wantErr("balance of a", cl.CallContext(ctx, &bal, "eth_getBalance", a, "latest"), -32000, "missing trie node")
	if err := cl.CallContext(ctx, &bal, "eth_getBalance", b, "latest"); err != nil || bal.ToInt().Sign() <= 0 {
		t.Fatalf("balance of b: %s, %v", bal.ToInt(), err)
	}
	p.ClearFailures()

	// FailInBatch: not single calls, not a batch with nothing after the
	// index; then the call at the index, once.
	p.FailInBatch("eth_getBalance", 1, -32000, "txpool is full")
	balances := func(k int) []rpc.BatchElem {
		el := make([]rpc.BatchElem, k)
		for i := range el {
			el[i] = rpc.BatchElem{Method: "eth_getBalance", Args: []any{b, "latest"}, Result: new(hexutil.Big)}
		}
		if err := cl.BatchCallContext(ctx, el); err != nil {
			t.Fatal(err)
		}
		return el
	}
	if err := cl.CallContext(ctx, &bal, "eth_getBalance", b, "latest"); err != nil {
		t.Fatalf("single call: %v", err)
	}
	for _, el := range balances(2) {
		if el.Error != nil {
			t.Fatalf("batch of two: %v", el.Error)
		}
	}
	before := len(p.Failed())
	el := balances(3)
	wantErr("second of three", el[1].Error, -32000, "txpool is full")
	if el[0].Error != nil || el[2].Error != nil || el[2].Result.(*hexutil.Big).ToInt().Sign() <= 0 {
		t.Fatalf("first and third of three: %v %v", el[0].Error, el[2].Error)
	}
	if f := p.Failed(); len(f) != before+1 || f[before].Method != "eth_getBalance" || !strings.Contains(string(f[before].Params), strings.ToLower(b.Hex())) || f[before].Code != -32000 {
		t.Fatalf("Failed() = %+v", f)
	}
	for _, el := range balances(3) {
		if el.Error != nil {
			t.Fatalf("the next batch of three: %v", el.Error)
		}
	}
}

// TestHold: a held method waits in the proxy until Release; other calls
// go on meanwhile.
func TestHold(t *testing.T) {
	_, p, cl := proxied(t, 1)
	p.Hold("eth_blockNumber")
	errc := make(chan error, 1)
	go func() {
		var n hexutil.Uint64
		errc <- cl.CallContext(context.Background(), &n, "eth_blockNumber")
	}()
	deadline := time.Now().Add(10 * time.Second)
	for p.Calls("eth_blockNumber") == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the held call did not reach the proxy")
		}
		time.Sleep(time.Millisecond)
	}
	if id, err := chainID(cl); err != nil || id != devnet.ChainID {
		t.Fatalf("eth_chainId during the hold: %d, %v", id, err)
	}
	select {
	case err := <-errc:
		t.Fatalf("the held call returned before Release: %v", err)
	case <-time.After(200 * time.Millisecond):
	}
	p.Release()
	select {
	case err := <-errc:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the held call did not return after Release")
	}
}
