package app_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/caddy-x402/caddy-x402/caddymodule/internal/testutil"
	"github.com/caddy-x402/caddy-x402/facilitator"
)

// TestHealthIsCheap sends a burst of health requests: they are answered
// from a snapshot, so the chain is asked at most once a second.
func TestHealthIsCheap(t *testing.T) {
	rpc := testutil.NewRPCCounter(t, testutil.DevnetURL)
	tester := testutil.NewTester(t, testutil.GlobalBlock(testutil.MeteredNetwork(rpc))+fmt.Sprintf(`
:%d {
	x402_facilitator
}
`, testutil.FacPort))
	url := fmt.Sprintf("http://127.0.0.1:%d/healthcheck", testutil.FacPort)
	before := rpc.Count("eth_getBlockByNumber")
	start := time.Now()
	const n = 200
	for i := 0; i < n; i++ {
		resp, b := testutil.Get(t, tester, url, nil)
		var h facilitator.HealthResponse
		if err := json.Unmarshal(b, &h); err != nil || resp.StatusCode != http.StatusOK || h.Status != "success" || len(h.Networks) != 2 {
			t.Fatalf("healthcheck %d: %d %s", i, resp.StatusCode, b)
		}
		for _, nh := range h.Networks {
			if nh.Network == "metered" && (!nh.RPCReachable || nh.CheckedAt == 0) {
				t.Fatalf("metered network: %+v", nh)
			}
		}
	}
	elapsed := time.Since(start)
	calls := rpc.Count("eth_getBlockByNumber") - before
	// One refresh per started second, plus the one a request may start
	// at the end.
	if allowed := int(elapsed/facilitator.HealthMaxAge) + 2; calls > allowed {
		t.Errorf("%d health requests in %s read the head %d times; at most %d", n, elapsed, calls, allowed)
	}
	t.Logf("%d health requests in %s: %d head reads", n, elapsed.Round(time.Millisecond), calls)
}
