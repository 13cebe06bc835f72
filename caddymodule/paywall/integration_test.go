package paywall

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/caddy-x402/caddy-x402/caddymodule/internal/httpx"
	"github.com/caddy-x402/caddy-x402/caddymodule/internal/testutil"
	"github.com/caddy-x402/caddy-x402/facilitator/devnet"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

func TestPaywall402Body(t *testing.T) {
	tester := testutil.NewTester(t, testutil.GlobalBlock("")+fmt.Sprintf(`
:%d {
	x402 /weather {
		pay_to %s
		price 0.01
		description "Weather data"
		mime_type application/json
	}
	rewrite /old-weather /weather
	respond "sunny"
}
`, testutil.SitePort, testutil.SellerAddr))

	// The resource is the URL the buyer asked for, before any rewrite.
	if got := testutil.Require402(t, tester, testutil.SiteURL+"/old-weather?city=Oslo").PaymentRequirements.Resource; got != testutil.SiteURL+"/old-weather?city=Oslo" {
		t.Errorf("resource after a rewrite: %q", got)
	}

	resp, b := testutil.Get(t, tester, testutil.SiteURL+"/weather?city=Paris", nil)
	if resp.StatusCode != http.StatusPaymentRequired {
		t.Fatalf("status %d, want 402", resp.StatusCode)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type %q, want application/json", ct)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatalf("402 body is not JSON: %s", b)
	}
	for _, k := range []string{"error", "x402Version", "paymentRequirements", "accepts"} {
		if _, ok := raw[k]; !ok {
			t.Errorf("402 body lacks %q: %s", k, b)
		}
	}
	var got testutil.Body402
	_ = json.Unmarshal(b, &got)
	want := x402.PaymentRequirements{
		Scheme:            "exact",
		Network:           "cronos-testnet",
		PayTo:             testutil.SellerAddr,
		Asset:             devnet.TokenAddress.Hex(),
		MaxAmountRequired: "10000",
		MaxTimeoutSeconds: 300,
		Resource:          testutil.SiteURL + "/weather?city=Paris",
		Description:       "Weather data",
		MimeType:          "application/json",
		Extra:             &x402.DomainInfo{Name: devnet.TokenName, Version: devnet.TokenVersion},
	}
	checks := []struct{ field, got, want string }{
		{"error", got.Error, "X-PAYMENT header is required"},
		{"x402Version", fmt.Sprint(got.X402Version), "1"},
		{"scheme", got.PaymentRequirements.Scheme, want.Scheme},
		{"network", got.PaymentRequirements.Network, want.Network},
		{"payTo", got.PaymentRequirements.PayTo, want.PayTo},
		{"asset", got.PaymentRequirements.Asset, want.Asset},
		{"maxAmountRequired", got.PaymentRequirements.MaxAmountRequired, want.MaxAmountRequired},
		{"maxTimeoutSeconds", fmt.Sprint(got.PaymentRequirements.MaxTimeoutSeconds), "300"},
		{"resource", got.PaymentRequirements.Resource, want.Resource},
		{"description", got.PaymentRequirements.Description, want.Description},
		{"mimeType", got.PaymentRequirements.MimeType, want.MimeType},
		{"accepts length", fmt.Sprint(len(got.Accepts)), "1"},
	}
	if got.PaymentRequirements.Extra == nil {
		t.Errorf("paymentRequirements.extra is missing")
	} else {
		checks = append(checks,
			struct{ field, got, want string }{"extra.name", got.PaymentRequirements.Extra.Name, want.Extra.Name},
			struct{ field, got, want string }{"extra.version", got.PaymentRequirements.Extra.Version, want.Extra.Version})
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %q, want %q", c.field, c.got, c.want)
		}
	}
	if len(got.Accepts) == 1 {
		a, _ := json.Marshal(got.Accepts[0])
		p, _ := json.Marshal(got.PaymentRequirements)
		if string(a) != string(p) {
			t.Errorf("accepts[0] differs from paymentRequirements:\n%s\n%s", a, p)
		}
	}

	// Unpaid paths outside the matcher are free.
	if resp, b := testutil.Get(t, tester, testutil.SiteURL+"/free", nil); resp.StatusCode != 200 || string(b) != "sunny" {
		t.Errorf("free path: %d %q", resp.StatusCode, b)
	}

	// Bad input from the buyer is a 402 with a reason, never a 500.
	// The refusal names the header the buyer sent.
	bad := []struct{ name, sent, header, want string }{
		{"not base64", "X-Payment", "%%%not-base64%%%", x402.ReasonInvalidBase64},
		{"not json", "X-Payment", base64.StdEncoding.EncodeToString([]byte("hello")), x402.ReasonInvalidBase64},
		{"too big", "X-Payment", strings.Repeat("A", httpx.MaxPaymentHeaderBytes+1), "X-PAYMENT header exceeds 16 KiB"},
		{"too big v2", x402.HeaderPaymentSignature, strings.Repeat("A", httpx.MaxPaymentHeaderBytes+1), "PAYMENT-SIGNATURE header exceeds 16 KiB"},
		{"wrong scheme", "X-Payment", base64.StdEncoding.EncodeToString([]byte(`{"x402Version":1,"scheme":"upto","network":"cronos-testnet","payload":{}}`)), ""},
	}
	for _, c := range bad {
		t.Run(c.name, func(t *testing.T) {
			resp, b := testutil.Get(t, tester, testutil.SiteURL+"/weather", map[string]string{c.sent: c.header})
			if resp.StatusCode != http.StatusPaymentRequired {
				t.Fatalf("status %d, want 402: %s", resp.StatusCode, b)
			}
			var out testutil.Body402
			if err := json.Unmarshal(b, &out); err != nil {
				t.Fatalf("body is not JSON: %s", b)
			}
			if out.Error == "" || out.Error != out.InvalidReason {
				t.Errorf("error %q, invalidReason %q: want both set and equal", out.Error, out.InvalidReason)
			}
			if c.want != "" && out.Error != c.want {
				t.Errorf("error %q, want %q", out.Error, c.want)
			}
			if out.PaymentRequirements.PayTo != testutil.SellerAddr || len(out.Accepts) != 1 {
				t.Errorf("the 402 lacks the requirements: %s", b)
			}
		})
	}
}

