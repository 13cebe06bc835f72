package paywall

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/caddy-x402/caddy-x402/caddymodule/internal/testutil"
	"github.com/caddy-x402/caddy-x402/facilitator/devnet"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// TestCompactedSettlementsDeliver is issue 17, item 3: payments answered
// "Settlement pending" that settled on chain, whose journal records were
// then compacted away (a restart with journal_retention 1s), still get the
// resource on the buyer's retry with the same X-PAYMENT, exactly once each:
// the facilitator answers the look-up from the chain.
func TestCompactedSettlementsDeliver(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Caddy in child processes")
	}
	const payments = 10
	chain, err := devnet.Start(devnet.Config{BlockTime: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { chain.Close() })

	var ran atomic.Int32
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ran.Add(1)
		fmt.Fprint(w, "the resource")
	}))
	t.Cleanup(up.Close)

	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	dir := t.TempDir()
	writeConfig := func(name, retention string) string {
		config := fmt.Sprintf(`{"admin":{"disabled":true},"apps":{
		"x402":{"networks":[{"name":"cronos-testnet","rpc":[%q],"signer_keys":["{env.X402_CRASH_SIGNER}"]}],
			"settle_timeout":1000000000,"journal_retention":%s,"journal":%q,"redemptions":%q},
		"http":{"servers":{"s":{"listen":["127.0.0.1:%d"],"routes":[{"handle":[
			{"handler":"x402_facilitator","no_rate_limits":true},
			{"handler":"x402","pay_to":%q,"amount":"29"},
			{"handler":"reverse_proxy","upstreams":[{"dial":%q}]}]}]}}}}}`,
			chain.RPCURL(), retention, filepath.Join(dir, "journal.db"), filepath.Join(dir, "redemptions.db"), port, testutil.SellerAddr, up.Listener.Addr().String())
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(config), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	c := &crashCaddy{t: t, config: writeConfig("keep.json", "2592000000000000"), url: base + "/paid"}
	c.start()
	t.Cleanup(c.kill)

	buyer, reqs, balances := paidRoute(t, chain, testutil.SellerAddr)
	client := &http.Client{Timeout: 60 * time.Second}
	fetch := func(u, header string) (int, string) {
		req, _ := http.NewRequest(http.MethodGet, u, nil)
		if header != "" {
			req.Header.Set("X-Payment", header)
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Errorf("GET %s: %v", u, err)
			return 0, ""
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}

	headers := make([]string, payments)
	for i := range headers {
		headers[i] = testutil.Pay(t, buyer, reqs)
	}
	buyerBefore, sellerBefore := balances()

	// Every payment is answered pending: no block comes within the
	// settle timeout.
	chain.PauseMining()
	txs := make([]string, payments)
	var wg sync.WaitGroup
	for i, h := range headers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			status, body := fetch(c.url, h)
			var ans struct {
				TxHash string `json:"txHash"`
				Error  string `json:"error"`
			}
			if status != http.StatusPaymentRequired || json.Unmarshal([]byte(body), &ans) != nil || ans.Error != x402.ErrTextPending || ans.TxHash == "" {
				t.Errorf("payment %d: %d %.300s; want 402 %q with a txHash", i, status, body, x402.ErrTextPending)
			}
			txs[i] = ans.TxHash
		}()
	}
	wg.Wait()
	if t.Failed() {
		chain.ResumeMining()
		t.FailNow()
	}
	chain.ResumeMining()

	// Wait until the journal holds every settlement as settled.
	for i, tx := range txs {
		for {
			status, body := fetch(base+x402.PathSettlements+tx, "")
			if status == http.StatusOK && strings.Contains(body, `"status":"settled"`) {
				break
			}
			if status != http.StatusOK || !strings.Contains(body, `"status":"pending"`) {
				t.Fatalf("settlement %d (%s): %d %s; want pending, then settled", i, tx, status, body)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	if n := ran.Load(); n != 0 {
		t.Fatalf("the upstream ran %d times before any retry; want 0", n)
	}

	// Restart with a retention of 1 s: the settled records, older than
	// that by then, are compacted at start.
	c.kill()
	time.Sleep(1100 * time.Millisecond)
	c.config = writeConfig("compact.json", "1000000000")
	c.start()

	for i, h := range headers {
		if status, body := fetch(c.url, h); status != http.StatusOK || body != "the resource" {
			t.Errorf("payment %d retried after compaction: %d %.300s; want 200 %q", i, status, body, "the resource")
		}
		if status, body := fetch(c.url, h); status != http.StatusPaymentRequired || !strings.Contains(body, x402.ErrTextAlreadyUsed) {
			t.Errorf("payment %d retried after delivery: %d %.300s; want 402 %q", i, status, body, x402.ErrTextAlreadyUsed)
		}
	}
	if n := ran.Load(); n != payments {
		t.Errorf("the upstream ran %d times; want %d (once per payment)", n, payments)
	}
	buyerAfter, sellerAfter := balances()
	testutil.AssertDelta(t, "buyer", buyerBefore, buyerAfter, -29*payments)
	testutil.AssertDelta(t, "seller", sellerBefore, sellerAfter, 29*payments)
}
