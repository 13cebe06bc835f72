// Package schemetest proves that a payment scheme can be added from
// outside this module's scheme packages: a minimal scheme, "mini",
// defined here, registers its facilitator side in package scheme and its
// seller side as a Caddy module in paywall.SchemesNamespace, through the
// public interfaces only, and a route naming it serves a paid request.
//
// To keep the test about the seams and not about cryptography, mini's
// facilitator side moves money as exact does: it binds exact's registered
// mechanism (scheme.Lookup) and serves its payments under its own name.
// Its seller side adds a header of its own and hands the payment to the
// core's checkout (paywall.Route.Checkout).
package schemetest

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/caddy-x402/caddy-x402/caddymodule/internal/testutil"
	"github.com/caddy-x402/caddy-x402/caddymodule/paywall"
	"github.com/caddy-x402/caddy-x402/facilitator/devnet"
	"github.com/caddy-x402/caddy-x402/facilitator/network"
	"github.com/caddy-x402/caddy-x402/facilitator/scheme"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"

	_ "github.com/caddy-x402/caddy-x402/caddymodule" // the x402 directive, app and schemes
)

// miniName is the minimal scheme's name, in requirements and payments.
const miniName = "mini"

func init() {
	scheme.Register(miniMechanism{})
	caddy.RegisterModule(miniSeller{})
}

func TestMain(m *testing.M) { testutil.Main(m) }

// miniMechanism is mini's facilitator side (scheme.Mechanism).
type miniMechanism struct{}

func (miniMechanism) Name() string   { return miniName }
func (miniMechanism) Family() string { return "eip155" }

// Bind binds exact's mechanism to the network: mini's payments are
// EIP-3009 authorizations, checked, verified and settled as exact's.
func (miniMechanism) Bind(ctx context.Context, n *network.Network, env scheme.Env) (scheme.Bound, error) {
	exact, ok := scheme.Lookup(x402.SchemeExact, "eip155")
	if !ok {
		return nil, fmt.Errorf("mini needs the exact scheme registered")
	}
	return exact.Bind(ctx, n, env)
}

// miniSeller is mini's seller side (a paywall.SchemeModule).
type miniSeller struct{}

func (miniSeller) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{ID: paywall.SchemesNamespace + "." + miniName, New: func() caddy.Module { return new(miniSeller) }}
}

// NewSeller makes mini's Seller for a route.
func (miniSeller) NewSeller(rt *paywall.Route) (paywall.Seller, error) {
	if rt.Scheme() != miniName {
		return nil, fmt.Errorf("mini made for a route of scheme %q", rt.Scheme())
	}
	return miniRoute{rt}, nil
}

// miniRoute serves a mini route's paid requests.
type miniRoute struct{ rt *paywall.Route }

// ServePayment marks the answer as mini's and checks the payment out.
func (m miniRoute) ServePayment(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler, header string) error {
	w.Header().Set("Mini-Scheme", "served")
	return m.rt.Checkout(w, r, next, header)
}

// TestMinimalScheme: a route of the mini scheme quotes mini in its 402,
// and a mini payment is verified, settled (the money moves on the devnet)
// and delivered once.
func TestMinimalScheme(t *testing.T) {
	tester := testutil.NewTester(t, testutil.GlobalBlock("")+fmt.Sprintf(`
:%d {
	x402 /mini {
		pay_to %s
		amount 1234
		scheme mini
	}
	respond "mini content"
}
`, testutil.SitePort, testutil.SellerAddr))

	body := testutil.Require402(t, tester, testutil.SiteURL+"/mini")
	reqs := body.PaymentRequirements
	if reqs.Scheme != miniName || reqs.MaxAmountRequired != "1234" {
		t.Fatalf("402 requirements: scheme %q amount %q, want mini 1234", reqs.Scheme, reqs.MaxAmountRequired)
	}

	buyer := testutil.BuyerKey(t, devnet.Buyer1PrivateKey)
	buyerAddr := crypto.PubkeyToAddress(buyer.PublicKey).Hex()
	signed := reqs
	signed.Scheme = x402.SchemeExact // exact's buyer signs the authorization
	header := asMini(t, testutil.Pay(t, buyer, signed))

	buyerBefore, sellerBefore := testutil.Balance(t, buyerAddr), testutil.Balance(t, testutil.SellerAddr)
	resp, b := testutil.Get(t, tester, testutil.SiteURL+"/mini", map[string]string{"X-Payment": header})
	if resp.StatusCode != http.StatusOK || string(b) != "mini content" {
		t.Fatalf("paid mini request: status %d body %q, want 200 \"mini content\"", resp.StatusCode, b)
	}
	if got := resp.Header.Get("Mini-Scheme"); got != "served" {
		t.Errorf("Mini-Scheme header %q, want served (mini's Seller did not serve it)", got)
	}
	raw, err := base64.StdEncoding.DecodeString(resp.Header.Get("X-Payment-Response"))
	if err != nil {
		t.Fatalf("X-PAYMENT-RESPONSE is not Base64: %v", err)
	}
	var pr struct {
		Success     bool   `json:"success"`
		Transaction string `json:"transaction"`
		Payer       string `json:"payer"`
	}
	if err := json.Unmarshal(raw, &pr); err != nil || !pr.Success || len(pr.Transaction) != 66 || !strings.EqualFold(pr.Payer, buyerAddr) {
		t.Errorf("X-PAYMENT-RESPONSE = %s (%v)", raw, err)
	}
	testutil.AssertDelta(t, "buyer", buyerBefore, testutil.Balance(t, buyerAddr), -1234)
	testutil.AssertDelta(t, "seller", sellerBefore, testutil.Balance(t, testutil.SellerAddr), 1234)

	// The same payment again is the core's exactly-once: refused, no
	// second charge.
	resp, b = testutil.Get(t, tester, testutil.SiteURL+"/mini", map[string]string{"X-Payment": header})
	var replay testutil.Body402
	_ = json.Unmarshal(b, &replay)
	if resp.StatusCode != http.StatusPaymentRequired || replay.Error != x402.ErrTextAlreadyUsed {
		t.Errorf("replay: status %d error %q, want 402 %q", resp.StatusCode, replay.Error, x402.ErrTextAlreadyUsed)
	}
	testutil.AssertDelta(t, "buyer after the replay", buyerBefore, testutil.Balance(t, buyerAddr), -1234)
}

// asMini rewrites an exact payment header's scheme to mini.
func asMini(t *testing.T, header string) string {
	t.Helper()
	raw, err := base64.StdEncoding.DecodeString(header)
	if err != nil {
		t.Fatal(err)
	}
	var p map[string]any
	if err := json.Unmarshal(raw, &p); err != nil {
		t.Fatal(err)
	}
	if p["scheme"] != x402.SchemeExact {
		t.Fatalf("payment header scheme %v, want exact", p["scheme"])
	}
	p["scheme"] = miniName
	out, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(out)
}