func TestPaidRequest(t *testing.T) {
	up := testutil.EchoUpstream(t)
	tester := testutil.NewTester(t, testutil.GlobalBlock("")+fmt.Sprintf(`
:%d {
	x402 /api/* {
		pay_to %s
		price 0.01
	}
	x402 /cheap {
		pay_to %s
		amount 10
	}
	x402 /other-seller {
		pay_to %s
		price 0.01
	}
	x402 /placeholders {
		pay_to %s
		amount 7
	}
	respond /placeholders "tx={http.x402.tx_hash} from={http.x402.from} to={http.x402.to} value={http.x402.value} network={http.x402.network} block={http.x402.block_number} var={http.vars.x402.tx_hash}"
	respond /cheap "cheap"
	respond /other-seller "other"
	reverse_proxy %s
}
`, testutil.SitePort, testutil.SellerAddr, testutil.SellerAddr, testutil.Seller2Addr, testutil.SellerAddr, up.Listener.Addr()))

	buyer := testutil.BuyerKey(t, devnet.Buyer1PrivateKey)
	buyerAddr := crypto.PubkeyToAddress(buyer.PublicKey).Hex()
	reqs := testutil.Require402(t, tester, testutil.SiteURL+"/api/data").PaymentRequirements
	header := testutil.Pay(t, buyer, reqs)

	buyerBefore, sellerBefore := testutil.Balance(t, buyerAddr), testutil.Balance(t, testutil.SellerAddr)
	resp, b := testutil.Get(t, tester, testutil.SiteURL+"/api/data", map[string]string{
		"X-Payment":         header,
		"X-Payment-Tx-Hash": "0xforged", // must not reach the upstream
	})
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("paid request: status %d: %s", resp.StatusCode, b)
	}
	var seen map[string]string
	if err := json.Unmarshal(b, &seen); err != nil {
		t.Fatalf("upstream answer: %s", b)
	}
	if h := seen[httpx.HeaderTxHash]; len(h) != 66 || !strings.HasPrefix(h, "0x") {
		t.Errorf("upstream got %s %q, want the transaction hash", httpx.HeaderTxHash, h)
	}
	if !strings.EqualFold(seen[httpx.HeaderFrom], buyerAddr) {
		t.Errorf("upstream got %s %q, want %s", httpx.HeaderFrom, seen[httpx.HeaderFrom], buyerAddr)
	}
	if seen[httpx.HeaderValue] != "10000" || seen[httpx.HeaderNetwork] != "cronos-testnet" || seen[httpx.HeaderBlockNumber] == "" {
		t.Errorf("upstream got value %q network %q block %q", seen[httpx.HeaderValue], seen[httpx.HeaderNetwork], seen[httpx.HeaderBlockNumber])
	}

	// X-PAYMENT-RESPONSE.
	raw, err := base64.StdEncoding.DecodeString(resp.Header.Get("X-Payment-Response"))
	if err != nil {
		t.Fatalf("X-PAYMENT-RESPONSE is not Base64: %v", err)
	}
	var pr map[string]any
	if err := json.Unmarshal(raw, &pr); err != nil {
		t.Fatalf("X-PAYMENT-RESPONSE is not JSON: %s", raw)
	}
	if pr["success"] != true || pr["transaction"] != seen[httpx.HeaderTxHash] || pr["txHash"] != seen[httpx.HeaderTxHash] ||
		pr["network"] != "cronos-testnet" || !strings.EqualFold(fmt.Sprint(pr["payer"]), buyerAddr) ||
		pr["event"] != x402.EventSettled || pr["value"] != "10000" || pr["blockNumber"] == nil ||
		pr["timestamp"] == "" || !strings.EqualFold(fmt.Sprint(pr["to"]), testutil.SellerAddr) {
		t.Errorf("X-PAYMENT-RESPONSE = %s", raw)
	}

	// The money moved on chain, exactly.
	testutil.AssertDelta(t, "buyer", buyerBefore, testutil.Balance(t, buyerAddr), -10000)
	testutil.AssertDelta(t, "seller", sellerBefore, testutil.Balance(t, testutil.SellerAddr), 10000)

	// The same X-PAYMENT again is refused.
	resp, b = testutil.Get(t, tester, testutil.SiteURL+"/api/data", map[string]string{"X-Payment": header})
	var replay testutil.Body402
	_ = json.Unmarshal(b, &replay)
	if resp.StatusCode != http.StatusPaymentRequired || replay.Error != x402.ErrTextAlreadyUsed {
		t.Errorf("replay: status %d error %q, want 402 %q", resp.StatusCode, replay.Error, x402.ErrTextAlreadyUsed)
	}
	testutil.AssertDelta(t, "buyer after replay", buyerBefore, testutil.Balance(t, buyerAddr), -10000)

	// A payment for a cheaper route, or for another seller, is refused.
	cheap := testutil.Pay(t, buyer, testutil.Require402(t, tester, testutil.SiteURL+"/cheap").PaymentRequirements)
	other := testutil.Pay(t, buyer, testutil.Require402(t, tester, testutil.SiteURL+"/other-seller").PaymentRequirements)
	for _, c := range []struct{ name, header, want string }{
		{"cheaper route", cheap, "Invalid amount"},
		{"other payTo", other, x402.ReasonRecipient},
	} {
		resp, b := testutil.Get(t, tester, testutil.SiteURL+"/api/data", map[string]string{"X-Payment": c.header})
		var out testutil.Body402
		_ = json.Unmarshal(b, &out)
		if resp.StatusCode != http.StatusPaymentRequired || !strings.HasPrefix(out.Error, c.want) {
			t.Errorf("%s: status %d error %q, want 402 %q", c.name, resp.StatusCode, out.Error, c.want)
		}
	}
	testutil.AssertDelta(t, "buyer after refusals", buyerBefore, testutil.Balance(t, buyerAddr), -10000)

	// Placeholders and vars.
	resp, b = testutil.Get(t, tester, testutil.SiteURL+"/placeholders", map[string]string{
		"X-Payment": testutil.Pay(t, buyer, testutil.Require402(t, tester, testutil.SiteURL+"/placeholders").PaymentRequirements),
	})
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("placeholders: status %d: %s", resp.StatusCode, b)
	}
	fields := map[string]string{}
	for _, kv := range strings.Fields(string(b)) {
		k, v, _ := strings.Cut(kv, "=")
		fields[k] = v
	}
	if len(fields["tx"]) != 66 || fields["var"] != fields["tx"] || !strings.EqualFold(fields["from"], buyerAddr) ||
		!strings.EqualFold(fields["to"], testutil.SellerAddr) || fields["value"] != "7" || fields["network"] != "cronos-testnet" || fields["block"] == "" {
		t.Errorf("placeholders gave %q", b)
	}
}

