package paywall

import (
	"crypto/ecdsa"
	"encoding/json"
	"fmt"
	"github.com/caddy-x402/caddy-x402/caddymodule/access"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2/caddytest"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/caddy-x402/caddy-x402/caddymodule/internal/httpx"
	"github.com/caddy-x402/caddy-x402/caddymodule/internal/testutil"
	"github.com/caddy-x402/caddy-x402/caddymodule/x402cmd"
	"github.com/caddy-x402/caddy-x402/facilitator/devnet"
	"github.com/caddy-x402/caddy-x402/facilitator/exact"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

const accessSeller = "0x5eacce55e5eacce55e5eacce55e5eacce55e5eac"

// The challenge's statement and time format, as package access writes
// them.
const (
	siwxStatement = "Sign in with the wallet that paid, to use the access it bought."
	isoMillis     = "2006-01-02T15:04:05.000Z"
)

// accessClient talks to the site with no cookie jar: each test sends the
// cookies it means to.
var accessClient = &http.Client{Timeout: 30 * time.Second}

// accessGet fetches url with headers and cookies.
func accessGet(t *testing.T, url string, header map[string]string, cookies ...*http.Cookie) (*http.Response, []byte) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	for _, c := range cookies {
		req.AddCookie(c)
	}
	resp, err := accessClient.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, b
}

// challenge is an unpaid 402 of a route with access: its sign-in-with-x
// declaration and its body.
type challenge struct {
	decl x402.SIWxDeclaration
	body []byte
	raw  json.RawMessage // the declaration as sent
}

func challengeOf(t *testing.T, url string) challenge {
	t.Helper()
	resp, b := accessGet(t, url, nil)
	if resp.StatusCode != http.StatusPaymentRequired {
		t.Fatalf("GET %s unpaid: %d %s", url, resp.StatusCode, b)
	}
	var pr struct {
		Extensions map[string]json.RawMessage `json:"extensions"`
	}
	if err := x402.DecodeBase64JSON(resp.Header.Get(x402.HeaderPaymentRequired), &pr); err != nil {
		t.Fatal(err)
	}
	c := challenge{body: b, raw: pr.Extensions[x402.ExtSignInWithX]}
	if err := json.Unmarshal(c.raw, &c.decl); err != nil {
		t.Fatalf("sign-in-with-x of %s: %v: %s", url, err, c.raw)
	}
	return c
}

// refusal is the exact 402 body of a refused sign-in at the challenge's
// URL: the unpaid body with the reason as its error.
func (c challenge) refusal(reason string) string {
	q, _ := json.Marshal(reason)
	return strings.Replace(string(c.body), `{"error":"X-PAYMENT header is required",`, `{"error":`+string(q)+`,`, 1)
}

