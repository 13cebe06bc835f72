package paywall

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddytest"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"go.uber.org/zap"

	"github.com/caddy-x402/caddy-x402/caddymodule/internal/httpx"
	"github.com/caddy-x402/caddy-x402/caddymodule/internal/testutil"
	"github.com/caddy-x402/caddy-x402/facilitator/devnet"
	"github.com/caddy-x402/caddy-x402/facilitator/exact"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// baseSepoliaUSDC is the token address of the second development chain
// in these tests (Circle's USDC address on Base Sepolia), so that the two
// chains' tokens differ.
var baseSepoliaUSDC = common.HexToAddress("0x036CbD53842c5426634e7929541eC2318f3dCF7e")

// twoNetworkHandler is a hand-built paywall with two options: Cronos
// testnet (devUSDC.e, 6 decimals) and Base Sepolia (USDC, 6 decimals), as
// Provision builds them, at price.
func twoNetworkHandler(t *testing.T, price string) *Handler {
	t.Helper()
	h, _ := testHandler(t, &fakeClient{}, false)
	h.Amount, h.Price = "", price
	cronos := h.pricing.options[0]
	cronos.caip2 = "eip155:338"
	base := payOption{reqs: cronos.reqs, caip2: "eip155:84532", decimals: 6, decimalsKnown: true, chainID: 84532}
	base.reqs.Network, base.reqs.Asset = "base-sepolia", baseSepoliaUSDC.Hex()
	base.reqs.Extra = &x402.DomainInfo{Name: "USDC", Version: "2"}
	h.setTestOptions(t, cronos, base)
	return h
}

// TestChooseOption: a payment is matched to the option of the network it
// names, by any of its names; another network or the other option's token
// is refused with the spec's texts.
func TestChooseOption(t *testing.T) {
	h := twoNetworkHandler(t, "0.01")
	cronosToken := devnet.TokenAddress.Hex()
	v2 := func(network, asset string) *x402.RequirementsV2 {
		return &x402.RequirementsV2{Scheme: "exact", Network: network, Asset: asset}
	}
	for _, tt := range []struct {
		name       string
		p          x402.Payment
		wantOpt    int
		wantReason string
	}{
		{"v1 cronos", x402.Payment{Network: "cronos-testnet"}, 0, ""},
		{"v1 cronos flat payload with its asset", x402.Payment{Network: "cronos-testnet", Asset: strings.ToLower(cronosToken)}, 0, ""},
		{"v1 base-sepolia", x402.Payment{Network: "base-sepolia"}, 1, ""},
		{"v1 name in capitals", x402.Payment{Network: "Base-Sepolia"}, 1, ""},
		{"v2 eip155:338", x402.Payment{Network: "eip155:338", Accepted: v2("eip155:338", cronosToken)}, 0, ""},
		{"v2 eip155:84532", x402.Payment{Network: "eip155:84532", Accepted: v2("eip155:84532", baseSepoliaUSDC.Hex())}, 1, ""},
		{"v2 the first option's asset on the second network", x402.Payment{Network: "eip155:84532", Accepted: v2("eip155:84532", cronosToken)},
			1, "Unsupported asset: " + cronosToken},
		{"v1 flat payload with the first option's asset on the second network", x402.Payment{Network: "base-sepolia", Asset: cronosToken},
			1, "Unsupported asset: " + cronosToken},
		{"a network the route does not list", x402.Payment{Network: "avalanche-fuji"}, 0, "Unsupported network: avalanche-fuji"},
		{"a chain the route does not list", x402.Payment{Network: "eip155:1", Accepted: v2("eip155:1", cronosToken)}, 0, "Unsupported network: eip155:1"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			opt, reason := h.pricing.choose(&tt.p)
			if opt != tt.wantOpt || reason != tt.wantReason {
				t.Errorf("choose = %d, %q; want %d, %q", opt, reason, tt.wantOpt, tt.wantReason)
			}
		})
	}
}

