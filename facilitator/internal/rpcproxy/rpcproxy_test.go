package rpcproxy

import (
	"context"
	"errors"
	"net"
	"runtime"
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

// TestLoseReplyTo: a marked request reaches the node but its reply is
// lost (the client sees its connection reset); other requests and the
// next marked one are answered.
func TestLoseReplyTo(t *testing.T) {
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
	cl, err := rpc.Dial(p.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
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
