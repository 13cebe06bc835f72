package paywall

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/caddy-x402/caddy-x402/caddymodule/internal/httpx"
	"github.com/caddy-x402/caddy-x402/caddymodule/internal/testutil"
	"github.com/caddy-x402/caddy-x402/facilitator/devnet"
	"github.com/caddy-x402/caddy-x402/facilitator/exact"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// TestPaywallCostLimits measures the RPC calls a bogus payment costs the
// seller: a validly signed authorization from a payer without tokens,
// which verify refuses after simulating the transfer. The paywall's
// network reaches the devnet through a counting proxy.
func TestPaywallCostLimits(t *testing.T) {
	rpc := testutil.NewRPCCounter(t, testutil.DevnetURL)
	tester := testutil.NewTester(t, testutil.GlobalBlock(testutil.MeteredNetwork(rpc))+fmt.Sprintf(`
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
`, testutil.SitePort, testutil.SellerAddr, testutil.SellerAddr, testutil.SellerAddr))

	// A payer with gas money but no tokens: the signature is good, the
	// simulated transfer reverts.
	bogus := func(t *testing.T, path string) string {
		key, err := crypto.GenerateKey()
		if err != nil {
			t.Fatal(err)
		}
		reqs := testutil.Require402(t, tester, testutil.SiteURL+path).PaymentRequirements
		h, _, err := exact.CreatePayment(key, reqs, exact.PaymentOptions{ChainID: big.NewInt(devnet.ChainID)})
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
		before := rpc.Count("eth_call")
		for i := 0; i < n; i++ {
			resp, b := testutil.Get(t, tester, testutil.SiteURL+path, map[string]string{"X-Payment": header})
			var out testutil.Body402
			_ = json.Unmarshal(b, &out)
			if resp.StatusCode != http.StatusPaymentRequired || out.Error != x402.ErrTextInsufficientFunds {
				t.Fatalf("bogus payment %d: status %d error %q, want 402 %q", i+1, resp.StatusCode, out.Error, x402.ErrTextInsufficientFunds)
			}
			if i == 0 {
				first = rpc.Count("eth_call") - before
			}
		}
		return first, float64(rpc.Count("eth_call")-before-first) / (n - 1)
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
		before := rpc.Count("eth_call")
		resp, b := testutil.Get(t, tester, testutil.SiteURL+"/limited", map[string]string{"X-Payment": header})
		cost := rpc.Count("eth_call") - before
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
	resp, _ := testutil.Get(t, tester, testutil.SiteURL+"/guarded", nil)
	if resp.StatusCode != http.StatusPaymentRequired {
		t.Errorf("unpaid request on another route: %d", resp.StatusCode)
	}
}

func TestRefusalCache(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	// The caches' sweep timers read this fake clock too; it moves an hour
	// on at the end, so that they empty the caches and stop.
	var clockMu sync.Mutex
	clock := func() time.Time { clockMu.Lock(); defer clockMu.Unlock(); return now }
	advance := func(d time.Duration) { clockMu.Lock(); now = now.Add(d); clockMu.Unlock() }
	t.Cleanup(func() { advance(time.Hour) })
	c := newRefusalCache(30*time.Second, 4, 1<<20, clock)
	pay := func(nonce byte, validAfter int64) *x402.Payment {
		p := &x402.Payment{Network: "n", Scheme: "exact", Signature: []byte{1, 2, 3}}
		p.Authorization.Nonce[0] = nonce
		p.Authorization.Value = big.NewInt(10)
		p.Authorization.ValidAfter = big.NewInt(validAfter)
		p.Authorization.ValidBefore = big.NewInt(now.Unix() + 300)
		return p
	}
	a, b := pay(1, 0), pay(2, now.Unix()+10) // b becomes valid in 10 s
	c.put(refusalKey(a, "10000"), a, "no money")
	c.put(refusalKey(b, "10000"), b, "not yet valid")
	other := pay(1, 0)
	other.Signature = []byte{9}
	tests := []struct {
		name    string
		advance time.Duration
		p       *x402.Payment
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
		advance(tt.advance)
		got, ok := c.get(refusalKey(tt.p, "10000"))
		if got != tt.want || ok != tt.ok {
			t.Errorf("%s: get = %q, %v; want %q, %v", tt.name, got, ok, tt.want, tt.ok)
		}
	}
	// Bounded: a full cache makes room.
	for i := byte(10); i < 30; i++ {
		p := pay(i, 0)
		c.put(refusalKey(p, "10000"), p, "x")
	}
	if len(c.m) > 4 {
		t.Errorf("cache holds %d refusals, max 4", len(c.m))
	}

	// Bounded in bytes: reasons of the buyer's choosing are kept cut, and
	// the cache makes room before it would exceed its bytes.
	sized := newRefusalCache(30*time.Second, 10_000, 64<<10, clock)
	long := strings.Repeat("é", 6000) // 12,000 bytes
	for i := 0; i < 2000; i++ {
		p := pay(byte(i), 0)
		p.Authorization.Nonce[1] = byte(i >> 8)
		sized.put(refusalKey(p, "10000"), p, "Unsupported network: "+long)
	}
	p := pay(0, 0)
	p.Authorization.Nonce[2] = 1
	sized.put(refusalKey(p, "10000"), p, "Unsupported network: "+long)
	want := "Unsupported network: " + strings.Repeat("é", 117) + "…" // 21 + 234 bytes, cut on a rune
	if got, ok := sized.get(refusalKey(p, "10000")); !ok || got != want {
		t.Errorf("a long reason came back as %q, %v; want %q", got, ok, want)
	}
	held := 0
	for _, r := range sized.m {
		held += len(r.reason) + refusalEntryBytes
	}
	if held > 64<<10 || held != sized.bytes || len(sized.m) < 100 {
		t.Errorf("%d refusals of %d bytes held (counted %d), want at most 64 KiB and some hundreds", len(sized.m), held, sized.bytes)
	}
}

// activePaywalls returns the x402 handlers of the running config.
func activePaywalls(t *testing.T) []*Handler {
	t.Helper()
	app, err := caddy.ActiveContext().App("http")
	if err != nil {
		t.Fatal(err)
	}
	var out []*Handler
	var walk func(caddyhttp.RouteList)
	walk = func(routes caddyhttp.RouteList) {
		for _, r := range routes {
			for _, mh := range r.Handlers {
				switch h := mh.(type) {
				case *Handler:
					out = append(out, h)
				case *caddyhttp.Subroute:
					walk(h.Routes)
				}
			}
		}
	}
	for _, s := range app.(*caddyhttp.App).Servers {
		walk(s.Routes)
	}
	return out
}

// refusalsHeld counts the refusals a paywall's cache holds, expired or not.
func refusalsHeld(h *Handler) int {
	c := h.core.attempts.refused
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.m)
}