// TestOfferBody: the 402 body lists every option in the seller's order,
// the first as paymentRequirements, each priced in its own token; the v2
// accepts name the networks by CAIP-2 id.
func TestOfferBody(t *testing.T) {
	h := twoNetworkHandler(t, "0.25")
	b := h.pricing.static.build("X-PAYMENT header is required", "", "http://shop.example/x")
	var got testutil.Body402
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	if len(got.Accepts) != 2 || got.Accepts[0].Network != "cronos-testnet" || got.Accepts[1].Network != "base-sepolia" {
		t.Fatalf("accepts %+v", got.Accepts)
	}
	if got.PaymentRequirements != got.Accepts[0] && !sameReqs(got.PaymentRequirements, got.Accepts[0]) {
		t.Errorf("paymentRequirements %+v is not the first option %+v", got.PaymentRequirements, got.Accepts[0])
	}
	for i, wantAsset := range []string{devnet.TokenAddress.Hex(), baseSepoliaUSDC.Hex()} {
		a := got.Accepts[i]
		if a.Asset != wantAsset || a.MaxAmountRequired != "250000" || a.PayTo != h.PayTo || a.Resource != "http://shop.example/x" {
			t.Errorf("accepts[%d] = %+v", i, a)
		}
	}
	if got.Accepts[1].Extra == nil || *got.Accepts[1].Extra != (x402.DomainInfo{Name: "USDC", Version: "2"}) {
		t.Errorf("accepts[1].extra = %+v, want the option's own EIP-712 domain", got.Accepts[1].Extra)
	}
	v2 := h.pricing.static.accepts()
	if len(v2) != 2 || v2[0].Network != "eip155:338" || v2[1].Network != "eip155:84532" || v2[1].Asset != baseSepoliaUSDC.Hex() || v2[1].Amount != "250000" {
		t.Errorf("v2 accepts %+v", v2)
	}
}

func sameReqs(a, b x402.PaymentRequirements) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

// TestPriceOfferDecimals: a price in whole tokens is converted with each
// option's decimals; an amount is the same on every network; a price
// finer than one option's token is refused naming that network.
func TestPriceOfferDecimals(t *testing.T) {
	h := twoNetworkHandler(t, "0.01")
	h.pricing.options[1].decimals = 18
	o, err := h.pricing.priceOffer("0.01")
	if err != nil {
		t.Fatal(err)
	}
	if o.parts[0].reqs.MaxAmountRequired != "10000" || o.parts[1].reqs.MaxAmountRequired != "10000000000000000" {
		t.Errorf("amounts %s, %s", o.parts[0].reqs.MaxAmountRequired, o.parts[1].reqs.MaxAmountRequired)
	}
	h.pricing.options[0].decimals, h.pricing.options[1].decimals = 18, 6
	if _, err := h.pricing.priceOffer("0.0000001"); err == nil || err.Error() != `price "0.0000001" has more than 6 decimal places, the token's precision (network base-sepolia)` {
		t.Errorf("err = %v", err)
	}
	h.Price, h.Amount = "", "{vars.amount}"
	h.pricing.expr, h.pricing.whole = h.Amount, false
	o, err = h.pricing.priceOffer("777")
	if err != nil || o.parts[0].reqs.MaxAmountRequired != "777" || o.parts[1].reqs.MaxAmountRequired != "777" {
		t.Errorf("amount offer %v, %v", o, err)
	}
	for _, bad := range []string{"0", "-1", "1.5", "ten", ""} {
		if _, err := h.pricing.priceOffer(bad); err == nil {
			t.Errorf("amount %q accepted", bad)
		}
	}
}

// TestPagePerOption: with several networks, the page offers the choice
// and the script's config lists every option in the order of accepts.
func TestPagePerOption(t *testing.T) {
	h := twoNetworkHandler(t, "0.01")
	if err := h.buildPage(nil, testPageOptions(h), h.pricing.static); err != nil {
		t.Fatal(err)
	}
	body := unpaid(t, h, map[string]string{"User-Agent": chromeUA, "Accept": browserAccpt}).Body.String()
	for _, want := range []string{
		`<select id="x402-network">`,
		`<option value="0">cronos-testnet · 0.01 devUSDC.e</option>`,
		`<option value="1">base-sepolia · 0.01 tokens</option>`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("page lacks %s", want)
		}
	}
	m := configBlock.FindStringSubmatch(body)
	if m == nil {
		t.Fatal("no config block")
	}
	var cfg pageConfig
	if err := json.Unmarshal([]byte(m[1]), &cfg); err != nil {
		t.Fatal(err)
	}
	if len(cfg.Options) != 2 || cfg.Options[0].Network != "cronos-testnet" || cfg.Options[1].Network != "base-sepolia" {
		t.Errorf("config options %+v", cfg.Options)
	}
	one := pageHandler(t, PaywallPage{}, "one network")
	if body := unpaid(t, one, map[string]string{"User-Agent": chromeUA, "Accept": browserAccpt}).Body.String(); strings.Contains(body, "x402-network\"") {
		t.Error("a route of one network offers a network choice")
	}
}

