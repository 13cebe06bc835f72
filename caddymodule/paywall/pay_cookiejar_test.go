package paywall

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/caddy-x402/caddy-x402/caddymodule/access"
	"github.com/caddy-x402/caddy-x402/caddymodule/internal/httpx"
	"github.com/caddy-x402/caddy-x402/caddymodule/internal/testutil"
	"github.com/caddy-x402/caddy-x402/caddymodule/x402cmd"
	"github.com/caddy-x402/caddy-x402/facilitator/devnet"
)

// TestPayCookieJar: "caddy x402 pay" shows the access cookie a paid
// answer sets, and --cookie-jar keeps it: a paid run with a jar saves it
// (mode 0600), a second run with the jar is served by the cookie with no
// transfer and no sign-in, and a paid run without a jar says how to keep
// it.
func TestPayCookieJar(t *testing.T) {
	up := testutil.EchoUpstream(t)
	testutil.NewTester(t, testutil.GlobalBlock("")+fmt.Sprintf(`
:%d {
	x402 /jar/* {
		pay_to %[2]s
		amount 19
		network eip155:338
		access 1h
	}
	reverse_proxy %[3]s
}
`, testutil.SitePort, accessSeller, up.Listener.Addr()))
	buyer := testutil.BuyerKey(t, devnet.Buyer3PrivateKey)
	addr := crypto.PubkeyToAddress(buyer.PublicKey).Hex()
	jarFile := filepath.Join(t.TempDir(), "jar.json")
	o := x402cmd.PayOptions{Key: devnet.Buyer3PrivateKey, MaxAmount: "100", Timeout: 30 * time.Second, CookieJar: jarFile}
	sellerBefore, buyerBefore := testutil.Balance(t, accessSeller), testutil.Balance(t, addr)

	// A paid run with a jar that does not exist yet: paid, the cookie
	// reported and saved.
	var stdout, stderr strings.Builder
	if err := x402cmd.RunPay(t.Context(), testutil.SiteURL+"/jar/a", o, &stdout, &stderr); err != nil {
		t.Fatalf("paid run: %v\n%s", err, stderr.String())
	}
	saw := upstreamSaw(t, []byte(stdout.String()))
	if saw[httpx.HeaderTxHash] == "" {
		t.Fatalf("the first run was not paid: %s\n%s", stdout.String(), stderr.String())
	}
	line := regexp.MustCompile(`(?m)^x402: access cookie (` + access.CookiePrefix + `[0-9a-f]{12}) until (\S+) \(kept in ` + regexp.QuoteMeta(jarFile) + `\)$`).
		FindStringSubmatch(stderr.String())
	if line == nil || line[2] != saw[httpx.HeaderAccessUntil] {
		t.Fatalf("the paid run's stderr does not report the cookie until %s:\n%s", saw[httpx.HeaderAccessUntil], stderr.String())
	}
	name := line[1]
	fi, err := os.Stat(jarFile)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the jar: %v, mode %v; want it written 0600", err, fi)
	}
	var jar struct {
		Cookies []struct {
			Name, Domain, Path string
			HostOnly           bool
		}
	}
	if b, _ := os.ReadFile(jarFile); json.Unmarshal(b, &jar) != nil || len(jar.Cookies) != 1 ||
		jar.Cookies[0].Name != name || jar.Cookies[0].Domain != "localhost" || !jar.Cookies[0].HostOnly || jar.Cookies[0].Path != "/jar/" {
		t.Fatalf("the jar holds %s, want one host-only cookie %s for localhost /jar/", b, name)
	}
	testutil.AssertDelta(t, "seller", sellerBefore, testutil.Balance(t, accessSeller), 19)
	testutil.AssertDelta(t, "buyer", buyerBefore, testutil.Balance(t, addr), -19)

	// The second run with the jar: served by the cookie, no transfer, no
	// sign-in.
	stdout.Reset()
	stderr.Reset()
	if err := x402cmd.RunPay(t.Context(), testutil.SiteURL+"/jar/b", o, &stdout, &stderr); err != nil {
		t.Fatalf("run with the jar: %v\n%s", err, stderr.String())
	}
	saw = upstreamSaw(t, []byte(stdout.String()))
	want := "x402: served by the access cookie " + name + " from " + jarFile + " (access until " + saw[httpx.HeaderAccessUntil] + "): no new payment\n"
	if stderr.String() != want || saw[httpx.HeaderAccessVia] != access.ViaCookie || saw[httpx.HeaderTxHash] != "" || saw[httpx.HeaderFrom] != addr {
		t.Fatalf("run with the jar: stderr %q\nwant %q\nupstream saw %v", stderr.String(), want, saw)
	}
	testutil.AssertDelta(t, "seller", sellerBefore, testutil.Balance(t, accessSeller), 19)
	testutil.AssertDelta(t, "buyer", buyerBefore, testutil.Balance(t, addr), -19)

	// Without a jar (and no sign-in) it pays, and says how to keep the
	// cookie.
	stdout.Reset()
	stderr.Reset()
	o.CookieJar, o.NoSignIn = "", true
	if err := x402cmd.RunPay(t.Context(), testutil.SiteURL+"/jar/c", o, &stdout, &stderr); err != nil {
		t.Fatalf("run without the jar: %v\n%s", err, stderr.String())
	}
	saw = upstreamSaw(t, []byte(stdout.String()))
	if want := "x402: access cookie " + name + " until " + saw[httpx.HeaderAccessUntil] + " (keep it with --cookie-jar FILE)\n"; !strings.Contains(stderr.String(), want) {
		t.Fatalf("run without the jar's stderr:\n%s\nwant it to contain %q", stderr.String(), want)
	}
	testutil.AssertDelta(t, "seller", sellerBefore, testutil.Balance(t, accessSeller), 38)

	// A jar that is not one is refused before any request.
	if err := os.WriteFile(jarFile, []byte("not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	o.CookieJar = jarFile
	if err := x402cmd.RunPay(t.Context(), testutil.SiteURL+"/jar/d", o, &stdout, &stderr); err == nil ||
		!strings.HasPrefix(err.Error(), "--cookie-jar "+jarFile+": not a cookie jar of this command") {
		t.Fatalf("a broken jar: %v", err)
	}
	testutil.AssertDelta(t, "seller", sellerBefore, testutil.Balance(t, accessSeller), 38)
}
