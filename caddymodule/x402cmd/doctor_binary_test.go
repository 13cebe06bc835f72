package x402cmd

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/caddy-x402/caddy-x402/caddymodule/internal/testutil"
	"github.com/caddy-x402/caddy-x402/facilitator/permit2"
)

// TestMain removes the caddy binary the tests built (testutil.BuiltCaddy).
func TestMain(m *testing.M) { testutil.Main(m) }

// doctorCaddyfile has an exact route and an upto route on
// cronos-testnet, read through $DOCTOR_RPC with the signer key of
// $DOCTOR_TEST_SIGNER.
const doctorCaddyfile = `{
	x402 {
		network cronos-testnet {
			rpc {env.DOCTOR_RPC}
			signer_key {env.DOCTOR_TEST_SIGNER}
		}
	}
}

:0 {
	x402 /metered/* {
		pay_to 0x5e11e5e11e5e11e5e11e5e11e5e11e5e11e5e11e
		price 0.05
		network cronos-testnet
		scheme upto
	}
	x402 /paid/* {
		pay_to 0x5e11e5e11e5e11e5e11e5e11e5e11e5e11e5e11e
		price 0.01
	}
	respond "ok"
}
`

// TestDoctorBinary runs "caddy x402 doctor --config Caddyfile" as an
// operator does: exit 0 and every scheme offered on the devnet; through
// the FAKE proxy that hides the upto proxy's code, exit status 1, the
// address and the route's scheme named.
func TestDoctorBinary(t *testing.T) {
	bin := testutil.BuiltCaddy(t)
	c := doctorChain(t)
	dir := t.TempDir()
	cf := filepath.Join(dir, "Caddyfile")
	if err := os.WriteFile(cf, []byte(doctorCaddyfile), 0o600); err != nil {
		t.Fatal(err)
	}
	key := common.Bytes2Hex(crypto.FromECDSA(c.Signer().Key))
	run := func(rpc string) (string, string, int) {
		cmd := exec.Command(bin, "x402", "doctor", "--config", cf, "--adapter", "caddyfile")
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "DOCTOR_RPC=" + rpc, "DOCTOR_TEST_SIGNER=" + key}
		var stdout, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		code := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(stdout.String()+stderr.String(), key) {
			t.Fatal("the doctor printed the signer's key")
		}
		return stdout.String(), stderr.String(), code
	}

	out, errOut, code := run(c.RPCURL())
	if code != 0 {
		t.Fatalf("exit status %d\n%s\n%s", code, out, errOut)
	}
	assertLines(t, out, concat(devnetHead, []string{
		devnetDomainOK,
		"  ok       signer " + c.Signer().Address.Hex() + ": balance 1000000000000000000000000 wei, enough for …",
	}, offered, []string{
		"  routes   exact, upto: every one can be served",
	}))

	out, errOut, code = run(hidingProxy(t, c.RPCURL(), permit2.UptoProxy.Address()))
	if code != 1 {
		t.Fatalf("exit status %d through the proxy hiding the upto proxy, want 1\n%s\n%s", code, out, errOut)
	}
	assertLines(t, out, concat(devnetHead, []string{
		devnetDomainOK,
		"  ok       signer " + c.Signer().Address.Hex() + ": balance …",
	}, offered[:2], []string{
		"  missing  upto: x402 upto Permit2 proxy 0x4020A4f3b7b90ccA423B9fabCc0CE57C6C240002: no contract at 0x4020A4f3b7b90ccA423B9fabCc0CE57C6C240002",
		"           fix: deploy x402 upto Permit2 proxy at its canonical address 0x4020A4f3b7b90ccA423B9fabCc0CE57C6C240002 on this chain (or ask the chain's operators to), or do not serve upto here",
	}, offered[3:], []string{
		"  routes   exact, upto: upto cannot be served",
	}))
	if !strings.Contains(errOut, "cannot be served: upto on cronos-testnet") {
		t.Fatalf("stderr does not name the route that cannot be served:\n%s", errOut)
	}
}