// secondChain starts a development chain run as base-sepolia (chain
// 84532, its own token address) for a test, and the environment variable
// its signer key is given to Caddy in.
func secondChain(t *testing.T) *devnet.Chain {
	t.Helper()
	c, err := devnet.Start(devnet.Config{ChainID: 84532, Network: "base-sepolia", Token: baseSepoliaUSDC, BlockTime: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	t.Setenv("X402_TEST_BASE_SIGNER", c.Signer().PrivateKey)
	return c
}

func chainBalance(t *testing.T, c *devnet.Chain, addr string) *big.Int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	b, err := c.BalanceOf(ctx, common.HexToAddress(addr))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// paymentRequiredV2 decodes a 402's PAYMENT-REQUIRED header.
func paymentRequiredV2(t *testing.T, resp *http.Response) x402.PaymentRequiredV2 {
	t.Helper()
	var pr x402.PaymentRequiredV2
	if err := x402.DecodeBase64JSON(resp.Header.Get(x402.HeaderPaymentRequired), &pr); err != nil {
		t.Fatalf("PAYMENT-REQUIRED: %v", err)
	}
	return pr
}

// TestSeveralNetworks: one route offers Cronos testnet (the devnet) and
// Base Sepolia (a second development chain) in one 402; a payment on
// either is verified and settled on its own chain against its own option,
// v1 or v2, settle before or after; payment ids, metrics and the
// X-Payment-Network header follow the option; a payment for the first
// option's token on the second network, or for a network not listed, is
// refused with nothing moved.
func TestSeveralNetworks(t *testing.T) {
	base := secondChain(t)
	up := testutil.EchoUpstream(t)
	tester := testutil.NewTester(t, testutil.GlobalBlock(fmt.Sprintf(`settle_timeout 2s
		network base-sepolia {
			chain_id 84532
			rpc %s
			token %s
			signer_key {env.X402_TEST_BASE_SIGNER}
		}`, base.RPCURL(), baseSepoliaUSDC.Hex()))+fmt.Sprintf(`
:%d {
	x402 /multi {
		pay_to %s
		price 0.01
		network cronos-testnet base-sepolia
		label multi-network
	}
	x402 /multi-after {
		pay_to %s
		amount 20000
		network base-sepolia eip155:338
		settle after
		label multi-network-after
	}
	reverse_proxy %s
}
`, testutil.SitePort, testutil.Seller2Addr, testutil.Seller2Addr, up.Listener.Addr()))

	// Counters carry over config loads (and -count runs): compare with
	// what they held before.
	samples0 := testutil.Scrape(t)

	// The 402: both options, the seller's order, each its own token.
	resp, b := testutil.Get(t, tester, testutil.SiteURL+"/multi", nil)
	if resp.StatusCode != http.StatusPaymentRequired {
		t.Fatalf("status %d: %s", resp.StatusCode, b)
	}
	var body testutil.Body402
	if err := json.Unmarshal(b, &body); err != nil {
		t.Fatal(err)
	}
	if len(body.Accepts) != 2 || body.PaymentRequirements.Network != "cronos-testnet" {
		t.Fatalf("402 body %s", b)
	}
	wantV1 := []struct{ network, asset string }{{"cronos-testnet", devnet.TokenAddress.Hex()}, {"base-sepolia", baseSepoliaUSDC.Hex()}}
	for i, w := range wantV1 {
		a := body.Accepts[i]
		if a.Network != w.network || a.Asset != w.asset || a.MaxAmountRequired != "10000" || a.PayTo != testutil.Seller2Addr ||
			a.Extra == nil || a.Extra.Name != devnet.TokenName {
			t.Errorf("accepts[%d] = %+v", i, a)
		}
	}
	pr := paymentRequiredV2(t, resp)
	if len(pr.Accepts) != 2 || pr.Accepts[0].Network != "eip155:338" || pr.Accepts[1].Network != "eip155:84532" ||
		pr.Accepts[1].Asset != baseSepoliaUSDC.Hex() || pr.Accepts[1].Amount != "10000" {
		t.Fatalf("PAYMENT-REQUIRED accepts %+v", pr.Accepts)
	}
	// The other route lists its networks in its own order.
	resp, b = testutil.Get(t, tester, testutil.SiteURL+"/multi-after", nil)
	_ = json.Unmarshal(b, &body)
	if resp.StatusCode != http.StatusPaymentRequired || len(body.Accepts) != 2 || body.Accepts[0].Network != "base-sepolia" ||
		body.Accepts[1].Network != "cronos-testnet" || body.PaymentRequirements.Network != "base-sepolia" {
		t.Fatalf("settle-after route's 402: %d %s", resp.StatusCode, b)
	}

	buyer := testutil.BuyerKey(t, devnet.Buyer5PrivateKey)
	before := func() (cronos, baseSide *big.Int) {
		return testutil.Balance(t, testutil.Seller2Addr), chainBalance(t, base, testutil.Seller2Addr)
	}

	// v1 on the second network.
	c0, b0 := before()
	header, _, err := exact.CreatePayment(buyer, body402Accepts(t, tester, "/multi")[1], exact.PaymentOptions{Shape: x402.ShapeX402})
	if err != nil {
		t.Fatal(err)
	}
	resp, b = testutil.Get(t, tester, testutil.SiteURL+"/multi", map[string]string{"X-Payment": header})
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(b), `"X-Payment-Network":"base-sepolia"`) {
		t.Fatalf("v1 payment on base-sepolia: %d %s", resp.StatusCode, b)
	}
	if pr := decodeXPaymentResponse(t, resp); pr["network"] != "base-sepolia" || pr["success"] != true {
		t.Errorf("X-PAYMENT-RESPONSE %v", pr)
	}
	c1, b1 := before()
	testutil.AssertDelta(t, "seller on cronos", c0, c1, 0)
	testutil.AssertDelta(t, "seller on base-sepolia", b0, b1, 10000)

	// v2 on the first network.
	pr = paymentRequiredV2(t, mustGet(t, tester, "/multi"))
	header, _, err = exact.CreatePaymentV2(buyer, pr.Accepts[0], pr.Resource, exact.PaymentOptions{})
	if err != nil {
		t.Fatal(err)
	}
	resp, b = testutil.Get(t, tester, testutil.SiteURL+"/multi", map[string]string{x402.HeaderPaymentSignature: header})
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(b), `"X-Payment-Network":"cronos-testnet"`) {
		t.Fatalf("v2 payment on eip155:338: %d %s", resp.StatusCode, b)
	}
	var sr x402.ReferenceSettleResponse
	if err := x402.DecodeBase64JSON(resp.Header.Get(x402.HeaderPaymentResponseV2), &sr); err != nil || sr.Network != "eip155:338" || !sr.Success {
		t.Errorf("PAYMENT-RESPONSE %+v, %v", sr, err)
	}
	c2, b2 := before()
	testutil.AssertDelta(t, "seller on cronos", c1, c2, 10000)
	testutil.AssertDelta(t, "seller on base-sepolia", b1, b2, 0)

	// v2 on the second network with a payment id: the same id again is
	// answered 409 with the second network's CAIP-2 id.
	// A new id per run: the devnet's redemption store outlives a test.
	ext, err := x402.WithPaymentID(pr.Extensions, fmt.Sprintf("pay_multi_network_%d", time.Now().UnixNano()))
	if err != nil {
		t.Fatal(err)
	}
	header, _, err = exact.CreatePaymentV2(buyer, pr.Accepts[1], pr.Resource, exact.PaymentOptions{Extensions: ext})
	if err != nil {
		t.Fatal(err)
	}
	if resp, b = testutil.Get(t, tester, testutil.SiteURL+"/multi", map[string]string{x402.HeaderPaymentSignature: header}); resp.StatusCode != http.StatusOK {
		t.Fatalf("v2 payment on eip155:84532: %d %s", resp.StatusCode, b)
	}
	resp, b = testutil.Get(t, tester, testutil.SiteURL+"/multi", map[string]string{x402.HeaderPaymentSignature: header})
	var conflict paymentIDAnswer
	_ = json.Unmarshal(b, &conflict)
	if resp.StatusCode != http.StatusConflict || conflict.Error != textPaymentIDDelivered || conflict.Network != "eip155:84532" || conflict.TxHash == "" {
		t.Errorf("the same id again: %d %s", resp.StatusCode, b)
	}
	c3, b3 := before()
	testutil.AssertDelta(t, "seller on cronos", c2, c3, 0)
	testutil.AssertDelta(t, "seller on base-sepolia", b2, b3, 10000)

	// Refused, nothing moved: the first option's token on the second
	// network (v2 and v1), a network the route does not list.
	wrongAsset := pr.Accepts[1]
	wrongAsset.Asset = pr.Accepts[0].Asset
	header, _, err = exact.CreatePaymentV2(buyer, wrongAsset, pr.Resource, exact.PaymentOptions{})
	if err != nil {
		t.Fatal(err)
	}
	resp, b = testutil.Get(t, tester, testutil.SiteURL+"/multi", map[string]string{x402.HeaderPaymentSignature: header})
	_ = json.Unmarshal(b, &body)
	if resp.StatusCode != http.StatusPaymentRequired || body.InvalidReason != "Unsupported asset: "+devnet.TokenAddress.Hex() {
		t.Errorf("the first option's asset on the second network (v2): %d %s", resp.StatusCode, b)
	}
	v1Wrong := body402Accepts(t, tester, "/multi")[1]
	v1Wrong.Asset = devnet.TokenAddress.Hex()
	header, _, err = exact.CreatePayment(buyer, v1Wrong, exact.PaymentOptions{ChainID: big.NewInt(84532)})
	if err != nil {
		t.Fatal(err)
	}
	resp, b = testutil.Get(t, tester, testutil.SiteURL+"/multi", map[string]string{"X-Payment": header})
	_ = json.Unmarshal(b, &body)
	if resp.StatusCode != http.StatusPaymentRequired || body.InvalidReason != "Unsupported asset: "+devnet.TokenAddress.Hex() {
		t.Errorf("the first option's asset on the second network (v1): %d %s", resp.StatusCode, b)
	}
	fuji := body402Accepts(t, tester, "/multi")[1]
	fuji.Network = "avalanche-fuji"
	header, _, err = exact.CreatePayment(buyer, fuji, exact.PaymentOptions{})
	if err != nil {
		t.Fatal(err)
	}
	resp, b = testutil.Get(t, tester, testutil.SiteURL+"/multi", map[string]string{"X-Payment": header})
	_ = json.Unmarshal(b, &body)
	if resp.StatusCode != http.StatusPaymentRequired || body.InvalidReason != "Unsupported network: avalanche-fuji" {
		t.Errorf("a network not listed: %d %s", resp.StatusCode, b)
	}
	c4, b4 := before()
	testutil.AssertDelta(t, "seller on cronos", c3, c4, 0)
	testutil.AssertDelta(t, "seller on base-sepolia", b3, b4, 0)

	// Exactly once on the second network: a settlement still pending
	// when settle_timeout runs out is answered pending, the same header
	// again once it is mined gets the resource (looked up on that
	// network), and once more is refused; the money moved once.
	c4, b4 = before()
	header, _, err = exact.CreatePayment(buyer, body402Accepts(t, tester, "/multi")[1], exact.PaymentOptions{})
	if err != nil {
		t.Fatal(err)
	}
	base.PauseMining()
	resp, b = testutil.Get(t, tester, testutil.SiteURL+"/multi", map[string]string{"X-Payment": header})
	base.ResumeMining()
	_ = json.Unmarshal(b, &body)
	if resp.StatusCode != http.StatusPaymentRequired || body.Error != x402.ErrTextPending {
		t.Fatalf("a payment not mined in time on base-sepolia: %d %s", resp.StatusCode, b)
	}
	if pr := decodeXPaymentResponse(t, resp); pr["network"] != "base-sepolia" || pr["success"] != false {
		t.Errorf("pending X-PAYMENT-RESPONSE %v", pr)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		resp, b = testutil.Get(t, tester, testutil.SiteURL+"/multi", map[string]string{"X-Payment": header})
		if resp.StatusCode != http.StatusPaymentRequired || time.Now().After(deadline) {
			break
		}
		time.Sleep(300 * time.Millisecond)
	}
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(b), `"X-Payment-Network":"base-sepolia"`) {
		t.Fatalf("the retry after pending: %d %s", resp.StatusCode, b)
	}
	resp, b = testutil.Get(t, tester, testutil.SiteURL+"/multi", map[string]string{"X-Payment": header})
	_ = json.Unmarshal(b, &body)
	if resp.StatusCode != http.StatusPaymentRequired || body.Error != x402.ErrTextAlreadyUsed {
		t.Errorf("the same header after delivery: %d %s", resp.StatusCode, b)
	}
	c5, b5 := before()
	testutil.AssertDelta(t, "seller on cronos", c4, c5, 0)
	testutil.AssertDelta(t, "seller on base-sepolia", b4, b5, 10000)

	// Settle after, on the route's second network (cronos), then its
	// first (base-sepolia).
	after := body402Accepts(t, tester, "/multi-after")
	for i, want := range []string{"cronos-testnet", "base-sepolia"} {
		a := after[1-i]
		header, _, err = exact.CreatePayment(buyer, a, exact.PaymentOptions{})
		if err != nil {
			t.Fatal(err)
		}
		resp, b = testutil.Get(t, tester, testutil.SiteURL+"/multi-after", map[string]string{"X-Payment": header})
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(b), `"X-Payment-Network":"`+want+`"`) {
			t.Fatalf("settle after on %s: %d %s", want, resp.StatusCode, b)
		}
	}
	c6, b6 := before()
	testutil.AssertDelta(t, "seller on cronos", c5, c6, 20000)
	testutil.AssertDelta(t, "seller on base-sepolia", b5, b6, 20000)

	// Metrics per network.
	samples := testutil.Scrape(t)
	for _, tt := range []struct {
		network, route, outcome, reason string
		want                            float64
	}{
		{"base-sepolia", "multi-network", OutcomeSettled, "", 3},
		{"base-sepolia", "multi-network", OutcomePending, x402.CodeSettlementPending, 1},
		{"cronos-testnet", "multi-network", OutcomeSettled, "", 1},
		{"base-sepolia", "multi-network", OutcomeRefused, x402.CodeInvalidRequirements, 2},
		{"cronos-testnet", "multi-network", OutcomeRefused, x402.CodeInvalidNetwork, 1},
		{"cronos-testnet", "multi-network-after", OutcomeSettled, "", 1},
		{"base-sepolia", "multi-network-after", OutcomeSettled, "", 1},
	} {
		labels := map[string]string{"network": tt.network, "route": tt.route, "outcome": tt.outcome, "reason": tt.reason}
		got, _ := testutil.Sample(samples, "x402_payments_total", labels)
		was, _ := testutil.Sample(samples0, "x402_payments_total", labels)
		if got -= was; got != tt.want {
			t.Errorf("x402_payments_total{network=%q,route=%q,outcome=%q,reason=%q} = %v, want %v", tt.network, tt.route, tt.outcome, tt.reason, got, tt.want)
		}
	}
	revenue := map[string]string{"network": "base-sepolia", "asset": strings.ToLower(baseSepoliaUSDC.Hex()), "pay_to": strings.ToLower(testutil.Seller2Addr)}
	got, _ := testutil.Sample(samples, "x402_revenue_smallest_units_total", revenue)
	was, _ := testutil.Sample(samples0, "x402_revenue_smallest_units_total", revenue)
	if got-was != 50000 {
		t.Errorf("revenue on base-sepolia grew by %v, want 50000", got-was)
	}
}

