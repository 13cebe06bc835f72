package app_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/caddy-x402/caddy-x402/caddymodule/internal/testutil"
	"github.com/caddy-x402/caddy-x402/facilitator"
	"github.com/caddy-x402/caddy-x402/facilitator/devnet"
)

// TestDegradedStart starts Caddy while the only RPC endpoint of a network
// is down: the config loads, health says why the network cannot settle,
// the paywall answers a JSON 500 with Retry-After; once the chain is back
// a payment settles, with no restart. A wrong chain ID is still fatal.
func TestDegradedStart(t *testing.T) {
	rpc := testutil.NewRPCCounter(t, testutil.DevnetURL)
	rpc.Down.Store(true)
	t.Setenv("X402_TEST_SIGNER_KEY", devnet.SignerPrivateKey)
	network := func(chainID int64) string {
		return testutil.NetworkBlock("flaky", chainID, rpc.URL, "X402_TEST_SIGNER_KEY")
	}
	site := fmt.Sprintf(`
:%d {
	x402_facilitator
}
:%d {
	x402 {
		pay_to %s
		amount 4321
		network flaky
	}
	respond "paid"
}
`, testutil.FacPort, testutil.SitePort, testutil.SellerAddr)
	tester := testutil.NewTester(t, testutil.GlobalBlock(network(devnet.ChainID))+site)

	health := func() facilitator.NetworkHealth {
		since := time.Now().UnixMilli()
		for deadline := time.Now().Add(10 * time.Second); ; {
			_, b := testutil.Get(t, tester, fmt.Sprintf("http://127.0.0.1:%d/healthcheck", testutil.FacPort), nil)
			var h facilitator.HealthResponse
			_ = json.Unmarshal(b, &h)
			for _, n := range h.Networks {
				if n.Network == "flaky" && (n.CheckedAt >= since || time.Now().After(deadline)) {
					return n
				}
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	if h := health(); h.CanSettle || h.RPCReachable || h.RPCError == "" {
		t.Errorf("health with the chain down: %+v; want canSettle false with the reason", h)
	}

	buyer := testutil.BuyerKey(t, devnet.Buyer1PrivateKey)
	reqs := testutil.Require402(t, tester, testutil.SiteURL+"/").PaymentRequirements
	resp, b := testutil.Get(t, tester, testutil.SiteURL+"/", map[string]string{"X-Payment": testutil.Pay(t, buyer, reqs)})
	var out struct{ Error string }
	if err := json.Unmarshal(b, &out); err != nil || resp.StatusCode != http.StatusInternalServerError ||
		resp.Header.Get("Retry-After") == "" || !strings.Contains(out.Error, "could not be verified") {
		t.Errorf("paid request with the chain down: %d Retry-After %q %s; want a JSON 500 with Retry-After",
			resp.StatusCode, resp.Header.Get("Retry-After"), b)
	}

	// The chain is back: no restart.
	rpc.Down.Store(false)
	if h := health(); !h.CanSettle {
		t.Errorf("health with the chain back: %+v", h)
	}
	buyerAddr := crypto.PubkeyToAddress(buyer.PublicKey).Hex()
	before := testutil.Balance(t, buyerAddr)
	resp, b = testutil.Get(t, tester, testutil.SiteURL+"/", map[string]string{"X-Payment": testutil.Pay(t, buyer, reqs)})
	if resp.StatusCode != http.StatusOK || string(b) != "paid" {
		t.Fatalf("paid request with the chain back: %d %s", resp.StatusCode, b)
	}
	testutil.AssertDelta(t, "buyer", before, testutil.Balance(t, buyerAddr), -4321)

	// A wrong chain ID stays fatal.
	rpc.Down.Store(false)
	testutil.AssertLoadError(t, testutil.GlobalBlock(network(25))+site, "caddyfile", "reports chain ID 338")
}
