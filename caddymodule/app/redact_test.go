package app_test

import (
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/caddy-x402/caddy-x402/caddymodule/internal/testutil"
	"github.com/caddy-x402/caddy-x402/facilitator"
	"github.com/caddy-x402/caddy-x402/facilitator/devnet"
	"github.com/caddy-x402/caddy-x402/facilitator/exact"
)

// TestRPCCredentialsNeverLeave configures a network whose RPC URLs carry
// credentials in the userinfo, the path and the query (one endpoint dead,
// one behind a proxy that can be cut), drives health checks, a failover,
// and an outage answered with a 500, and greps every output: health
// bodies, error bodies, the admin API's config and Caddy's log.
func TestRPCCredentialsNeverLeave(t *testing.T) {
	rpc := testutil.NewRPCCounter(t, testutil.DevnetURL)
	secrets := []string{"alice", "pa55word", "pathtoken9", "querytoken7", "bobby", "s3cretpw", "pathtoken8", "querytoken6"}
	dead := "http://alice:pa55word@127.0.0.1:1/v2/pathtoken9?apikey=querytoken7"
	live := strings.Replace(rpc.URL, "http://", "http://bobby:s3cretpw@", 1) + "/v3/pathtoken8?apikey=querytoken6"
	t.Setenv("X402_TEST_RPC_DEAD", dead)
	t.Setenv("X402_TEST_RPC_URL", live)
	logFile := filepath.Join(t.TempDir(), "caddy.log")
	global := strings.Replace(testutil.GlobalBlock(fmt.Sprintf(`network leaky {
			chain_id %d
			rpc {env.X402_TEST_RPC_DEAD} {env.X402_TEST_RPC_URL}
			token %s
			eip712_name "%s"
			eip712_version %s
		}`, devnet.ChainID, devnet.TokenAddress.Hex(), devnet.TokenName, devnet.TokenVersion)),
		"grace_period 1s", fmt.Sprintf("grace_period 1s\n\tlog {\n\t\toutput file %s\n\t\tlevel DEBUG\n\t}", logFile), 1)
	tester := testutil.NewTester(t, global+fmt.Sprintf(`
:%d {
	x402_facilitator
}
:%d {
	x402 {
		pay_to %s
		amount 1000
		network leaky
	}
	respond "paid"
}
`, testutil.FacPort, testutil.SitePort, testutil.SellerAddr))

	var outputs []string
	health := func() facilitator.NetworkHealth {
		since := time.Now().UnixMilli()
		for deadline := time.Now().Add(10 * time.Second); ; {
			resp, b := testutil.Get(t, tester, fmt.Sprintf("http://127.0.0.1:%d/healthcheck", testutil.FacPort), nil)
			var h facilitator.HealthResponse
			if err := json.Unmarshal(b, &h); err != nil || resp.StatusCode != 200 {
				t.Fatalf("healthcheck: %d %s", resp.StatusCode, b)
			}
			for _, n := range h.Networks {
				if n.Network == "leaky" && (n.CheckedAt >= since || time.Now().After(deadline)) {
					outputs = append(outputs, string(b))
					return n
				}
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	bogus := func() string {
		key, _ := crypto.GenerateKey()
		h, _, err := exact.CreatePayment(key, testutil.Require402(t, tester, testutil.SiteURL+"/").PaymentRequirements,
			exact.PaymentOptions{ChainID: big.NewInt(devnet.ChainID)})
		if err != nil {
			t.Fatal(err)
		}
		return h
	}

	// Up: the dead endpoint is skipped, the live one answers.
	h := health()
	if !h.RPCReachable || len(h.Endpoints) != 2 || h.Endpoints[0].Problem == "" {
		t.Errorf("health with one dead endpoint: %+v", h)
	}
	resp, b := testutil.Get(t, tester, testutil.SiteURL+"/", map[string]string{"X-Payment": bogus()})
	outputs = append(outputs, string(b))
	if resp.StatusCode != http.StatusPaymentRequired {
		t.Errorf("bogus payment with the chain up: %d %s", resp.StatusCode, b)
	}

	// Down: every endpoint fails.
	rpc.Down.Store(true)
	defer rpc.Down.Store(false)
	resp, b = testutil.Get(t, tester, testutil.SiteURL+"/", map[string]string{"X-Payment": bogus()})
	outputs = append(outputs, string(b))
	if resp.StatusCode != http.StatusInternalServerError || !strings.Contains(string(b), `"error"`) {
		t.Errorf("bogus payment with the chain down: %d %s, want a JSON 500", resp.StatusCode, b)
	}
	if h := health(); h.RPCReachable || h.RPCError == "" {
		t.Errorf("health with the chain down: %+v", h)
	}
	_, b = testutil.Get(t, tester, fmt.Sprintf("http://localhost:%d/config/", testutil.AdminPort), nil)
	outputs = append(outputs, string(b))

	logs, err := os.ReadFile(logFile)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(logs), "127.0.0.1:1") {
		t.Errorf("the log does not name the dead endpoint; is it the right log?\n%s", logs)
	}
	outputs = append(outputs, string(logs))
	for i, o := range outputs {
		for _, s := range secrets {
			if strings.Contains(o, s) {
				t.Errorf("output %d shows %q:\n%s", i, s, o)
			}
		}
	}
}
