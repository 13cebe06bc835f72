package testutil

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddytest"

	"github.com/caddy-x402/caddy-x402/facilitator"
	"github.com/caddy-x402/caddy-x402/facilitator/devnet"
)

// GlobalBlock is the Caddyfile global options of every integration test;
// extra goes inside the x402 block.
func GlobalBlock(extra string) string {
	return fmt.Sprintf(`{
	admin localhost:%d
	http_port %d
	https_port %d
	grace_period 1s
	skip_install_trust
	x402 {
		devnet {
			listen %s
			block_time 200ms
		}
		%s
	}
}
`, AdminPort, SitePort, HTTPSPort, DevnetAddr, extra)
}

// NewTester loads caddyfile into the test Caddy (started if need be).
func NewTester(t testing.TB, caddyfile string) *caddytest.Tester {
	t.Helper()
	tester := caddytest.NewTester(t).WithDefaultOverrides(caddytest.Config{
		AdminPort:          AdminPort,
		TestRequestTimeout: 30 * time.Second,
		LoadRequestTimeout: 30 * time.Second,
	})
	before := listeners()
	tester.InitServer(caddyfile, "caddyfile")
	awaitOldListeners(t, before)
	if t.Failed() {
		t.FailNow()
	}
	return tester
}

// LoadConfig loads a Caddyfile into the running Caddy through the admin
// API, as a reload does.
func LoadConfig(t *testing.T, caddyfile string) {
	t.Helper()
	if status, b := PostLoad(t, caddyfile, "text/caddyfile"); status != http.StatusOK {
		t.Fatalf("reload: %d %s", status, b)
	}
}

// PostLoad posts a config of contentType to the admin API's /load and
// returns the answer, once the previous configuration's listeners are
// closed (reload.go).
func PostLoad(t *testing.T, config, contentType string) (int, []byte) {
	t.Helper()
	before := listeners()
	defer awaitOldListeners(t, before)
	req, _ := http.NewRequest(http.MethodPost, fmt.Sprintf("http://localhost:%d/load", AdminPort), strings.NewReader(config))
	req.Header.Set("Content-Type", contentType)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// activeApp is the running config's x402 app.
func activeApp(t *testing.T) any {
	t.Helper()
	app, err := caddy.ActiveContext().App("x402")
	if err != nil {
		t.Fatal(err)
	}
	return app
}

// ActiveFacilitator is the running config's facilitator.
func ActiveFacilitator(t *testing.T) *facilitator.Facilitator {
	t.Helper()
	return activeApp(t).(interface {
		Facilitator() *facilitator.Facilitator
	}).Facilitator()
}

// ActiveChain is the devnet of the running config.
func ActiveChain(t *testing.T) *devnet.Chain {
	t.Helper()
	return activeApp(t).(interface{ Chain() *devnet.Chain }).Chain()
}

// AssertLoadError loads a config into the test Caddy (started if need be)
// and expects it refused with an error containing want. It stands in for
// caddytest.AssertLoadError, which only knows caddytest's fixed admin port.
func AssertLoadError(t *testing.T, config, configType, want string) {
	t.Helper()
	NewTester(t, GlobalBlock("")+fmt.Sprintf(":%d {\n\trespond ok\n}\n", SitePort))
	contentType := "text/" + configType
	if configType == "json" {
		contentType = "application/json"
	}
	status, b := PostLoad(t, config, contentType)
	if status == http.StatusOK || !strings.Contains(string(b), want) {
		t.Errorf("loading the config: status %d %s, want an error containing %q", status, b, want)
	}
}

// NetworkBlock is the x402 global option's block of a network named name
// on the devnet's chain and token (chain ID chainID, which a test may get
// wrong on purpose), reached at rpc and signing with the key in the
// environment variable signerEnv.
func NetworkBlock(name string, chainID int64, rpc, signerEnv string) string {
	return fmt.Sprintf(`network %s {
			chain_id %d
			rpc %s
			token %s
			decimals 6
			eip712_name "%s"
			eip712_version %s
			signer_key {env.%s}
		}`, name, chainID, rpc, devnet.TokenAddress.Hex(), devnet.TokenName, devnet.TokenVersion, signerEnv)
}