func TestSettleAfter(t *testing.T) {
	release := make(chan struct{})
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/broken":
			http.Error(w, "upstream failure", http.StatusInternalServerError)
		case "/events":
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(http.StatusOK)
			fmt.Fprintf(w, "data: first from %s\n\n", r.Header.Get(httpx.HeaderFrom))
			w.(http.Flusher).Flush()
			select { // the rest only once the buyer has the first event
			case <-release:
			case <-time.After(10 * time.Second):
			}
			fmt.Fprint(w, "data: second\n\n")
		case "/empty":
			w.WriteHeader(http.StatusNoContent)
		}
	}))
	t.Cleanup(upstream.Close)

	tester := testutil.NewTester(t, testutil.GlobalBlock("")+fmt.Sprintf(`
:%d {
	x402 {
		pay_to %s
		amount 20000
		settle after
	}
	reverse_proxy %s {
		flush_interval -1
	}
}
`, testutil.SitePort, testutil.SellerAddr, upstream.Listener.Addr()))

	buyer := testutil.BuyerKey(t, devnet.Buyer2PrivateKey)
	buyerAddr := crypto.PubkeyToAddress(buyer.PublicKey).Hex()

	t.Run("upstream fails, no money moves", func(t *testing.T) {
		reqs := testutil.Require402(t, tester, testutil.SiteURL+"/broken").PaymentRequirements
		before := testutil.Balance(t, buyerAddr)
		resp, b := testutil.Get(t, tester, testutil.SiteURL+"/broken", map[string]string{"X-Payment": testutil.Pay(t, buyer, reqs)})
		if resp.StatusCode != http.StatusInternalServerError || !strings.Contains(string(b), "upstream failure") {
			t.Errorf("status %d body %q, want the upstream's 500", resp.StatusCode, b)
		}
		if resp.Header.Get("X-Payment-Response") != "" {
			t.Errorf("X-PAYMENT-RESPONSE set on a failed answer")
		}
		time.Sleep(500 * time.Millisecond) // a block or two, had anything been sent
		testutil.AssertDelta(t, "buyer", before, testutil.Balance(t, buyerAddr), 0)
	})

	t.Run("stream is settled, then flows unbuffered", func(t *testing.T) {
		reqs := testutil.Require402(t, tester, testutil.SiteURL+"/events").PaymentRequirements
		before, sellerBefore := testutil.Balance(t, buyerAddr), testutil.Balance(t, testutil.SellerAddr)
		req, _ := http.NewRequest(http.MethodGet, testutil.SiteURL+"/events", nil)
		req.Header.Set("X-Payment", testutil.Pay(t, buyer, reqs))
		resp, err := tester.Client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK || resp.Header.Get("X-Payment-Response") == "" {
			t.Fatalf("status %d, X-PAYMENT-RESPONSE %q", resp.StatusCode, resp.Header.Get("X-Payment-Response"))
		}
		rd := bufio.NewReader(resp.Body)
		first, err := rd.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		// The first event arrived while the upstream still holds the rest.
		if !strings.HasPrefix(first, "data: first from ") || !strings.Contains(strings.ToLower(first), strings.ToLower(buyerAddr)) {
			t.Errorf("first chunk %q", first)
		}
		close(release)
		rest, _ := io.ReadAll(rd)
		if !strings.Contains(string(rest), "data: second") {
			t.Errorf("rest of the stream %q", rest)
		}
		testutil.AssertDelta(t, "buyer", before, testutil.Balance(t, buyerAddr), -20000)
		testutil.AssertDelta(t, "seller", sellerBefore, testutil.Balance(t, testutil.SellerAddr), 20000)
	})

	t.Run("replay after settle-after is refused", func(t *testing.T) {
		reqs := testutil.Require402(t, tester, testutil.SiteURL+"/empty").PaymentRequirements
		header := testutil.Pay(t, buyer, reqs)
		resp, _ := testutil.Get(t, tester, testutil.SiteURL+"/empty", map[string]string{"X-Payment": header})
		if resp.StatusCode != http.StatusNoContent || resp.Header.Get("X-Payment-Response") == "" {
			t.Fatalf("status %d, X-PAYMENT-RESPONSE %q", resp.StatusCode, resp.Header.Get("X-Payment-Response"))
		}
		resp, b := testutil.Get(t, tester, testutil.SiteURL+"/empty", map[string]string{"X-Payment": header})
		if resp.StatusCode != http.StatusPaymentRequired || !strings.Contains(string(b), x402.ErrTextAlreadyUsed) {
			t.Errorf("replay: status %d body %s", resp.StatusCode, b)
		}
	})
}

