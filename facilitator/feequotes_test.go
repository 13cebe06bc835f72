package facilitator_test

import (
	"context"
	"errors"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/caddy-x402/caddy-x402/facilitator"
	"github.com/caddy-x402/caddy-x402/facilitator/exact"
	"github.com/caddy-x402/caddy-x402/facilitator/internal/rpcproxy"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// feeReadMethod is read by a settle's gas price read only (the signers'
// gas check reads eth_gasPrice too): its count through the proxy is the
// number of gas price reads.
const feeReadMethod = "eth_maxPriorityFeePerGas"

// waitCalls waits until the proxy has received n calls of method.
func waitCalls(t *testing.T, proxy *rpcproxy.Proxy, method string, n int) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for proxy.Calls(method) < n {
		if time.Now().After(deadline) {
			t.Fatalf("the node got %d calls of %s, waited for %d", proxy.Calls(method), method, n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// settleBurst starts n settles of distinct authorizations of one buyer
// over HTTP; the channel gets each answer.
func settleBurst(t *testing.T, tf *testFacilitator, req x402.PaymentRequirements, n int) chan x402.SettleResponse {
	t.Helper()
	b := newBuyer(t, chain, int64(n)*100)
	ch := make(chan x402.SettleResponse, n)
	for range n {
		h, _ := pay(t, b, req, exact.PaymentOptions{})
		go func() {
			status, s := tf.settle(t, body(h, req))
			if status != 200 {
				t.Errorf("settle = %d %+v", status, s)
			}
			ch <- s
		}()
	}
	return ch
}

// TestFeeReadShared: on a cold start, a burst of 100 concurrent settles
// reads the gas prices once. The node holds that read until every settle
// has sent its checks, so all of them find it on its way; they wait for it
// instead of reading their own (before: 100 reads, one per settle). All
// settle, and the seller is paid 100 times.
func TestFeeReadShared(t *testing.T) {
	proxy := newProxy(t)
	tf := newTestFacilitator(t, nil, func(c *facilitator.Config) {
		c.Networks[0].RPCURLs = []string{proxy.URL()}
	})
	seller := newSeller(t)
	req := requirements(seller, "100")
	const n = 100

	proxy.Hold(feeReadMethod)
	estimates := proxy.Calls("eth_estimateGas")
	ch := settleBurst(t, tf, req, n)
	waitCalls(t, proxy, "eth_estimateGas", estimates+n)
	proxy.Release()
	for range n {
		awaitSettled(t, ch)
	}
	// One read serves the burst. A settle that reaches its fee quote more
	// than QuoteTTL after that read (the race detector on a loaded
	// machine can stretch a burst of 100 past a second) reads a fresh one,
	// shared again: a few at most, never one per settle (100 before).
	if got := proxy.Calls(feeReadMethod); got < 1 || got > 3 {
		t.Fatalf("%d gas price reads for a burst of %d cold settles, want 1 (up to 3 when the burst outlives a quote)", got, n)
	}
	if got := balance(t, seller); got.Cmp(big.NewInt(n*100)) != 0 {
		t.Fatalf("seller balance %s, want %d", got, n*100)
	}
}

// TestFeeReadFailsRetried: the gas price read that a burst waits for
// fails (its settle gives up while the node holds the read). It is no
// answer for the others: one more read, shared by all of them, brings the
// prices, and all 20 settle (2 reads; before, 21: one each). The settle
// that gave up answers 503 with nothing broadcast.
func TestFeeReadFailsRetried(t *testing.T) {
	proxy := newProxy(t)
	tf := newTestFacilitator(t, nil, func(c *facilitator.Config) {
		c.Networks[0].RPCURLs = []string{proxy.URL()}
	})
	seller := newSeller(t)
	req := requirements(seller, "100")
	const n = 20

	proxy.Hold(feeReadMethod)
	first := newBuyer(t, chain, 100)
	h, _ := pay(t, first, req, exact.PaymentOptions{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	firstErr := make(chan error, 1)
	go func() {
		_, err := tf.f.Settle(ctx, &x402.Request{X402Version: 1, PaymentHeader: h, PaymentRequirements: req})
		firstErr <- err
	}()
	waitCalls(t, proxy, feeReadMethod, 1)
	estimates := proxy.Calls("eth_estimateGas")
	ch := settleBurst(t, tf, req, n)
	waitCalls(t, proxy, "eth_estimateGas", estimates+n)
	cancel() // the read's settle gives up: the read fails
	var se *x402.StatusError
	if err := <-firstErr; !errors.As(err, &se) || se.Status != 503 || !strings.Contains(se.Message, "nothing was broadcast") {
		t.Fatalf("the settle that gave up = %v, want 503 with nothing broadcast", err)
	}
	proxy.Release()
	for range n {
		awaitSettled(t, ch)
	}
	if got := proxy.Calls(feeReadMethod); got != 2 {
		t.Fatalf("%d gas price reads, want 2 (the one that failed, one more for the %d waiting)", got, n)
	}
	if got := balance(t, seller); got.Cmp(big.NewInt(n*100)) != 0 {
		t.Fatalf("seller balance %s, want %d", got, n*100)
	}
	if got := balance(t, first.Address); got.Cmp(big.NewInt(100)) != 0 {
		t.Fatalf("the buyer who gave up has %s, want 100 (nothing moved)", got)
	}
}
