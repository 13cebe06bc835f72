package caddymodule

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/caddy-x402/caddy-x402/facilitator"
	"github.com/caddy-x402/caddy-x402/facilitator/devnet"
)

// rpcCounter is a reverse proxy in front of the devnet's JSON-RPC that
// counts the calls going through it by method (batches count each call).
type rpcCounter struct {
	*httptest.Server
	mu    sync.Mutex
	calls map[string]int
	down  atomic.Bool // connections are cut without an answer
}

func newRPCCounter(t testing.TB, target string) *rpcCounter {
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	c := &rpcCounter{calls: map[string]int{}}
	proxy := httputil.NewSingleHostReverseProxy(u)
	c.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if c.down.Load() {
			if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
				conn.Close()
			}
			return
		}
		// Credentials a provider would want in the URL go no further.
		r.URL.Path, r.URL.RawQuery = "/", ""
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		var one struct{ Method string }
		var batch []struct{ Method string }
		c.mu.Lock()
		if json.Unmarshal(body, &batch) == nil {
			for _, m := range batch {
				c.calls[m.Method]++
			}
		} else if json.Unmarshal(body, &one) == nil {
			c.calls[one.Method]++
		}
		c.mu.Unlock()
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(c.Close)
	return c
}

// count returns the calls of method so far.
func (c *rpcCounter) count(method string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.calls[method]
}