func TestRemoteFacilitator(t *testing.T) {
	up := testutil.EchoUpstream(t)
	tester := testutil.NewTester(t, testutil.GlobalBlock("")+fmt.Sprintf(`
:%d {
	x402_facilitator {
		rate_limit off
	}
}

:%d {
	x402 /remote {
		pay_to %s
		price 0.002
		facilitator http://127.0.0.1:%d
	}
	x402 /down {
		pay_to %s
		price 0.002
		facilitator http://127.0.0.1:1
	}
	reverse_proxy %s
}
`, testutil.FacPort, testutil.SitePort, testutil.SellerAddr, testutil.FacPort, testutil.SellerAddr, up.Listener.Addr()))

	// The facilitator site serves the API.
	resp, b := testutil.Get(t, tester, fmt.Sprintf("http://127.0.0.1:%d/v2/x402/supported", testutil.FacPort), nil)
	if resp.StatusCode != 200 || !strings.Contains(string(b), `"network":"cronos-testnet"`) {
		t.Errorf("supported: %d %s", resp.StatusCode, b)
	}
	resp, b = testutil.Get(t, tester, fmt.Sprintf("http://127.0.0.1:%d/healthcheck", testutil.FacPort), nil)
	if resp.StatusCode != 200 || !strings.Contains(string(b), `"status"`) {
		t.Errorf("healthcheck: %d %s", resp.StatusCode, b)
	}

	buyer := testutil.BuyerKey(t, devnet.Buyer3PrivateKey)
	buyerAddr := crypto.PubkeyToAddress(buyer.PublicKey).Hex()
	reqs := testutil.Require402(t, tester, testutil.SiteURL+"/remote").PaymentRequirements
	if reqs.Asset != devnet.TokenAddress.Hex() || reqs.MaxAmountRequired != "2000" || reqs.Extra == nil {
		t.Errorf("remote-mode requirements: %+v", reqs)
	}
	before, sellerBefore := testutil.Balance(t, buyerAddr), testutil.Balance(t, testutil.SellerAddr)
	resp, b = testutil.Get(t, tester, testutil.SiteURL+"/remote", map[string]string{"X-Payment": testutil.Pay(t, buyer, reqs)})
	if resp.StatusCode != 200 || !strings.Contains(string(b), httpx.HeaderTxHash) || resp.Header.Get("X-Payment-Response") == "" {
		t.Fatalf("paid through the remote facilitator: %d %s", resp.StatusCode, b)
	}
	testutil.AssertDelta(t, "buyer", before, testutil.Balance(t, buyerAddr), -2000)
	testutil.AssertDelta(t, "seller", sellerBefore, testutil.Balance(t, testutil.SellerAddr), 2000)

	// An unreachable facilitator is the seller's 500 (spec 4.5 rule 5).
	reqs = testutil.Require402(t, tester, testutil.SiteURL+"/down").PaymentRequirements
	resp, _ = testutil.Get(t, tester, testutil.SiteURL+"/down", map[string]string{"X-Payment": testutil.Pay(t, buyer, reqs)})
	if resp.StatusCode != http.StatusInternalServerError {
		t.Errorf("unreachable facilitator: status %d, want 500", resp.StatusCode)
	}
}