// body402Accepts fetches a route's 402 and returns its v1 accepts.
func body402Accepts(t *testing.T, tester *caddytest.Tester, path string) []x402.PaymentRequirements {
	t.Helper()
	return testutil.Require402(t, tester, testutil.SiteURL+path).Accepts
}

func mustGet(t *testing.T, tester *caddytest.Tester, path string) *http.Response {
	t.Helper()
	resp, _ := testutil.Get(t, tester, testutil.SiteURL+path, nil)
	return resp
}

func decodeXPaymentResponse(t *testing.T, resp *http.Response) map[string]any {
	t.Helper()
	raw, err := base64.StdEncoding.DecodeString(resp.Header.Get(httpx.HeaderPaymentResponse))
	if err != nil {
		t.Fatalf("X-PAYMENT-RESPONSE: %v", err)
	}
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("X-PAYMENT-RESPONSE: %v", err)
	}
	return out
}

// TestPricePerRequest: a route priced by a map of the path states each
// path's price in its 402 and checks a payment against the price of the
// request that carries it: paying the cheaper price on the dearer path is
// refused (Invalid amount) and the same payment is good on the cheaper
// path. A mapped value that is no price, and a header that is not set,
// answer 500 naming the route and the value: nothing charged, the
// upstream not run.
func TestPricePerRequest(t *testing.T) {
	up := testutil.EchoUpstream(t)
	tester := testutil.NewTester(t, testutil.GlobalBlock("")+fmt.Sprintf(`
:%d {
	map {path} {x402_price} {
		/api/lookup 0.01
		/api/search 0.05
		/api/bad    cheap
		default     0.02
	}
	@mapped path /api/lookup /api/search /api/bad
	x402 @mapped {
		pay_to %s
		price {x402_price}
		label mapped
	}
	x402 /api/plan {
		pay_to %s
		amount {http.request.header.X-Plan-Amount}
		label by-header
	}
	handle_errors {
		respond "{err.status_code} {err.message}"
	}
	reverse_proxy %s
}
`, testutil.SitePort, testutil.SellerAddr, testutil.SellerAddr, up.Listener.Addr()))

	for path, want := range map[string]string{"/api/lookup": "10000", "/api/search": "50000"} {
		resp, b := testutil.Get(t, tester, testutil.SiteURL+path, nil)
		var body testutil.Body402
		_ = json.Unmarshal(b, &body)
		if resp.StatusCode != http.StatusPaymentRequired || body.PaymentRequirements.MaxAmountRequired != want || body.Accepts[0].MaxAmountRequired != want {
			t.Errorf("%s: %d %s, want a 402 for %s", path, resp.StatusCode, b, want)
		}
		if pr := paymentRequiredV2(t, resp); len(pr.Accepts) != 1 || pr.Accepts[0].Amount != want {
			t.Errorf("%s: PAYMENT-REQUIRED accepts %+v, want amount %s", path, pr.Accepts, want)
		}
	}

	buyer := testutil.BuyerKey(t, devnet.Buyer5PrivateKey)
	payer := crypto.PubkeyToAddress(buyer.PublicKey).Hex()
	seller0, buyer0 := testutil.Balance(t, testutil.SellerAddr), testutil.Balance(t, payer)

	// The lookup's price (0.01) on the search (0.05): refused.
	cheap := testutil.Require402(t, tester, testutil.SiteURL+"/api/lookup").PaymentRequirements
	header := testutil.Pay(t, buyer, cheap)
	resp, b := testutil.Get(t, tester, testutil.SiteURL+"/api/search", map[string]string{"X-Payment": header})
	var body testutil.Body402
	_ = json.Unmarshal(b, &body)
	if resp.StatusCode != http.StatusPaymentRequired || body.InvalidReason != "Invalid amount: 10000" || body.PaymentRequirements.MaxAmountRequired != "50000" {
		t.Fatalf("the cheaper price on the dearer path: %d %s", resp.StatusCode, b)
	}
	testutil.AssertDelta(t, "seller", seller0, testutil.Balance(t, testutil.SellerAddr), 0)

	// The same payment where it is the price: served (the refusal at the
	// other price is not remembered here).
	resp, b = testutil.Get(t, tester, testutil.SiteURL+"/api/lookup", map[string]string{"X-Payment": header})
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(b), `"X-Payment-Value":"10000"`) {
		t.Fatalf("the payment on its own path: %d %s", resp.StatusCode, b)
	}
	seller1, buyer1 := testutil.Balance(t, testutil.SellerAddr), testutil.Balance(t, payer)
	testutil.AssertDelta(t, "seller", seller0, seller1, 10000)
	testutil.AssertDelta(t, "buyer", buyer0, buyer1, -10000)

	// The dearer path at its own price.
	header = testutil.Pay(t, buyer, testutil.Require402(t, tester, testutil.SiteURL+"/api/search").PaymentRequirements)
	if resp, b = testutil.Get(t, tester, testutil.SiteURL+"/api/search", map[string]string{"X-Payment": header}); resp.StatusCode != http.StatusOK {
		t.Fatalf("search at its price: %d %s", resp.StatusCode, b)
	}
	seller2, buyer2 := testutil.Balance(t, testutil.SellerAddr), testutil.Balance(t, payer)
	testutil.AssertDelta(t, "seller", seller1, seller2, 50000)

	// A mapped value that is no price: 500, with or without a payment
	// (one for the default price), nothing charged.
	def := cheap
	def.MaxAmountRequired = "20000"
	for _, hdr := range []map[string]string{nil, {"X-Payment": testutil.Pay(t, buyer, def)}} {
		resp, b = testutil.Get(t, tester, testutil.SiteURL+"/api/bad", hdr)
		want := `500 x402: the route's price "{x402_price}" resolved to "cheap" for this request, which is not a valid price: price "cheap" is not a positive decimal number`
		if resp.StatusCode != http.StatusInternalServerError || string(b) != want {
			t.Errorf("a bad mapped price: %d %q, want 500 %q", resp.StatusCode, b, want)
		}
	}
	// An amount from a header an earlier handler should have set, absent:
	// 500, nothing charged; set, it is the price.
	resp, b = testutil.Get(t, tester, testutil.SiteURL+"/api/plan", nil)
	if resp.StatusCode != http.StatusInternalServerError || !strings.Contains(string(b), `resolved to "" for this request`) {
		t.Errorf("an unset header price: %d %q", resp.StatusCode, b)
	}
	resp, b = testutil.Get(t, tester, testutil.SiteURL+"/api/plan", map[string]string{"X-Plan-Amount": "777"})
	_ = json.Unmarshal(b, &body)
	if resp.StatusCode != http.StatusPaymentRequired || body.PaymentRequirements.MaxAmountRequired != "777" {
		t.Errorf("a header price: %d %s", resp.StatusCode, b)
	}
	testutil.AssertDelta(t, "seller", seller2, testutil.Balance(t, testutil.SellerAddr), 0)
	testutil.AssertDelta(t, "buyer", buyer2, testutil.Balance(t, payer), 0)
}

