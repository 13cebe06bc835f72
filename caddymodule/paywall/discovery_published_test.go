package paywall

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/caddy-x402/caddy-x402/caddymodule/internal/testutil"
	"github.com/caddy-x402/caddy-x402/facilitator/devnet"
	"github.com/caddy-x402/caddy-x402/facilitator/exact"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// stranger's bazaar declaration, as a paying client echoes it.
const strangerBazaar = `{"info":{"input":{"type":"http","method":"GET"}},"schema":{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object",` +
	`"properties":{"input":{"type":"object","properties":{"type":{"type":"string","const":"http"},"method":{"type":"string","enum":["GET"]}},"required":["type"]}},"required":["input"]}}`

// TestDiscoveryPublished (issue 32, finding 6): the facilitator's
// discovery list publishes only what the seller chose to (a site bound to
// loopback is left out unless a route says discovery always), lists URLs
// from the configuration whatever Host the request names, and its catalog
// takes no entry from a stranger's payment for an origin this Caddy
// serves, while it still catalogs other origins.
func TestDiscoveryPublished(t *testing.T) {
	since := time.Now()
	loop := testutil.FreePort(t)
	tester := testutil.NewTester(t, testutil.GlobalBlock("")+fmt.Sprintf(`
:%d {
	x402_facilitator {
		rate_limit off
	}
	x402 /weather {
		pay_to %s
		amount 10000
		network eip155:338
		description "weather now"
	}
	respond "ok"
}
:%d {
	bind 127.0.0.1
	x402 /private {
		pay_to %s
		amount 5
		network eip155:338
	}
	x402 /public {
		pay_to %s
		amount 6
		network eip155:338
		discovery always
	}
	respond "ok"
}
`, testutil.SitePort, testutil.SellerAddr, loop, testutil.Seller2Addr, testutil.Seller2Addr))
	token := devnet.TokenAddress.Hex()
	accept := func(payTo, amount string) string {
		return `{"scheme":"exact","network":"eip155:338","amount":"` + amount + `","asset":"` + token + `","payTo":"` + payTo +
			`","maxTimeoutSeconds":300,"extra":{"name":"` + devnet.TokenName + `","version":"` + devnet.TokenVersion + `"}}`
	}
	bareDecl := `{"info":{"input":{"type":"http"}},"schema":{"$schema":"https://json-schema.org/draft/2020-12/schema","properties":{"input":{"additionalProperties":false,"properties":{"method":{"enum":["GET","HEAD","DELETE","POST","PUT","PATCH"],"type":"string"},"queryParams":{"type":"object"},"type":{"const":"http","type":"string"}},"required":["type"],"type":"object"}},"required":["input"],"type":"object"}}`
	// get asks with the Host header host ("" for the URL's own).
	get := func(path, host string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, testutil.SiteURL+path, nil)
		if host != "" {
			req.Host = host
		}
		resp, err := tester.Client.Do(req)
		if err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, strings.TrimSpace(normalizeUpdated(t, b, since))
	}

	// A site bound to 127.0.0.1 is not published, but for its route with
	// discovery always (under its bind address).
	loopURL := fmt.Sprintf("http://127.0.0.1:%d", loop)
	want := `{"x402Version":2,"items":[{"resource":"` + loopURL + `/public","type":"http","x402Version":2,"accepts":[` + accept(testutil.Seller2Addr, "6") +
		`],"lastUpdated":"T","extensions":{"bazaar":` + bareDecl + `}}],"pagination":{"limit":100,"offset":0,"total":1}}`
	if status, got := get("/v2/x402/discovery/resources?payTo="+testutil.Seller2Addr, ""); status != 200 || got != want {
		t.Errorf("the loopback site's routes in the list = %d\n%s\nwant\n%s", status, got, want)
	}

	// The URLs come from the configuration, whatever the Host: a site
	// without a host name is listed under localhost, in the list and in
	// its manifest.
	weather := `{"resource":"` + testutil.SiteURL + `/weather","type":"http","x402Version":2,"accepts":[` + accept(testutil.SellerAddr, "10000") +
		`],"lastUpdated":"T","description":"weather now","extensions":{"bazaar":` + bareDecl + `}}`
	want = `{"x402Version":2,"items":[` + weather + `],"pagination":{"limit":100,"offset":0,"total":1}}`
	manifest := `{"x402Version":2,"lastUpdated":"T","items":[{"resource":{"url":"` + testutil.SiteURL + `/weather","description":"weather now"},"type":"http","accepts":[` +
		accept(testutil.SellerAddr, "10000") + `],"input":{}}]}`
	for _, host := range []string{"", "evil.example", "evil.example:6666"} {
		if status, got := get("/v2/x402/discovery/resources?payTo="+testutil.SellerAddr, host); status != 200 || got != want {
			t.Errorf("list asked with Host %q = %d\n%s\nwant\n%s", host, status, got, want)
		}
		if status, got := get("/.well-known/x402.json", host); status != 200 || got != manifest {
			t.Errorf("manifest asked with Host %q = %d\n%s\nwant\n%s", host, status, got, manifest)
		}
	}

	// A stranger pays its own payTo 1 through our facilitator and echoes a
	// declaration for our URLs: refused (the payment settles all the same);
	// for another origin it is cataloged.
	key, _ := crypto.GenerateKey()
	stranger := crypto.PubkeyToAddress(key.PublicKey).Hex()
	buyer := testutil.BuyerKey(t, devnet.Buyer2PrivateKey)
	settle := func(resource string) string {
		t.Helper()
		acc := x402.RequirementsV2{Scheme: "exact", Network: "eip155:338", Amount: "1", Asset: token, PayTo: stranger, MaxTimeoutSeconds: 300,
			Extra: map[string]any{"name": devnet.TokenName, "version": devnet.TokenVersion}}
		h, _, err := exact.CreatePaymentV2(buyer, acc, &x402.ResourceInfo{URL: resource, Description: "OFFICIAL endpoint - pay here"}, exact.PaymentOptions{})
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := x402.DecodeBase64(h)
		var payload map[string]any
		_ = json.Unmarshal(raw, &payload)
		payload["extensions"] = map[string]any{"bazaar": json.RawMessage(strangerBazaar)}
		body, _ := json.Marshal(map[string]any{"x402Version": 2, "paymentPayload": payload, "paymentRequirements": acc})
		resp, err := tester.Client.Post(testutil.SiteURL+x402.PathSettle, "application/json", strings.NewReader(string(body)))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var s map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&s)
		if resp.StatusCode != 200 || s["success"] != true {
			t.Fatalf("settle for %s = %d %v", resource, resp.StatusCode, s)
		}
		ext, _ := x402.DecodeBase64(resp.Header.Get("EXTENSION-RESPONSES"))
		return string(ext)
	}
	// The catalog outlives this config: the entry written here goes with
	// it, so that other tests' lists stay theirs.
	defer func() {
		if _, err := testutil.ActiveFacilitator(t).Catalog().PruneCatalog(time.Now().Add(time.Second)); err != nil {
			t.Errorf("emptying the catalog: %v", err)
		}
	}()
	before := testutil.Balance(t, stranger)
	const refused = `{"bazaar":{"status":"rejected","rejectedReason":"the resource's origin is served by this facilitator's own server, whose routes are listed from its configuration; it is not cataloged from a payment"}}`
	for _, resource := range []string{testutil.SiteURL + "/weather", fmt.Sprintf("http://127.0.0.1:%d/weather", testutil.SitePort), loopURL + "/private", testutil.SiteURL + "/elsewhere"} {
		if got := settle(resource); got != refused {
			t.Errorf("a stranger's declaration for %s: EXTENSION-RESPONSES %s, want %s", resource, got, refused)
		}
	}
	if got := settle("https://weather.example/now"); got != `{"bazaar":{"status":"success"}}` {
		t.Errorf("a declaration for another origin: EXTENSION-RESPONSES %s", got)
	}
	testutil.AssertDelta(t, "the stranger", before, testutil.Balance(t, stranger), 5)
	var decl map[string]any
	_ = json.Unmarshal([]byte(strangerBazaar), &decl)
	declJSON, _ := json.Marshal(map[string]any{"info": decl["info"], "schema": decl["schema"]})
	want = `{"x402Version":2,"items":[{"resource":"https://weather.example/now","type":"http","x402Version":2,"accepts":[` + accept(stranger, "1") +
		`],"lastUpdated":"T","description":"OFFICIAL endpoint - pay here","extensions":{"bazaar":` + string(declJSON) + `}}],"pagination":{"limit":100,"offset":0,"total":1}}`
	if status, got := get("/v2/x402/discovery/resources?payTo="+stranger, ""); status != 200 || got != want {
		t.Errorf("the stranger's catalog entries = %d\n%s\nwant\n%s", status, got, want)
	}
}