func TestFacilitatorRateLimits(t *testing.T) {
	tester := testutil.NewTester(t, testutil.GlobalBlock("")+fmt.Sprintf(`
:%d {
	x402_facilitator {
		rate_limit verify 2 1m
		rate_limit settle 1 1m
	}
	respond "not the facilitator" 404
}
`, testutil.FacPort))
	post := func(path string) *http.Response {
		req, _ := http.NewRequest(http.MethodPost, fmt.Sprintf("http://127.0.0.1:%d%s", testutil.FacPort, path), strings.NewReader("{}"))
		req.Header.Set("Content-Type", "application/json")
		resp, err := tester.Client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp
	}
	for _, c := range []struct {
		path string
		n    int
	}{{x402.PathVerify, 2}, {x402.PathSettle, 1}} {
		for i := 0; i < c.n; i++ {
			if resp := post(c.path); resp.StatusCode != http.StatusBadRequest {
				t.Errorf("%s request %d: status %d, want 400 (empty request)", c.path, i+1, resp.StatusCode)
			}
		}
		resp := post(c.path)
		if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "" {
			t.Errorf("%s over the limit: status %d Retry-After %q, want 429 with Retry-After",
				c.path, resp.StatusCode, resp.Header.Get("Retry-After"))
		}
	}
	// Other paths go to the next handler.
	if resp, b := testutil.Get(t, tester, fmt.Sprintf("http://127.0.0.1:%d/elsewhere", testutil.FacPort), nil); resp.StatusCode != 404 || string(b) != "not the facilitator" {
		t.Errorf("other path: %d %q", resp.StatusCode, b)
	}
}

