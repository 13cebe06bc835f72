package paywall

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/caddy-x402/caddy-x402/caddymodule/internal/testutil"
	"github.com/caddy-x402/caddy-x402/facilitator/devnet"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// v2OnlyPayTo is the seller of TestV2OnlyBody, paid by no other test.
const v2OnlyPayTo = "0x0000000000000000000000000000000000B0B032"

const v2OnlyCaddyfile = `
:%[1]d {
	handle_path /upto/* {
		x402 {
			pay_to %[2]s
			price 0.01
			scheme upto
			meter json usage.total_tokens 0.000002
		}
		respond "metered content"
	}
	handle /chan {
		x402 {
			pay_to %[2]s
			amount 1000
			scheme batch-settlement
		}
		respond "paid content"
	}
	handle /exact {
		x402 {
			pay_to %[2]s
			amount 1000
		}
		respond "paid content"
	}
}
`

// TestV2OnlyBody (issue 32, finding 9): a route whose scheme exists in
// x402 version 2 only (upto, batch-settlement) answers its 402 with a JSON
// body that holds no version 1 requirements for a version 1 client to sign
// for, and says plainly that the route is paid with version 2 only; its
// PAYMENT-REQUIRED header offers the route as before. A version 1 payment
// sent anyway is refused with the same body and moves nothing. The payment
// page still gets the requirements its script reads, and an exact route
// keeps its version 1 body.
func TestV2OnlyBody(t *testing.T) {
	tester := testutil.NewTester(t, testutil.GlobalBlock("")+fmt.Sprintf(v2OnlyCaddyfile, testutil.SitePort, v2OnlyPayTo))
	message := func(scheme string) string {
		return `"message":"this route is paid with x402 version 2 only (scheme ` + scheme + `): its payment requirements are in the PAYMENT-REQUIRED header (Base64 JSON) ` +
			`and a payment goes in the PAYMENT-SIGNATURE header. An x402 version 1 client (X-PAYMENT, requirements in this body) cannot pay it: pay with an x402 version 2 client"}` + "\n"
	}
	for _, c := range []struct {
		path, scheme, amount string
	}{{"/upto/json", SchemeUpto, "10000"}, {"/chan", SchemeChannel, "1000"}} {
		resp, b := testutil.Get(t, tester, testutil.SiteURL+c.path, nil)
		want := `{"x402Version":2,"error":"PAYMENT-SIGNATURE header is required",` + message(c.scheme)
		if resp.StatusCode != http.StatusPaymentRequired || string(b) != want || resp.Header.Get("Content-Type") != "application/json" {
			t.Errorf("unpaid %s: %d %q\nwant 402 %q", c.path, resp.StatusCode, b, want)
		}
		var pr x402.PaymentRequiredV2
		if err := x402.DecodeBase64JSON(resp.Header.Get(x402.HeaderPaymentRequired), &pr); err != nil || len(pr.Accepts) != 1 ||
			pr.X402Version != 2 || pr.Error != "PAYMENT-SIGNATURE header is required" || pr.Accepts[0].Scheme != c.scheme ||
			pr.Accepts[0].Amount != c.amount || pr.Accepts[0].PayTo != v2OnlyPayTo || pr.Resource == nil || pr.Resource.URL != testutil.SiteURL+c.path {
			t.Errorf("PAYMENT-REQUIRED of %s: %v %+v", c.path, err, pr)
		}
	}

	// A version 1 client that signs an exact EIP-3009 transfer for the
	// upto route anyway (as one that falls back to the first requirements
	// would): refused, the body says why, nothing moves.
	u := testutil.SiteURL + "/upto/json"
	resp, _ := testutil.Get(t, tester, u, nil)
	var pr x402.PaymentRequiredV2
	if err := x402.DecodeBase64JSON(resp.Header.Get(x402.HeaderPaymentRequired), &pr); err != nil || len(pr.Accepts) != 1 {
		t.Fatalf("PAYMENT-REQUIRED: %v", err)
	}
	reqs := pr.Accepts[0].V1(pr.Resource)
	reqs.Scheme = SchemeExact
	buyer := testutil.BuyerKey(t, devnet.Buyer2PrivateKey)
	from := crypto.PubkeyToAddress(buyer.PublicKey).Hex()
	bBefore, sBefore := testutil.Balance(t, from), testutil.Balance(t, v2OnlyPayTo)
	resp, b := testutil.Get(t, tester, u, map[string]string{"X-PAYMENT": testutil.Pay(t, buyer, reqs)})
	want := `{"x402Version":2,"error":"Unsupported scheme: exact","invalidReason":"Unsupported scheme: exact",` + message(SchemeUpto)
	if resp.StatusCode != http.StatusPaymentRequired || string(b) != want {
		t.Errorf("a version 1 payment: %d %q\nwant 402 %q", resp.StatusCode, b, want)
	}
	testutil.AssertDelta(t, "buyer", bBefore, testutil.Balance(t, from), 0)
	testutil.AssertDelta(t, "seller", sBefore, testutil.Balance(t, v2OnlyPayTo), 0)

	// The payment page's script reads the requirements in the version 1
	// shape, as before.
	resp, b = testutil.Get(t, tester, u, map[string]string{"User-Agent": chromeUA, "Accept": browserAccpt})
	if resp.StatusCode != http.StatusPaymentRequired || !strings.Contains(string(b),
		`<script type="application/json" id="x402-payment-required">{"error":"X-PAYMENT header is required","x402Version":1,"paymentRequirements":{"scheme":"upto",`) {
		t.Errorf("the page of the upto route: %d %s", resp.StatusCode, b)
	}

	// An exact route keeps its version 1 body.
	resp, b = testutil.Get(t, tester, testutil.SiteURL+"/exact", nil)
	if resp.StatusCode != http.StatusPaymentRequired ||
		!strings.HasPrefix(string(b), `{"error":"X-PAYMENT header is required","x402Version":1,"paymentRequirements":{"scheme":"exact",`) {
		t.Errorf("unpaid exact route: %d %s", resp.StatusCode, b)
	}
}