// signIn signs the challenge's info (edited by edit, if given) with key.
func signIn(t *testing.T, c challenge, key *ecdsa.PrivateKey, edit func(*x402.SIWxInfo, *x402.SIWxChain)) string {
	t.Helper()
	info, chain := c.decl.Info, c.decl.SupportedChains[0]
	if edit != nil {
		edit(&info, &chain)
	}
	_, h, err := x402.SignSIWx(info, chain, key)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// payV2At pays the route at url with a v2 payment from key.
func payV2At(t *testing.T, tester *caddytest.Tester, url string, key *ecdsa.PrivateKey) (*http.Response, []byte) {
	t.Helper()
	o := offerV2(t, tester, url)
	header, _, err := exact.CreatePaymentV2(key, o.accepted, o.resource, exact.PaymentOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return accessGet(t, url, map[string]string{x402.HeaderPaymentSignature: header})
}

// accessCookieOf is the access cookie a response sets, nil for none.
func accessCookieOf(resp *http.Response) *http.Cookie {
	for _, c := range resp.Cookies() {
		if strings.HasPrefix(c.Name, access.CookiePrefix) {
			return c
		}
	}
	return nil
}

// upstreamSaw decodes the echo upstream's answer.
func upstreamSaw(t *testing.T, b []byte) map[string]string {
	t.Helper()
	var got map[string]string
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatalf("upstream answer %s: %v", b, err)
	}
	return got
}

// TestAccess drives access through a real Caddy and the devnet: the
// sign-in-with-x declaration of every 402, a payment that grants access
// (cookie flags, the grant's end), a fresh sign-in served without payment
// (no transfer, no settlement headers), and every refusal with its exact
// 402 body: a replayed header, another wallet, another route, each field
// of the message out of bounds, a nonce the site did not issue, a
// signature by another key, an ended grant, and cookies for another route,
// tampered with or expired. Metrics count grants and grant-served requests
// apart from payments.
func TestAccess(t *testing.T) {
	up := testutil.EchoUpstream(t)
	siteConfig := testutil.GlobalBlock("") + fmt.Sprintf(`
:%d {
	x402 /acc/* {
		pay_to %[2]s
		amount 31
		network eip155:338
		label acc
		access 1h
	}
	x402 /other/* {
		pay_to %[2]s
		amount 31
		network eip155:338
		access 1h
	}
	x402 /short/* {
		pay_to %[2]s
		amount 31
		network eip155:338
		access 3s
	}
	x402 /nocookie/* {
		pay_to %[2]s
		amount 31
		network eip155:338
		access 1h
		access_cookie off
	}
	reverse_proxy %[3]s
}
`, testutil.SitePort, accessSeller, up.Listener.Addr())
	tester := testutil.NewTester(t, siteConfig)
	buyer, other := testutil.BuyerKey(t, devnet.Buyer4PrivateKey), testutil.BuyerKey(t, devnet.Buyer5PrivateKey)
	buyerAddr := crypto.PubkeyToAddress(buyer.PublicKey).Hex()
	otherAddr := crypto.PubkeyToAddress(other.PublicKey).Hex()
	host := fmt.Sprintf("localhost:%d", testutil.SitePort)
	metricsBefore := testutil.Scrape(t)

	// The declaration: the package's shape, a fresh challenge for the URI
	// asked (the query is not part of it), beside payment-identifier.
	c := challengeOf(t, testutil.SiteURL+"/acc/a?x=1")
	info := c.decl.Info
	uri := testutil.SiteURL + "/acc/a"
	issued, err := time.Parse(time.RFC3339Nano, info.IssuedAt)
	if err != nil || time.Since(issued) > time.Minute || time.Since(issued) < -time.Second {
		t.Fatalf("issuedAt %q: %v", info.IssuedAt, err)
	}
	wantDecl := fmt.Sprintf(`{"info":{"domain":%q,"uri":%q,"version":"1","nonce":%q,"issuedAt":%q,"resources":[%q],"expirationTime":%q,"statement":%q},`+
		`"supportedChains":[{"chainId":"eip155:338","type":"eip191"}],"schema":%s}`,
		host, uri, info.Nonce, info.IssuedAt, uri, issued.Add(5*time.Minute).UTC().Format(isoMillis), siwxStatement,
		`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{"domain":{"type":"string"},"address":{"type":"string"},"statement":{"type":"string"},"uri":{"type":"string","format":"uri"},"version":{"type":"string"},"chainId":{"type":"string"},"type":{"type":"string"},"nonce":{"type":"string"},"issuedAt":{"type":"string","format":"date-time"},"expirationTime":{"type":"string","format":"date-time"},"notBefore":{"type":"string","format":"date-time"},"requestId":{"type":"string"},"resources":{"type":"array","items":{"type":"string","format":"uri"}},"signature":{"type":"string"}},"required":["domain","address","uri","version","chainId","type","nonce","issuedAt","signature"]}`)
	if string(c.raw) != wantDecl {
		t.Fatalf("sign-in-with-x declaration\n%s\nwant\n%s", c.raw, wantDecl)
	}
	if !regexp.MustCompile(`^[0-9a-f]{48}$`).MatchString(info.Nonce) {
		t.Fatalf("nonce %q", info.Nonce)
	}
	if again := challengeOf(t, testutil.SiteURL+"/acc/a"); again.decl.Info.Nonce == info.Nonce {
		t.Fatal("two 402s carry the same nonce")
	}

	// Signing in before paying: 402, no grant.
	c = challengeOf(t, testutil.SiteURL+"/acc/a")
	resp, b := accessGet(t, testutil.SiteURL+"/acc/a", map[string]string{x402.HeaderSignInWithX: signIn(t, c, buyer, nil)})
	if want := c.refusal("No access grant for " + buyerAddr + " on this route: pay for access"); resp.StatusCode != 402 || string(b) != want {
		t.Fatalf("sign-in before paying: %d %s\nwant 402 %s", resp.StatusCode, b, want)
	}

	// Pay once: the grant, its end, the cookie.
	sellerBefore, buyerBefore := testutil.Balance(t, accessSeller), testutil.Balance(t, buyerAddr)
	paidAt := time.Now()
	resp, b = payV2At(t, tester, testutil.SiteURL+"/acc/a", buyer)
	if resp.StatusCode != 200 {
		t.Fatalf("paid request: %d %s", resp.StatusCode, b)
	}
	saw := upstreamSaw(t, b)
	until, err := time.Parse(time.RFC3339, resp.Header.Get(httpx.HeaderAccessUntil))
	if err != nil || until.Before(paidAt.Add(time.Hour-2*time.Second)) || until.After(time.Now().Add(time.Hour)) {
		t.Fatalf("X-Payment-Access-Until %q (paid at %s)", resp.Header.Get(httpx.HeaderAccessUntil), paidAt)
	}
	if saw[httpx.HeaderAccessUntil] != resp.Header.Get(httpx.HeaderAccessUntil) || saw[httpx.HeaderTxHash] == "" || saw[httpx.HeaderAccessVia] != "" {
		t.Fatalf("the paid request's upstream saw %v", saw)
	}
	ck := accessCookieOf(resp)
	if ck == nil {
		t.Fatalf("the paid response set no access cookie: %v", resp.Header["Set-Cookie"])
	}
	raw := resp.Header.Get("Set-Cookie")
	if !ck.HttpOnly || ck.Secure || ck.SameSite != http.SameSiteLaxMode || ck.Path != "/acc/" || ck.MaxAge < 3590 || ck.MaxAge > 3600 {
		t.Fatalf("access cookie %s: want HttpOnly, not Secure (plain HTTP), SameSite=Lax, Path=/acc/, Max-Age about 3600", raw)
	}
	testutil.AssertDelta(t, "seller", sellerBefore, testutil.Balance(t, accessSeller), 31)
	testutil.AssertDelta(t, "buyer", buyerBefore, testutil.Balance(t, buyerAddr), -31)

	// A fresh request signs in, at another resource of the route: served,
	// no payment, no settlement headers.
	sellerBefore = testutil.Balance(t, accessSeller)
	c = challengeOf(t, testutil.SiteURL+"/acc/b")
	captured := signIn(t, c, buyer, nil)
	resp, b = accessGet(t, testutil.SiteURL+"/acc/b", map[string]string{x402.HeaderSignInWithX: captured})
	if resp.StatusCode != 200 {
		t.Fatalf("sign-in with a grant: %d %s", resp.StatusCode, b)
	}
	saw = upstreamSaw(t, b)
	want := map[string]string{httpx.HeaderFrom: buyerAddr, httpx.HeaderAccessUntil: until.UTC().Format(time.RFC3339), httpx.HeaderAccessVia: access.ViaSIWx,
		httpx.HeaderTxHash: "", httpx.HeaderValue: "", httpx.HeaderNetwork: "", httpx.HeaderBlockNumber: "", httpx.HeaderPayment: ""}
	for k, v := range want {
		if saw[k] != v {
			t.Errorf("signed-in upstream saw %s %q, want %q", k, saw[k], v)
		}
	}
	for _, h := range []string{x402.HeaderPaymentResponseV2, httpx.HeaderPaymentResponse} {
		if resp.Header.Get(h) != "" {
			t.Errorf("a signed-in answer carries %s", h)
		}
	}
	if resp.Header.Get(httpx.HeaderAccessUntil) != want[httpx.HeaderAccessUntil] || accessCookieOf(resp) == nil {
		t.Errorf("signed-in answer: X-Payment-Access-Until %q, cookie %v", resp.Header.Get(httpx.HeaderAccessUntil), resp.Header["Set-Cookie"])
	}

	// The same header again: its nonce is spent.
	resp, b = accessGet(t, testutil.SiteURL+"/acc/b", map[string]string{x402.HeaderSignInWithX: captured})
	if want := c.refusal(access.TextSIWxNonceReplayed); resp.StatusCode != 402 || string(b) != want {
		t.Fatalf("replayed sign-in: %d %s\nwant 402 %s", resp.StatusCode, b, want)
	}
	// Another wallet, with a valid signature of its own: no grant.
	c = challengeOf(t, testutil.SiteURL+"/acc/b")
	resp, b = accessGet(t, testutil.SiteURL+"/acc/b", map[string]string{x402.HeaderSignInWithX: signIn(t, c, other, nil)})
	if want := c.refusal("No access grant for " + otherAddr + " on this route: pay for access"); resp.StatusCode != 402 || string(b) != want {
		t.Fatalf("another wallet: %d %s\nwant 402 %s", resp.StatusCode, b, want)
	}
	// Another route of the site: the grant does not open it.
	c = challengeOf(t, testutil.SiteURL+"/other/x")
	resp, b = accessGet(t, testutil.SiteURL+"/other/x", map[string]string{x402.HeaderSignInWithX: signIn(t, c, buyer, nil)})
	if want := c.refusal("No access grant for " + buyerAddr + " on this route: pay for access"); resp.StatusCode != 402 || string(b) != want {
		t.Fatalf("another route: %d %s\nwant 402 %s", resp.StatusCode, b, want)
	}

	// Every check of the message, each refused with its reason.
	now := time.Now().UTC()
	stamp := func(d time.Duration) string { return now.Add(d).Format(isoMillis) }
	for _, tc := range []struct {
		name   string
		header func(c challenge) string
		reason string
	}{
		{"not base64", func(challenge) string { return "%%%" }, "Invalid SIWX header: not valid base64"},
		{"missing fields", func(challenge) string { return "eyJkb21haW4iOiJoIn0" },
			"Invalid SIWX header: missing address, chainId, issuedAt, nonce, signature, type, uri, version"},
		{"version", func(c challenge) string {
			return signIn(t, c, buyer, func(i *x402.SIWxInfo, _ *x402.SIWxChain) { i.Version = "2" })
		}, `Unsupported SIWX version "2": want "1"`},
		{"chain", func(c challenge) string {
			return signIn(t, c, buyer, func(_ *x402.SIWxInfo, ch *x402.SIWxChain) { ch.ChainID = "eip155:1" })
		}, "Unsupported chain: this route signs in on eip155:338 (eip191), not eip155:1 (eip191)"},
		{"domain", func(c challenge) string {
			return signIn(t, c, buyer, func(i *x402.SIWxInfo, _ *x402.SIWxChain) { i.Domain = "evil.example" })
		}, fmt.Sprintf(`Domain mismatch: expected %q, got "evil.example"`, host)},
		{"origin", func(c challenge) string {
			return signIn(t, c, buyer, func(i *x402.SIWxInfo, _ *x402.SIWxChain) { i.URI = "http://evil.example/acc/c" })
		}, fmt.Sprintf(`URI mismatch: expected origin %q, got "http://evil.example"`, testutil.SiteURL)},
		{"uri", func(c challenge) string {
			return signIn(t, c, buyer, func(i *x402.SIWxInfo, _ *x402.SIWxChain) { i.URI = testutil.SiteURL + "/acc/a" })
		}, fmt.Sprintf(`URI mismatch: expected %q, got %q`, testutil.SiteURL+"/acc/c", testutil.SiteURL+"/acc/a")},
		{"too old", func(c challenge) string {
			return signIn(t, c, buyer, func(i *x402.SIWxInfo, _ *x402.SIWxChain) { i.IssuedAt = stamp(-10 * time.Minute) })
		}, "Message too old: 600s exceeds 300s limit"},
		{"future", func(c challenge) string {
			return signIn(t, c, buyer, func(i *x402.SIWxInfo, _ *x402.SIWxChain) { i.IssuedAt = stamp(time.Minute) })
		}, "issuedAt is in the future"},
		{"bad issuedAt", func(c challenge) string {
			return signIn(t, c, buyer, func(i *x402.SIWxInfo, _ *x402.SIWxChain) { i.IssuedAt = "yesterday" })
		}, "Invalid issuedAt timestamp"},
		{"expired", func(c challenge) string {
			return signIn(t, c, buyer, func(i *x402.SIWxInfo, _ *x402.SIWxChain) { i.ExpirationTime = stamp(-time.Second) })
		}, "Message expired"},
		{"nonce not ours", func(c challenge) string {
			return signIn(t, c, buyer, func(i *x402.SIWxInfo, _ *x402.SIWxChain) { i.Nonce = strings.Repeat("ab", 24) })
		}, access.TextSIWxNonceUnknown},
		{"nonce of another issuedAt", func(c challenge) string {
			return signIn(t, c, buyer, func(i *x402.SIWxInfo, _ *x402.SIWxChain) { i.IssuedAt = stamp(-time.Minute) })
		}, access.TextSIWxNonceUnknown},
		{"another key signed", func(c challenge) string {
			p, _, err := x402.SignSIWx(c.decl.Info, c.decl.SupportedChains[0], other)
			if err != nil {
				t.Fatal(err)
			}
			p.Address = buyerAddr
			h, _ := x402.EncodeBase64JSON(p)
			return h
		}, access.TextSIWxSignature},
	} {
		c := challengeOf(t, testutil.SiteURL+"/acc/c")
		resp, b := accessGet(t, testutil.SiteURL+"/acc/c", map[string]string{x402.HeaderSignInWithX: tc.header(c)})
		if want := c.refusal(tc.reason); resp.StatusCode != 402 || string(b) != want {
			t.Errorf("%s: %d %s\nwant 402 %s", tc.name, resp.StatusCode, b, want)
		}
	}

	// The cookie: a reload is served; another route's name, a tampered or
	// foreign value is ignored.
	resp, b = accessGet(t, testutil.SiteURL+"/acc/z", nil, ck)
	if resp.StatusCode != 200 || upstreamSaw(t, b)[httpx.HeaderAccessVia] != access.ViaCookie || upstreamSaw(t, b)[httpx.HeaderFrom] != buyerAddr {
		t.Fatalf("reload with the cookie: %d %s", resp.StatusCode, b)
	}
	// Another route's cookie (another buyer paid there) carries another
	// route: the /acc/ value under its name, or the /acc/ cookie itself,
	// is ignored at /other/.
	resp, b = payV2At(t, tester, testutil.SiteURL+"/other/a", other)
	ck2 := accessCookieOf(resp)
	if resp.StatusCode != 200 || ck2 == nil || ck2.Name == ck.Name || ck2.Path != "/other/" {
		t.Fatalf("paid /other/a: %d %v %s", resp.StatusCode, resp.Header["Set-Cookie"], b)
	}
	if resp, b = accessGet(t, testutil.SiteURL+"/other/z", nil, ck2); resp.StatusCode != 200 || upstreamSaw(t, b)[httpx.HeaderFrom] != otherAddr {
		t.Fatalf("/other/ with its own cookie: %d %s", resp.StatusCode, b)
	}
	unpaid := string(challengeOf(t, testutil.SiteURL+"/other/z").body)
	for name, cookie := range map[string]*http.Cookie{
		"the /acc/ cookie at /other/":    ck,
		"its value under /other/'s name": {Name: ck2.Name, Value: ck.Value},
	} {
		if resp, b = accessGet(t, testutil.SiteURL+"/other/z", nil, cookie); resp.StatusCode != 402 || string(b) != unpaid {
			t.Errorf("%s: %d %s", name, resp.StatusCode, b)
		}
	}
	parts := strings.Split(ck.Value, ".")
	parts[3] = strconv.FormatInt(time.Now().Add(48*time.Hour).Unix(), 10)
	tampered := &http.Cookie{Name: ck.Name, Value: strings.Join(parts, ".")}
	unpaid = string(challengeOf(t, testutil.SiteURL+"/acc/z").body)
	if resp, b = accessGet(t, testutil.SiteURL+"/acc/z", nil, tampered); resp.StatusCode != 402 || string(b) != unpaid {
		t.Errorf("tampered cookie: %d %s", resp.StatusCode, b)
	}

	// access_cookie off: the paid answer sets none, but tells the end.
	resp, b = payV2At(t, tester, testutil.SiteURL+"/nocookie/a", buyer)
	if resp.StatusCode != 200 || accessCookieOf(resp) != nil || resp.Header.Get(httpx.HeaderAccessUntil) == "" {
		t.Fatalf("access_cookie off: %d, cookies %v, until %q: %s", resp.StatusCode, resp.Header["Set-Cookie"], resp.Header.Get(httpx.HeaderAccessUntil), b)
	}

	// A short window: the cookie and the sign-in stop when it ends.
	resp, b = payV2At(t, tester, testutil.SiteURL+"/short/a", buyer)
	short := accessCookieOf(resp)
	if resp.StatusCode != 200 || short == nil || short.MaxAge > 3 || short.Path != "/short/" {
		t.Fatalf("paid /short/a: %d %v %s", resp.StatusCode, resp.Header["Set-Cookie"], b)
	}
	end, _ := time.Parse(time.RFC3339, resp.Header.Get(httpx.HeaderAccessUntil))
	if resp, _ = accessGet(t, testutil.SiteURL+"/short/b", nil, short); resp.StatusCode != 200 {
		t.Fatalf("within the window: %d", resp.StatusCode)
	}
	time.Sleep(time.Until(end) + 100*time.Millisecond)
	unpaid = string(challengeOf(t, testutil.SiteURL+"/short/b").body)
	if resp, b = accessGet(t, testutil.SiteURL+"/short/b", nil, short); resp.StatusCode != 402 || string(b) != unpaid {
		t.Errorf("expired cookie: %d %s", resp.StatusCode, b)
	}
	c = challengeOf(t, testutil.SiteURL+"/short/b")
	resp, b = accessGet(t, testutil.SiteURL+"/short/b", map[string]string{x402.HeaderSignInWithX: signIn(t, c, buyer, nil)})
	if want := c.refusal("The access grant of " + buyerAddr + " on this route ended at " + end.UTC().Format(time.RFC3339) + ": pay again for access"); resp.StatusCode != 402 || string(b) != want {
		t.Errorf("after the window: %d %s\nwant 402 %s", resp.StatusCode, b, want)
	}

	// Honest numbers: three payments granted access; two requests were
	// served by a grant on /acc (one sign-in, one cookie) and one on
	// /short, none of them a payment.
	after := testutil.Scrape(t)
	delta := func(name string, labels map[string]string) float64 {
		a, _ := testutil.Sample(after, name, labels)
		b, _ := testutil.Sample(metricsBefore, name, labels)
		return a - b
	}
	for _, m := range []struct {
		name   string
		labels map[string]string
		want   float64
	}{
		{"x402_access_grants_total", map[string]string{"network": "cronos-testnet", "route": "acc"}, 1},
		{"x402_access_requests_total", map[string]string{"network": "cronos-testnet", "route": "acc", "via": access.ViaSIWx, "outcome": "served", "reason": ""}, 1},
		{"x402_access_requests_total", map[string]string{"network": "cronos-testnet", "route": "acc", "via": access.ViaCookie, "outcome": "served", "reason": ""}, 1},
		{"x402_access_requests_total", map[string]string{"network": "cronos-testnet", "route": "acc", "via": access.ViaSIWx, "outcome": "refused", "reason": "invalid_siwx_nonce"}, 3},
		{"x402_access_requests_total", map[string]string{"network": "cronos-testnet", "route": "acc", "via": access.ViaSIWx, "outcome": "refused", "reason": "no_access_grant"}, 2},
		{"x402_payments_total", map[string]string{"network": "cronos-testnet", "route": "acc", "outcome": "settled", "reason": ""}, 1},
	} {
		if got := delta(m.name, m.labels); got != m.want {
			t.Errorf("%s%v went up by %v, want %v", m.name, m.labels, got, m.want)
		}
	}

	// A reload builds new handlers: the key comes from Caddy's storage and
	// the grants from the store, so the cookie and sign-ins still hold.
	testutil.NewTester(t, strings.Replace(siteConfig, "label acc", "label acc2", 1))
	if resp, b = accessGet(t, testutil.SiteURL+"/acc/z", nil, ck); resp.StatusCode != 402 {
		// The label is part of the route's identity: a renamed route is
		// another route.
		t.Fatalf("the cookie after renaming the route: %d %s", resp.StatusCode, b)
	}
	testutil.NewTester(t, siteConfig)
	if resp, b = accessGet(t, testutil.SiteURL+"/acc/z", nil, ck); resp.StatusCode != 200 {
		t.Fatalf("the cookie after a reload: %d %s", resp.StatusCode, b)
	}
	c = challengeOf(t, testutil.SiteURL+"/acc/y")
	if resp, b = accessGet(t, testutil.SiteURL+"/acc/y", map[string]string{x402.HeaderSignInWithX: signIn(t, c, buyer, nil)}); resp.StatusCode != 200 {
		t.Fatalf("a sign-in after a reload: %d %s", resp.StatusCode, b)
	}
}

// TestPaySignsIn: "caddy x402 pay" signs in first where the seller offers
// it: with no grant the sign-in is refused and it pays (one transfer);
// the second run is served by the grant with no transfer and says so.
func TestPaySignsIn(t *testing.T) {
	up := testutil.EchoUpstream(t)
	testutil.NewTester(t, testutil.GlobalBlock("")+fmt.Sprintf(`
:%d {
	x402 /cli/* {
		pay_to %[2]s
		amount 17
		network eip155:338
		access 1h
	}
	reverse_proxy %[3]s
}
`, testutil.SitePort, accessSeller, up.Listener.Addr()))
	buyer := testutil.BuyerKey(t, devnet.Buyer3PrivateKey)
	addr := crypto.PubkeyToAddress(buyer.PublicKey).Hex()
	o := x402cmd.PayOptions{Key: devnet.Buyer3PrivateKey, MaxAmount: "100", Timeout: 30 * time.Second}
	sellerBefore := testutil.Balance(t, accessSeller)

	var stdout, stderr strings.Builder
	if err := x402cmd.RunPay(t.Context(), testutil.SiteURL+"/cli/a", o, &stdout, &stderr); err != nil {
		t.Fatalf("first run: %v\n%s", err, stderr.String())
	}
	want := "x402: no access grant for " + addr + " on this route yet (Sign-In-With-X: No access grant for " + addr + " on this route: pay for access); paying\n"
	if !strings.HasPrefix(stderr.String(), want) || !strings.Contains(stderr.String(), "x402: paying 17 smallest units") {
		t.Fatalf("first run's stderr:\n%s\nwant it to start with\n%s", stderr.String(), want)
	}
	if saw := upstreamSaw(t, []byte(stdout.String())); saw[httpx.HeaderTxHash] == "" {
		t.Fatalf("first run was not paid: %s", stdout.String())
	}
	testutil.AssertDelta(t, "seller", sellerBefore, testutil.Balance(t, accessSeller), 17)

	stdout.Reset()
	stderr.Reset()
	if err := x402cmd.RunPay(t.Context(), testutil.SiteURL+"/cli/b", o, &stdout, &stderr); err != nil {
		t.Fatalf("second run: %v\n%s", err, stderr.String())
	}
	saw := upstreamSaw(t, []byte(stdout.String()))
	want = "x402: signed in as " + addr + " with Sign-In-With-X (access until " + saw[httpx.HeaderAccessUntil] + "): served without a new payment\n"
	if stderr.String() != want || saw[httpx.HeaderAccessVia] != access.ViaSIWx || saw[httpx.HeaderTxHash] != "" {
		t.Fatalf("second run: stderr %q\nwant %q\nupstream saw %v", stderr.String(), want, saw)
	}
	testutil.AssertDelta(t, "seller", sellerBefore, testutil.Balance(t, accessSeller), 17)

	// --no-sign-in pays at once.
	stderr.Reset()
	o.NoSignIn = true
	if err := x402cmd.RunPay(t.Context(), testutil.SiteURL+"/cli/c", o, &stdout, &stderr); err != nil || strings.Contains(stderr.String(), "Sign-In-With-X") {
		t.Fatalf("--no-sign-in: %v\n%s", err, stderr.String())
	}
	testutil.AssertDelta(t, "seller", sellerBefore, testutil.Balance(t, accessSeller), 34)
}