func TestSignerKeyNotInConfig(t *testing.T) {
	// The devnet's signer, given through the environment as a seller would.
	t.Setenv("X402_TEST_SIGNER_KEY", devnet.SignerPrivateKey)
	caddyfile := testutil.GlobalBlock(`network cronos-testnet {
			signer_key {env.X402_TEST_SIGNER_KEY}
		}`) + fmt.Sprintf(`
:%d {
	x402 {
		pay_to %s
		amount 3
	}
	respond "paid"
}
`, testutil.SitePort, testutil.SellerAddr)
	tester := testutil.NewTester(t, caddyfile)

	resp, b := testutil.Get(t, tester, fmt.Sprintf("http://localhost:%d/config/", testutil.AdminPort), nil)
	if resp.StatusCode != 200 {
		t.Fatalf("GET /config/: %d", resp.StatusCode)
	}
	hexKey := strings.TrimPrefix(devnet.SignerPrivateKey, "0x")
	if strings.Contains(strings.ToLower(string(b)), hexKey) {
		t.Fatalf("GET /config/ serves the signer key")
	}
	if !strings.Contains(string(b), "{env.X402_TEST_SIGNER_KEY}") {
		t.Errorf("GET /config/ lacks the placeholder: %s", b)
	}

	// The key from the environment settles.
	buyer := testutil.BuyerKey(t, devnet.Buyer4PrivateKey)
	reqs := testutil.Require402(t, tester, testutil.SiteURL+"/").PaymentRequirements
	resp, b = testutil.Get(t, tester, testutil.SiteURL+"/", map[string]string{"X-Payment": testutil.Pay(t, buyer, reqs)})
	if resp.StatusCode != 200 || string(b) != "paid" {
		t.Errorf("paid request with the env signer: %d %s", resp.StatusCode, b)
	}

	// A literal key is refused at load time, and the error does not echo it.
	literal := strings.Replace(caddyfile, "{env.X402_TEST_SIGNER_KEY}", devnet.SignerPrivateKey, 1)
	status, b := testutil.PostLoad(t, literal, "text/caddyfile")
	if status == http.StatusOK || !strings.Contains(string(b), "signer_key must be a placeholder") || strings.Contains(string(b), hexKey) {
		t.Errorf("loading a literal key: %d %s", status, b)
	}
}