// heapInUse is the live heap after a full collection.
func heapInUse() uint64 {
	var m runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// TestRefusalFlood floods eight paywall routes of a real Caddy, with the
// embedded facilitator, with 100,000 payments that need no signature: each
// names a network of 11,000 characters of the buyer's choosing, different
// every time, and comes from a client IP of its own (X-Forwarded-For from
// a trusted proxy, as an attacker with an IPv6 prefix could). Every one is
// refused "Unsupported network" by verify and lands in the route's refusal
// cache (default TTL, 30 s) and attempt limiter. The heap must grow by
// less than 50 MB, the answers must repeat at most 80 bytes of the
// network, and once the refusals expired (swept every 5 s) they must be
// gone, and their memory with them, with no further request.
func TestRefusalFlood(t *testing.T) {
	const (
		routes    = 8
		requests  = 100_000
		workers   = 8
		netLen    = 11_000
		maxGrowth = 50 << 20
		// The refusal cache's default TTL, and its sweep interval.
		ttl   = 30 * time.Second
		sweep = 5 * time.Second
	)
	// The attempt limiter's window is 2 s, so that its buckets too are
	// gone well within the wait for the refusals to expire.
	var sites strings.Builder
	for i := 0; i < routes; i++ {
		fmt.Fprintf(&sites, "\tx402 /r%d {\n\t\tpay_to %s\n\t\tamount 1000\n\t\tattempt_limit 1000 2s\n\t}\n", i, testutil.SellerAddr)
	}
	const trust = "\tservers {\n\t\ttrusted_proxies static 127.0.0.1/32\n\t}\n"
	global := strings.Replace(testutil.GlobalBlock(""), "\tskip_install_trust\n", "\tskip_install_trust\n"+trust, 1)
	if !strings.Contains(global, trust) {
		t.Fatal("globalBlock has no skip_install_trust line to put trusted_proxies after")
	}
	tester := testutil.NewTester(t, global+fmt.Sprintf(":%d {\n%s\trespond \"paid\"\n}\n", testutil.SitePort, sites.String()))

	// One validly formed payment, whose network is then replaced: the
	// signature no longer matters, since the network is checked first.
	key, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	header, p, err := exact.CreatePayment(key, testutil.Require402(t, tester, testutil.SiteURL+"/r0").PaymentRequirements,
		exact.PaymentOptions{ChainID: big.NewInt(devnet.ChainID)})
	if err != nil {
		t.Fatal(err)
	}
	raw, err := base64.StdEncoding.DecodeString(header)
	if err != nil {
		t.Fatal(err)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		t.Fatal(err)
	}
	// Each payment has a nonce of its own too: the paywall serves one
	// request per authorization at a time.
	nonce := fmt.Sprintf("%q", "0x"+hex.EncodeToString(p.Authorization.Nonce[:]))
	fields["network"] = json.RawMessage(`"@NETWORK@"`)
	tmpl, _ := json.Marshal(fields)
	tmpl = bytes.Replace(tmpl, []byte(nonce), []byte(`"@NONCE@"`), 1)
	head, rest, _ := bytes.Cut(tmpl, []byte("@NETWORK@"))
	middle, tail, ok := bytes.Cut(rest, []byte("@NONCE@"))
	if !ok {
		t.Fatalf("the payment's nonce %s is not after its network: %s", nonce, tmpl)
	}
	padding := strings.Repeat("x", netLen)
	network := func(i int) string { return fmt.Sprintf("n%07d-", i) + padding[:netLen-9] }
	paymentFor := func(i int) string {
		b := make([]byte, 0, len(head)+netLen+len(middle)+66+len(tail))
		b = append(append(append(b, head...), network(i)...), middle...)
		b = append(append(b, fmt.Sprintf("0x%064x", i)...), tail...)
		return base64.StdEncoding.EncodeToString(b)
	}
	if n := len(paymentFor(0)); n > httpx.MaxPaymentHeaderBytes {
		t.Fatalf("the flood's header has %d bytes, more than the paywall takes", n)
	}

	tr := &http.Transport{MaxIdleConnsPerHost: workers}
	client := &http.Client{Transport: tr, Timeout: 30 * time.Second}
	send := func(i int) (int, testutil.Body402, error) {
		req, _ := http.NewRequest(http.MethodGet, fmt.Sprintf("%s/r%d", testutil.SiteURL, i%routes), nil)
		req.Header.Set("X-Payment", paymentFor(i))
		req.Header.Set("X-Forwarded-For", fmt.Sprintf("2001:db8:%x:%x::1", i>>16, i&0xffff))
		resp, err := client.Do(req)
		if err != nil {
			return 0, testutil.Body402{}, err
		}
		defer resp.Body.Close()
		var out testutil.Body402
		err = json.NewDecoder(resp.Body).Decode(&out)
		return resp.StatusCode, out, err
	}
	// A warm-up request per route, so that what is made once is made
	// before the baseline.
	for i := 0; i < routes; i++ {
		if _, _, err := send(requests + i); err != nil {
			t.Fatal(err)
		}
	}
	before := heapInUse()

	var next, wrong atomic.Int64
	var firstWrong atomic.Value
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= requests {
					return
				}
				status, out, err := send(i)
				want := "Unsupported network: " + network(i)[:80] + "…"
				if err != nil || status != http.StatusPaymentRequired || out.Error != want || out.InvalidReason != want {
					if wrong.Add(1) == 1 {
						firstWrong.Store(fmt.Sprintf("request %d: %d, error %.100q…, %v; want 402 with error and invalidReason %q", i, status, out.Error, err, want))
					}
				}
			}
		})
	}
	wg.Wait()
	tr.CloseIdleConnections()
	flooded := heapInUse()
	held := 0
	paywalls := activePaywalls(t)
	for _, h := range paywalls {
		held += refusalsHeld(h)
	}
	growth := int64(flooded) - int64(before)
	t.Logf("heap %.1f MB before, %.1f MB after %d refused payments over %d routes (+%.1f MB); %d refusals held",
		float64(before)/(1<<20), float64(flooded)/(1<<20), requests, routes, float64(growth)/(1<<20), held)
	if n := wrong.Load(); n > 0 {
		t.Errorf("%d of %d answers were not as expected; the first: %s", n, requests, firstWrong.Load())
	}
	if len(paywalls) != routes {
		t.Fatalf("found %d paywalls in the running config, want %d", len(paywalls), routes)
	}
	if growth >= maxGrowth {
		t.Errorf("the heap grew by %.1f MB, want less than %d MB", float64(growth)/(1<<20), maxGrowth>>20)
	}

	// No request from here on: the sweep timers alone empty the caches,
	// within the TTL plus the sweep interval of the flood's last refusal
	// (the bound given here has 10 s more, for a loaded machine).
	start := time.Now()
	for held > 0 && time.Since(start) < ttl+sweep+10*time.Second {
		time.Sleep(100 * time.Millisecond)
		held = 0
		for _, h := range paywalls {
			held += refusalsHeld(h)
		}
	}
	swept := heapInUse()
	t.Logf("%d refusals held %s after the flood; heap %.1f MB (%+.1f MB from before the flood)",
		held, time.Since(start).Round(100*time.Millisecond), float64(swept)/(1<<20), float64(int64(swept)-int64(before))/(1<<20))
	if held != 0 {
		t.Errorf("%d expired refusals still held %s after the flood", held, time.Since(start).Round(time.Second))
	}
	if g := int64(swept) - int64(before); g >= 10<<20 {
		t.Errorf("the heap is still %.1f MB above its size before the flood once the refusals expired, want less than 10 MB", float64(g)/(1<<20))
	}
}