// TestPaywallCostLimits measures the RPC calls a bogus payment costs the
// seller: a validly signed authorization from a payer without tokens,
// which verify refuses after simulating the transfer. The paywall's
// network reaches the devnet through a counting proxy.
func TestPaywallCostLimits(t *testing.T) {
	rpc := newRPCCounter(t, devnetURL)
	tester := newTester(t, globalBlock(meteredNetwork(rpc))+fmt.Sprintf(`
:%d {
	x402 /unguarded {
		pay_to %s
		amount 1000
		network metered
		refusal_cache off
		attempt_limit off
	}
	x402 /guarded {
		pay_to %s
		amount 1000
		network metered
	}
	x402 /limited {
		pay_to %s
		amount 1000
		network metered
		attempt_limit 2 1m
		refusal_cache off
	}
	respond "paid"
}
`, sitePort, sellerAddr, sellerAddr, sellerAddr))

	// A payer with gas money but no tokens: the signature is good, the
	// simulated transfer reverts.
	bogus := func(t *testing.T, path string) string {
		key, err := crypto.GenerateKey()
		if err != nil {
			t.Fatal(err)
		}
		reqs := require402(t, tester, siteURL+path).PaymentRequirements
		h, _, err := facilitator.CreatePayment(key, reqs, facilitator.PaymentOptions{ChainID: big.NewInt(devnet.ChainID)})
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	const n = 5
	// perRequest sends the same header n times and returns the eth_calls
	// of the first request and of each later one, on average.
	perRequest := func(t *testing.T, path string) (first int, later float64) {
		header := bogus(t, path)
		before := rpc.count("eth_call")
		for i := 0; i < n; i++ {
			resp, b := get(t, tester, siteURL+path, map[string]string{"X-Payment": header})
			var out body402
			_ = json.Unmarshal(b, &out)
			if resp.StatusCode != http.StatusPaymentRequired || out.Error != facilitator.ErrTextInsufficientFunds {
				t.Fatalf("bogus payment %d: status %d error %q, want 402 %q", i+1, resp.StatusCode, out.Error, facilitator.ErrTextInsufficientFunds)
			}
			if i == 0 {
				first = rpc.count("eth_call") - before
			}
		}
		return first, float64(rpc.count("eth_call")-before-first) / (n - 1)
	}

	firstOff, laterOff := perRequest(t, "/unguarded")
	firstOn, laterOn := perRequest(t, "/guarded")
	t.Logf("eth_call per bogus request: without the refusal cache %d, then %.1f per repeat; with it %d, then %.1f per repeat",
		firstOff, laterOff, firstOn, laterOn)
	if firstOff == 0 || laterOff != float64(firstOff) {
		t.Errorf("without the cache every request should cost the same eth_calls: first %d, repeats %.1f", firstOff, laterOff)
	}
	if firstOn != firstOff || laterOn != 0 {
		t.Errorf("with the cache: first %d (want %d), repeats %.1f (want 0)", firstOn, firstOff, laterOn)
	}

	// Different authorizations from one client: two reach the
	// facilitator, the third is refused with 429 at no RPC cost.
	for i := 1; i <= 3; i++ {
		header := bogus(t, "/limited")
		before := rpc.count("eth_call")
		resp, b := get(t, tester, siteURL+"/limited", map[string]string{"X-Payment": header})
		cost := rpc.count("eth_call") - before
		if i <= 2 {
			if resp.StatusCode != http.StatusPaymentRequired || cost == 0 {
				t.Errorf("attempt %d: status %d, %d eth_calls; want 402 after a verify", i, resp.StatusCode, cost)
			}
			continue
		}
		var out struct {
			Error             string `json:"error"`
			RetryAfterSeconds int    `json:"retryAfterSeconds"`
		}
		if err := json.Unmarshal(b, &out); err != nil {
			t.Fatalf("429 body is not JSON: %s", b)
		}
		ra, _ := strconv.Atoi(resp.Header.Get("Retry-After"))
		if resp.StatusCode != http.StatusTooManyRequests || ra < 1 || ra > 30 || out.RetryAfterSeconds != ra ||
			out.Error == "" || cost != 0 {
			t.Errorf("attempt 3: status %d Retry-After %q body %s, %d eth_calls; want 429, Retry-After 1..30, a JSON reason, no RPC",
				resp.StatusCode, resp.Header.Get("Retry-After"), b, cost)
		}
	}
	// Paying buyers on other routes are not affected.
	resp, _ := get(t, tester, siteURL+"/guarded", nil)
	if resp.StatusCode != http.StatusPaymentRequired {
		t.Errorf("unpaid request on another route: %d", resp.StatusCode)
	}
}

func TestRefusalCache(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	c := &refusalCache{ttl: 30 * time.Second, max: 4, now: func() time.Time { return now }, m: map[[32]byte]refusal{}}
	pay := func(nonce byte, validAfter int64) *facilitator.Payment {
		p := &facilitator.Payment{Network: "n", Scheme: "exact", Signature: []byte{1, 2, 3}}
		p.Authorization.Nonce[0] = nonce
		p.Authorization.Value = big.NewInt(10)
		p.Authorization.ValidAfter = big.NewInt(validAfter)
		p.Authorization.ValidBefore = big.NewInt(now.Unix() + 300)
		return p
	}
	a, b := pay(1, 0), pay(2, now.Unix()+10) // b becomes valid in 10 s
	c.put(refusalKey(a), a, "no money")
	c.put(refusalKey(b), b, "not yet valid")
	other := pay(1, 0)
	other.Signature = []byte{9}
	tests := []struct {
		name    string
		advance time.Duration
		p       *facilitator.Payment
		want    string
		ok      bool
	}{
		{"cached", 0, a, "no money", true},
		{"same payer and nonce, another signature", 0, other, "", false},
		{"not yet valid, still", 9 * time.Second, b, "not yet valid", true},
		{"valid now: asked again", 1 * time.Second, b, "", false},
		{"still cached", 19 * time.Second, a, "no money", true},
		{"expired", time.Second, a, "", false},
	}
	for _, tt := range tests {
		now = now.Add(tt.advance)
		got, ok := c.get(refusalKey(tt.p))
		if got != tt.want || ok != tt.ok {
			t.Errorf("%s: get = %q, %v; want %q, %v", tt.name, got, ok, tt.want, tt.ok)
		}
	}
	// Bounded: a full cache makes room.
	for i := byte(10); i < 30; i++ {
		p := pay(i, 0)
		c.put(refusalKey(p), p, "x")
	}
	if len(c.m) > 4 {
		t.Errorf("cache holds %d refusals, max 4", len(c.m))
	}
}