// TestReloadKeepsFacilitator loads configs one after the other and checks
// that the facilitator is kept as long as the x402 app's config is, and
// replaced when it changes (its engine then joins the running one:
// TestReloadOneEngine).
func TestReloadKeepsFacilitator(t *testing.T) {
	site := func(body string) string {
		return testutil.GlobalBlock("") + fmt.Sprintf(":%d {\n\tx402 {\n\t\tpay_to %s\n\t\tamount 1\n\t}\n\trespond %q\n}\n", testutil.SitePort, testutil.SellerAddr, body)
	}
	testutil.NewTester(t, site("one"))
	first := testutil.ActiveFacilitator(t)
	testutil.NewTester(t, site("two"))
	if second := testutil.ActiveFacilitator(t); second != first {
		t.Errorf("a reload with the same x402 app made a new facilitator")
	}
	testutil.NewTester(t, testutil.GlobalBlock("settle_timeout 20s")+fmt.Sprintf(":%d {\n\trespond ok\n}\n", testutil.SitePort))
	if third := testutil.ActiveFacilitator(t); third == first {
		t.Errorf("a reload that changed settle_timeout kept the facilitator of the old settings")
	}
}

func TestMain(m *testing.M) { testutil.Main(m) }

// TestProvisionErrors loads JSON configs (which skip the Caddyfile's
// checks) with mistakes only provisioning can see.
func TestProvisionErrors(t *testing.T) {
	config := func(app, handler string) string {
		return fmt.Sprintf(`{"admin":{"listen":"localhost:%d"},"apps":{
			"x402":{"devnet":{"listen":%q,"block_time":200000000}%s},
			"http":{"http_port":%d,"servers":{"s":{"listen":[":%d"],"routes":[{"handle":[
				{"handler":"x402","pay_to":%q%s}]}]}}}}}`,
			testutil.AdminPort, testutil.DevnetAddr, app, testutil.SitePort, testutil.SitePort, testutil.SellerAddr, handler)
	}
	tests := []struct{ name, config, want string }{
		{"unknown network", config("", `,"amount":"1","network":"moon"`),
			`is not configured in the x402 app (configured: cronos-testnet)`},
		{"price finer than the token", config("", `,"price":"0.0000001"`),
			`has more than 6 decimal places`},
		{"literal key in JSON", config(`,"networks":[{"name":"cronos-testnet","signer_keys":["`+devnet.SignerPrivateKey+`"]}]`, `,"amount":"1"`),
			"signer_key must be a placeholder"},
		{"price without decimals on a remote network", config("", `,"price":"0.01","network":"eip155:84532","facilitator":"http://127.0.0.1:1/facilitator","asset":"0x036CbD53842c5426634e7929541eC2318f3dCF7e"`),
			`token are unknown with a remote facilitator: set decimals, or give amount`},
		{"bad facilitator dialect", config("", `,"amount":"1","facilitator":"http://127.0.0.1:1","facilitator_dialect":"v3"`),
			`is not one of cronos, v1, v2`},
		{"one network listed twice by two names", config("", `,"amount":"1","networks":["cronos-testnet","eip155:338"]`),
			`eip155:338\"): list each network once`},
		{"network and networks", config("", `,"amount":"1","network":"cronos-testnet","networks":["cronos-testnet"]`),
			"set either network or networks, not both"},
		{"unset key variable", config(`,"networks":[{"name":"cronos-testnet","signer_keys":["{env.X402_SURELY_UNSET_KEY}"]}]`, `,"amount":"1"`),
			"signer_key {env.X402_SURELY_UNSET_KEY} is empty or cannot be resolved"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			testutil.AssertLoadError(t, tt.config, "json", tt.want)
		})
	}
}

// TestValidateLeavesDevnetPort checks a config as `caddy validate` does
// while the port of its devnet is taken (by a running demo, say): the check
// passes, and the port is left alone.
func TestValidateLeavesDevnetPort(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	config := fmt.Sprintf(`{"apps":{"x402":{"devnet":{"listen":%q,"block_time":200000000}},
		"http":{"servers":{"s":{"listen":["127.0.0.1:0"],"routes":[{"handle":[
			{"handler":"x402","pay_to":%q,"amount":"1"}]}]}}}}}`, busy.Addr().String(), testutil.SellerAddr)
	var cfg *caddy.Config
	if err := json.Unmarshal([]byte(config), &cfg); err != nil {
		t.Fatal(err)
	}
	args := os.Args
	t.Cleanup(func() { os.Args = args })
	os.Args = []string{"caddy", "validate", "--config", "Caddyfile"}
	if err := caddy.Validate(cfg); err != nil {
		t.Fatalf("caddy validate with the devnet's port taken: %v", err)
	}
}
