package paywall

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/caddy-x402/caddy-x402/caddymodule/internal/httpx"
	"github.com/caddy-x402/caddy-x402/caddymodule/internal/testutil"
	"github.com/caddy-x402/caddy-x402/facilitator/devnet"
	"github.com/caddy-x402/caddy-x402/facilitator/exact"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// TestForwardedOrigin: behind a proxy that terminates TLS for
// shop.example (X-Forwarded-Proto and X-Forwarded-Host), a site whose
// server trusts the proxy (trusted_proxies) names the public origin in
// the 402's resource, the Sign-In-With-X challenge, and sets the access
// cookie Secure; a sign-in for that origin is served. A site that does
// not trust its peer ignores the same headers: its own origin in every
// answer, no Secure cookie, and a sign-in signed for shop.example is
// refused.
func TestForwardedOrigin(t *testing.T) {
	up := testutil.EchoUpstream(t)
	plainPort := testutil.FreePort(t)
	route := func(port int) string {
		return fmt.Sprintf(`
:%d {
	x402 /acc/* {
		pay_to %s
		amount 29
		network eip155:338
		access 1h
	}
	reverse_proxy %s
}
`, port, accessSeller, up.Listener.Addr())
	}
	global := strings.Replace(testutil.GlobalBlock(""), "\tskip_install_trust\n",
		fmt.Sprintf("\tskip_install_trust\n\tservers :%d {\n\t\ttrusted_proxies static 127.0.0.1/32 ::1/128\n\t}\n", testutil.SitePort), 1)
	testutil.NewTester(t, global+route(testutil.SitePort)+route(plainPort))
	buyer := testutil.BuyerKey(t, devnet.Buyer3PrivateKey)
	buyerAddr := crypto.PubkeyToAddress(buyer.PublicKey).Hex()
	fwd := map[string]string{"X-Forwarded-Proto": "https", "X-Forwarded-Host": "shop.example"}
	trustedURL := testutil.SiteURL + "/acc/a"
	plainURL := fmt.Sprintf("http://localhost:%d/acc/a", plainPort)

	// The 402s: resource, v2 resource and the challenge.
	type seen struct {
		resource, v2Resource, domain, uri string
		accepted                          x402.RequirementsV2
		res                               *x402.ResourceInfo
		decl                              x402.SIWxDeclaration
	}
	look := func(url string) seen {
		t.Helper()
		resp, b := accessGet(t, url, fwd)
		if resp.StatusCode != http.StatusPaymentRequired {
			t.Fatalf("GET %s unpaid: %d %s", url, resp.StatusCode, b)
		}
		var body testutil.Body402
		if err := json.Unmarshal(b, &body); err != nil {
			t.Fatal(err)
		}
		var pr struct {
			x402.PaymentRequiredV2
			Extensions map[string]json.RawMessage `json:"extensions"`
		}
		if err := x402.DecodeBase64JSON(resp.Header.Get(x402.HeaderPaymentRequired), &pr); err != nil || len(pr.Accepts) != 1 {
			t.Fatalf("PAYMENT-REQUIRED: %v", err)
		}
		var s seen
		if err := json.Unmarshal(pr.Extensions[x402.ExtSignInWithX], &s.decl); err != nil {
			t.Fatal(err)
		}
		s.resource, s.v2Resource, s.accepted, s.res = body.PaymentRequirements.Resource, pr.Resource.URL, pr.Accepts[0], pr.Resource
		s.domain, s.uri = s.decl.Info.Domain, s.decl.Info.URI
		return s
	}
	got := look(trustedURL)
	if got.resource != "https://shop.example/acc/a" || got.v2Resource != got.resource || got.domain != "shop.example" || got.uri != "https://shop.example/acc/a" {
		t.Errorf("behind the trusted proxy: resource %q, v2 resource %q, sign-in domain %q uri %q; want https://shop.example/acc/a and shop.example",
			got.resource, got.v2Resource, got.domain, got.uri)
	}
	plainHost := fmt.Sprintf("localhost:%d", plainPort)
	if p := look(plainURL); p.resource != plainURL || p.v2Resource != plainURL || p.domain != plainHost || p.uri != plainURL {
		t.Errorf("from an untrusted peer: resource %q, v2 resource %q, sign-in domain %q uri %q; want its own %s",
			p.resource, p.v2Resource, p.domain, p.uri, plainURL)
	}

	// Pay through the proxy: the cookie is Secure.
	payAt := func(url string, s seen) (*http.Response, []byte) {
		t.Helper()
		header, _, err := exact.CreatePaymentV2(buyer, s.accepted, s.res, exact.PaymentOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return accessGet(t, url, map[string]string{x402.HeaderPaymentSignature: header, "X-Forwarded-Proto": "https", "X-Forwarded-Host": "shop.example"})
	}
	resp, b := payAt(trustedURL, got)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("paid through the proxy: %d %s", resp.StatusCode, b)
	}
	if ck := accessCookieOf(resp); ck == nil || !ck.Secure {
		t.Errorf("the access cookie behind a TLS proxy: %v, want Secure", resp.Header["Set-Cookie"])
	}

	// Sign in for the public origin, through the proxy: served.
	c := challenge{decl: look(trustedURL).decl}
	resp, b = accessGet(t, trustedURL, map[string]string{x402.HeaderSignInWithX: signIn(t, c, buyer, nil), "X-Forwarded-Proto": "https", "X-Forwarded-Host": "shop.example"})
	if resp.StatusCode != http.StatusOK || upstreamSaw(t, b)[httpx.HeaderFrom] != buyerAddr {
		t.Errorf("sign-in behind the trusted proxy: %d %s, want 200 for %s", resp.StatusCode, b, buyerAddr)
	}
	if ck := accessCookieOf(resp); ck == nil || !ck.Secure {
		t.Errorf("the sign-in's cookie behind a TLS proxy: %v, want Secure", resp.Header["Set-Cookie"])
	}

	// The same sign-in at the site that trusts no proxy: its origin is its
	// own, so a message for shop.example is refused.
	c = challenge{decl: look(trustedURL).decl}
	resp, b = accessGet(t, plainURL, map[string]string{x402.HeaderSignInWithX: signIn(t, c, buyer, nil), "X-Forwarded-Proto": "https", "X-Forwarded-Host": "shop.example"})
	var refused testutil.Body402
	_ = json.Unmarshal(b, &refused)
	if want := fmt.Sprintf("Domain mismatch: expected %q, got %q", plainHost, "shop.example"); resp.StatusCode != http.StatusPaymentRequired || refused.Error != want {
		t.Errorf("a sign-in for the forwarded origin at an untrusting site: %d %s, want 402 %q", resp.StatusCode, b, want)
	}
	// And its cookie is not Secure over plain HTTP, whatever the headers say.
	resp, b = payAt(plainURL, look(plainURL))
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("paid at the untrusting site: %d %s", resp.StatusCode, b)
	}
	if ck := accessCookieOf(resp); ck == nil || ck.Secure {
		t.Errorf("the access cookie at the untrusting site: %v, want not Secure", resp.Header["Set-Cookie"])
	}
}