// TestMissingFromSupported: a remote facilitator must list each of the
// route's networks, by v1 name or CAIP-2 id, for scheme exact.
func TestMissingFromSupported(t *testing.T) {
	h := twoNetworkHandler(t, "0.01")
	kind := func(v int, scheme, network string) x402.SupportedKind {
		return x402.SupportedKind{X402Version: v, Scheme: scheme, Network: network}
	}
	for _, tt := range []struct {
		name  string
		kinds []x402.SupportedKind
		want  []string
	}{
		{"both by CAIP-2", []x402.SupportedKind{kind(2, "exact", "eip155:338"), kind(2, "exact", "eip155:84532")}, nil},
		{"both by v1 name", []x402.SupportedKind{kind(1, "exact", "cronos-testnet"), kind(1, "exact", "base-sepolia")}, nil},
		{"one missing", []x402.SupportedKind{kind(1, "exact", "cronos-testnet")}, []string{"base-sepolia"}},
		{"another scheme does not count", []x402.SupportedKind{kind(2, "upto", "eip155:338"), kind(2, "exact", "eip155:84532")}, []string{"cronos-testnet"}},
		{"none", nil, []string{"cronos-testnet", "base-sepolia"}},
	} {
		got := missingFromSupported(&x402.SupportedResponse{Kinds: tt.kinds}, h.pricing.options)
		if fmt.Sprint(got) != fmt.Sprint(tt.want) {
			t.Errorf("%s: missing %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestPerRequestPriceUnit: a route priced by a placeholder builds each
// request's offer (and page) from the price resolved for it, keeps one
// offer per price, and answers a value that is no price with a 500 error
// that names the value, without running the next handler.
func TestPerRequestPriceUnit(t *testing.T) {
	h := twoNetworkHandler(t, "0.01")
	h.Price = "{x402.test.price}"
	h.pricing.expr = h.Price
	h.pricing.static, h.pricing.dynamic = nil, &offerCache{m: map[string]*offer{}}
	h.metrics.label = "per-request"
	if err := h.buildPage(zap.NewNop(), testPageOptions(h), nil); err != nil {
		t.Fatal(err)
	}
	serve := func(price string, hdr map[string]string) (*httptest.ResponseRecorder, error, bool) {
		repl := caddy.NewReplacer()
		if price != "" {
			repl.Set("x402.test.price", price)
		}
		r := httptest.NewRequest("GET", "http://shop.example/q", nil)
		r = r.WithContext(context.WithValue(r.Context(), caddy.ReplacerCtxKey, repl))
		for k, v := range hdr {
			r.Header.Set(k, v)
		}
		w := httptest.NewRecorder()
		ran := false
		err := h.ServeHTTP(w, r, caddyhttp.HandlerFunc(func(http.ResponseWriter, *http.Request) error { ran = true; return nil }))
		return w, err, ran
	}
	for price, want := range map[string]string{"0.01": "10000", "0.5": "500000"} {
		w, err, _ := serve(price, nil)
		var body testutil.Body402
		_ = json.Unmarshal(w.Body.Bytes(), &body)
		if err != nil || w.Code != http.StatusPaymentRequired || body.Accepts[0].MaxAmountRequired != want || body.Accepts[1].MaxAmountRequired != want {
			t.Errorf("price %s: %d %v %s", price, w.Code, err, w.Body)
		}
		page, _, _ := serve(price, map[string]string{"User-Agent": chromeUA, "Accept": browserAccpt})
		if !strings.Contains(page.Body.String(), `<span id="x402-price">`+strings.TrimSuffix(price, "0")+`</span>`) {
			t.Errorf("price %s: the page does not show it", price)
		}
	}
	if len(h.pricing.dynamic.m) != 2 {
		t.Errorf("%d offers kept, want one per price (2)", len(h.pricing.dynamic.m))
	}
	for _, tt := range []struct{ price, want string }{
		{"free", `x402: the route's price "{x402.test.price}" resolved to "free" for this request, which is not a valid price: price "free" is not a positive decimal number (network cronos-testnet)`},
		{"0", `resolved to "0" for this request, which is not a valid price: price "0" must be above zero`},
		{"", `resolved to "" for this request, which is not a valid price`},
	} {
		w, err, ran := serve(tt.price, map[string]string{"X-Payment": "e30"})
		var he caddyhttp.HandlerError
		if !errors.As(err, &he) || he.StatusCode != http.StatusInternalServerError || !strings.Contains(err.Error(), tt.want) || ran || w.Code != http.StatusOK || w.Body.Len() != 0 {
			t.Errorf("price %q: err %v (ran %v, wrote %d %q), want a 500 error containing %q", tt.price, err, ran, w.Code, w.Body, tt.want)
		}
	}
}

// TestPriceErrorClipped: a resolved price that is no price is repeated at
// most maxPriceEcho bytes (it may come from a header).
func TestPriceErrorClipped(t *testing.T) {
	h := twoNetworkHandler(t, "0.01")
	h.Price = "{p}"
	long := strings.Repeat("9x", 600)
	_, err := h.pricing.priceOffer(long)
	pe := newPriceError(h.Price, long, err)
	if len(pe.Error()) > 600 || !strings.Contains(pe.Error(), `resolved to "9x9x`) || !strings.Contains(pe.value, "…") {
		t.Errorf("error of %d bytes: %.200s", len(pe.Error()), pe.Error())
	}
}
