package paywall

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/caddy-x402/caddy-x402/caddymodule/internal/testutil"
	"github.com/caddy-x402/caddy-x402/caddymodule/x402cmd"
	"github.com/caddy-x402/caddy-x402/facilitator/devnet"
	"github.com/caddy-x402/caddy-x402/facilitator/offerreceipt"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// "caddy x402 pay" against the real seller's signed offers and receipts
// (issue 34): it verifies the offer before paying and the receipt after,
// for every scheme and transport; a lying seller (a proxy that edits the
// 402) is refused before anything is signed.

// payOfferPayTo is the seller of these tests, paid by no other test.
const payOfferPayTo = "0x0000000000000000000000000000000000b34b34"

// payOfferAttacker is where the lying proxy redirects the payment.
const payOfferAttacker = "0x0000000000000000000000000000000000bad034"

const payOfferSite = `
:%[1]d {
	x402_path_guard
	handle /jws {
		x402 {
			pay_to %[2]s
			amount 10000
			network eip155:338
			offer_receipt jws
		}
		respond "paid content"
	}
	handle /eip712 {
		x402 {
			pay_to %[2]s
			amount 10000
			network eip155:338
			offer_receipt eip712
		}
		respond "paid content"
	}
	handle_path /after/* {
		x402 {
			pay_to %[2]s
			amount 10000
			scheme upto
			meter json usage.total_tokens 2
			settle after
			offer_receipt jws
		}
		reverse_proxy %[3]s
	}
	handle_path /chan/* {
		x402 {
			pay_to %[2]s
			amount 1000
			scheme batch-settlement
			meter json usage.total_tokens 2
			offer_receipt eip712
		}
		reverse_proxy %[3]s
	}
}
`

// receiptBlock matches the receipt "caddy x402 pay" prints, capturing the
// transaction line's value.
func receiptBlock(f offerreceipt.Format, did, payer, resource, network string) *regexp.Regexp {
	return regexp.MustCompile(`(?m)^x402: receipt verified \(` + string(f) + `, signed by ` + regexp.QuoteMeta(did) + `\):\n` +
		`  payer        (?i:` + regexp.QuoteMeta(payer) + `)\n` + // a channel's payer is in lower case
		`  resource     ` + regexp.QuoteMeta(resource) + `\n` +
		`  network      ` + regexp.QuoteMeta(network) + `\n` +
		`  transaction  (0x[0-9a-f]{64}|\(none named\))\n` +
		`  issued at    \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\n`)
}

// savedReceipt reads a --receipt file and verifies it on its own against
// the did.json of the site at origin.
func savedReceipt(t *testing.T, file, did string) offerreceipt.Receipt {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("--receipt: %v", err)
	}
	var info offerreceipt.ReceiptInfo
	if err := json.Unmarshal(b, &info); err != nil {
		t.Fatalf("--receipt %s: %v", b, err)
	}
	keys, err := offerreceipt.ResolveDIDWeb(t.Context(), http.DefaultClient, did)
	if err != nil {
		t.Fatal(err)
	}
	r, err := offerreceipt.VerifyReceipt(info, keys)
	if err != nil {
		t.Fatalf("the saved receipt does not verify: %v\n%s", err, b)
	}
	return r
}

// TestPayCommandOfferReceipt: caddy x402 pay verifies the real seller's
// offer and receipt and prints and saves the receipt: exact (EIP-712 and
// JWS, version 2 and 1), upto settled after the answer (the receipt in
// the trailer, charging what was metered), a metered channel (deposit,
// then a voucher: the channel and its charged cumulative).
func TestPayCommandOfferReceipt(t *testing.T) {
	t.Setenv("X402_TEST_RECEIPT_A", receiptKeyA)
	up := meteredUpstream(t, nil)
	testutil.NewTester(t, testutil.GlobalBlock("receipt_key {env.X402_TEST_RECEIPT_A}")+
		fmt.Sprintf(payOfferSite, testutil.SitePort, payOfferPayTo, up.Listener.Addr()))
	asset := devnet.TokenAddress.Hex()
	did := siteDID()

	pay := func(t *testing.T, path string, o x402cmd.PayOptions) (string, string) {
		t.Helper()
		var stdout, stderr bytes.Buffer
		if err := x402cmd.RunPay(t.Context(), testutil.SiteURL+path, o, &stdout, &stderr); err != nil {
			t.Fatalf("pay %s: %v\n%s", path, err, stderr.String())
		}
		return stdout.String(), stderr.String()
	}

	for _, tc := range []struct {
		format   offerreceipt.Format
		protocol string
		network  string
	}{
		{offerreceipt.JWS, "", "eip155:338"},
		{offerreceipt.EIP712, "", "eip155:338"},
		{offerreceipt.JWS, "v1", "cronos-testnet"},
		{offerreceipt.EIP712, "v1", "cronos-testnet"},
	} {
		t.Run("exact/"+string(tc.format)+"/"+tc.protocol, func(t *testing.T) {
			key := devnet.Buyer1PrivateKey
			payer := crypto.PubkeyToAddress(testutil.BuyerKey(t, key).PublicKey).Hex()
			file := filepath.Join(t.TempDir(), "receipt.json")
			bBefore, sBefore := testutil.Balance(t, payer), testutil.Balance(t, payOfferPayTo)
			stdout, stderr := pay(t, "/"+string(tc.format), x402cmd.PayOptions{Key: key, Timeout: 30 * time.Second, Protocol: tc.protocol, Receipt: file})
			testutil.AssertDelta(t, "buyer", bBefore, testutil.Balance(t, payer), -10000)
			testutil.AssertDelta(t, "seller", sBefore, testutil.Balance(t, payOfferPayTo), 10000)
			resource := testutil.SiteURL + "/" + string(tc.format)
			wantOffer := fmt.Sprintf("x402: offer verified (signed by %s): exact 10000 of %s on %s to %s for %s, valid until ", did, asset, tc.network, payOfferPayTo, resource)
			m := receiptBlock(tc.format, did, payer, resource, tc.network).FindStringSubmatch(stderr)
			if stdout != "paid content" || !strings.Contains(stderr, wantOffer) || m == nil || !strings.Contains(stderr, "\n  charged      10000 smallest units\n") {
				t.Fatalf("stdout %q, stderr:\n%s", stdout, stderr)
			}
			r := savedReceipt(t, file, did)
			if r.Transaction != m[1] || r.Payer != payer || r.ResourceURL != resource || r.Charge == nil || r.Charge.Amount != "10000" {
				t.Errorf("saved receipt %+v, printed transaction %s", r, m[1])
			}
		})
	}

	t.Run("upto settle after", func(t *testing.T) {
		key := devnet.Buyer4PrivateKey
		bk := testutil.BuyerKey(t, key)
		payer := crypto.PubkeyToAddress(bk.PublicKey).Hex()
		approvePermit2(t, bk)
		file := filepath.Join(t.TempDir(), "receipt.json")
		bBefore := testutil.Balance(t, payer)
		stdout, stderr := pay(t, "/after/json?tokens=21", x402cmd.PayOptions{Key: key, Timeout: 30 * time.Second, Receipt: file})
		testutil.AssertDelta(t, "buyer", bBefore, testutil.Balance(t, payer), -42)
		resource := testutil.SiteURL + "/after/json?tokens=21"
		if !strings.Contains(stdout, `"answer":"42"`) || receiptBlock(offerreceipt.JWS, did, payer, resource, "eip155:338").FindString(stderr) == "" ||
			!strings.Contains(stderr, "\n  charged      42 smallest units (of at most 10000)\n  usage        usage.total_tokens=21\n") {
			t.Fatalf("stdout %q, stderr:\n%s", stdout, stderr)
		}
		if r := savedReceipt(t, file, did); r.Charge == nil || r.Charge.Amount != "42" || r.Charge.MaxAmount != "10000" {
			t.Errorf("saved receipt %+v", r)
		}
	})

	t.Run("metered channel", func(t *testing.T) {
		key := devnet.Buyer5PrivateKey
		payer := crypto.PubkeyToAddress(testutil.BuyerKey(t, key).PublicKey).Hex()
		o := x402cmd.PayOptions{Key: key, Timeout: 30 * time.Second, Channels: t.TempDir(), MaxAmount: "1000"}
		// The first call deposits (a transaction), the second is a voucher
		// (none): each receipt names the channel and its charged total.
		for i, tokens := range []int{5, 7} {
			o.Receipt = filepath.Join(t.TempDir(), "receipt.json")
			path := "/chan/json?tokens=" + strconv.Itoa(tokens)
			_, stderr := pay(t, path, o)
			m := receiptBlock(offerreceipt.EIP712, did, payer, testutil.SiteURL+path, "eip155:338").FindStringSubmatch(stderr)
			cum := map[int]int{0: 10, 1: 24}[i]
			want := fmt.Sprintf("\n  charged      %d smallest units (of at most 1000)\n  usage        usage.total_tokens=%d\n  channel      0x", 2*tokens, tokens)
			if m == nil || !strings.Contains(stderr, want) || !strings.Contains(stderr, fmt.Sprintf(", charged cumulative %d\n", cum)) ||
				(i == 0) != strings.HasPrefix(m[1], "0x") {
				t.Fatalf("call %d: stderr:\n%s", i, stderr)
			}
			if r := savedReceipt(t, o.Receipt, did); r.Charge == nil || r.Charge.ChargedCumulative != strconv.Itoa(cum) || r.Charge.Channel == "" {
				t.Errorf("call %d: saved receipt %+v", i, r)
			}
		}
	})
}

// lyingProxy is a fake: a reverse proxy in front of the site that edits
// the 402's PAYMENT-REQUIRED with edit (the one way to get a lying seller:
// ours signs only what it sells). It keeps the request's Host, as a
// proxy in front of a site does, so the site names itself by the proxy's
// address (its did:web, its resource URLs).
func lyingProxy(t *testing.T, edit func(pr map[string]any)) *httptest.Server {
	t.Helper()
	target, _ := url.Parse(testutil.SiteURL)
	rp := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(target)
			r.Out.Host = r.In.Host
		},
		ModifyResponse: func(resp *http.Response) error {
			h := resp.Header.Get(x402.HeaderPaymentRequired)
			if resp.StatusCode != http.StatusPaymentRequired || h == "" {
				return nil
			}
			var pr map[string]any
			if err := x402.DecodeBase64JSON(h, &pr); err != nil {
				return err
			}
			if pr["error"] == "PAYMENT-SIGNATURE header is required" { // the first 402, not a refusal
				edit(pr)
			}
			b, _ := json.Marshal(pr)
			resp.Header.Set(x402.HeaderPaymentRequired, base64.StdEncoding.EncodeToString(b))
			return nil
		},
	}
	srv := httptest.NewServer(rp)
	t.Cleanup(srv.Close)
	return srv
}

// offerOf is the first signed offer of a 402 read as a map.
func offerOf(pr map[string]any) map[string]any {
	return pr["extensions"].(map[string]any)[offerreceipt.Name].(map[string]any)["info"].(map[string]any)["offers"].([]any)[0].(map[string]any)
}

// TestPayCommandLyingSeller: an offer that does not verify (a payTo of
// the 402 that is not the signed one, an offer changed after signing) is
// refused with the reason before anything is signed: no money moves;
// --insecure-offers pays it with a warning, and the receipt still
// verifies.
func TestPayCommandLyingSeller(t *testing.T) {
	t.Setenv("X402_TEST_RECEIPT_A", receiptKeyA)
	up := meteredUpstream(t, nil)
	testutil.NewTester(t, testutil.GlobalBlock("receipt_key {env.X402_TEST_RECEIPT_A}")+
		fmt.Sprintf(payOfferSite, testutil.SitePort, payOfferPayTo, up.Listener.Addr()))
	key := devnet.Buyer2PrivateKey
	payer := crypto.PubkeyToAddress(testutil.BuyerKey(t, key).PublicKey).Hex()
	signer := receiptKey(t, receiptKeyA)

	for _, f := range []offerreceipt.Format{offerreceipt.JWS, offerreceipt.EIP712} {
		var why string // the reason the changed offer does not verify, as the library says it
		for _, tc := range []struct {
			name     string
			edit     func(pr map[string]any)
			insecure bool
			want     func() string // the error; "" pays
		}{
			{name: "payTo redirected", edit: func(pr map[string]any) {
				pr["accepts"].([]any)[0].(map[string]any)["payTo"] = payOfferAttacker
			}, want: func() string {
				return `refusing to pay: the seller's signed offer for accepts entry 0 does not verify: its payTo "` + payOfferPayTo +
					`" is not the 402's "` + payOfferAttacker + `" (--insecure-offers pays it anyway)`
			}},
			{name: "offer changed", edit: func(pr map[string]any) { why = changeOffer(t, offerOf(pr), signer) },
				want: func() string {
					return "refusing to pay: the seller's signed offer for accepts entry 0 does not verify: " + why + " (--insecure-offers pays it anyway)"
				}},
			{name: "offer changed, --insecure-offers", edit: func(pr map[string]any) { why = changeOffer(t, offerOf(pr), signer) }, insecure: true},
		} {
			t.Run(string(f)+"/"+tc.name, func(t *testing.T) {
				proxy := lyingProxy(t, tc.edit)
				u := proxy.URL + "/" + string(f)
				file := filepath.Join(t.TempDir(), "receipt.json")
				bBefore, sBefore, aBefore := testutil.Balance(t, payer), testutil.Balance(t, payOfferPayTo), testutil.Balance(t, payOfferAttacker)
				var stdout, stderr bytes.Buffer
				err := x402cmd.RunPay(t.Context(), u, x402cmd.PayOptions{Key: key, Timeout: 30 * time.Second, InsecureOffers: tc.insecure, Receipt: file}, &stdout, &stderr)
				testutil.AssertDelta(t, "attacker", aBefore, testutil.Balance(t, payOfferAttacker), 0)
				if tc.want != nil {
					if err == nil || err.Error() != tc.want() {
						t.Fatalf("err = %v\nwant %s\n%s", err, tc.want(), stderr.String())
					}
					testutil.AssertDelta(t, "buyer", bBefore, testutil.Balance(t, payer), 0)
					testutil.AssertDelta(t, "seller", sBefore, testutil.Balance(t, payOfferPayTo), 0)
					if stdout.Len() != 0 || strings.Contains(stderr.String(), "x402: paying") {
						t.Errorf("paid: stdout %q\n%s", stdout.String(), stderr.String())
					}
					if _, err := os.Stat(file); err == nil {
						t.Error("--receipt written without a payment")
					}
					return
				}
				if err != nil {
					t.Fatalf("pay: %v\n%s", err, stderr.String())
				}
				testutil.AssertDelta(t, "buyer", bBefore, testutil.Balance(t, payer), -10000)
				testutil.AssertDelta(t, "seller", sBefore, testutil.Balance(t, payOfferPayTo), 10000)
				warning := "x402: WARNING: the seller's signed offer for accepts entry 0 does not verify: " + why + "; paying anyway (--insecure-offers)\n"
				proxyDID := offerreceipt.DIDWeb(strings.TrimPrefix(proxy.URL, "http://"))
				if stdout.String() != "paid content" || !strings.Contains(stderr.String(), warning) ||
					receiptBlock(f, proxyDID, payer, u, "eip155:338").FindString(stderr.String()) == "" {
					t.Fatalf("stdout %q, stderr:\n%s\nwant %s", stdout.String(), stderr.String(), warning)
				}
				if r := savedReceipt(t, file, proxyDID); r.Payer != payer {
					t.Errorf("saved receipt %+v", r)
				}
			})
		}
	}
}

// changeOffer raises the amount of a signed offer (a map of the 402)
// without signing it again, and returns why the library refuses it.
func changeOffer(t *testing.T, so map[string]any, signer *offerreceipt.Key) string {
	t.Helper()
	if so["format"] == string(offerreceipt.JWS) {
		parts := strings.Split(so["signature"].(string), ".")
		body, err := base64.RawURLEncoding.DecodeString(parts[1])
		if err != nil || !bytes.Contains(body, []byte(`"amount":"10000"`)) {
			t.Fatalf("JWS payload %s: %v", body, err)
		}
		parts[1] = base64.RawURLEncoding.EncodeToString(bytes.Replace(body, []byte(`"amount":"10000"`), []byte(`"amount":"10001"`), 1))
		so["signature"] = strings.Join(parts, ".")
	} else {
		so["payload"].(map[string]any)["amount"] = "10001"
	}
	b, _ := json.Marshal(so)
	var changed offerreceipt.SignedOffer
	if err := json.NewDecoder(io.NopCloser(bytes.NewReader(b))).Decode(&changed); err != nil {
		t.Fatal(err)
	}
	// The key under the proxy's DID: only its address and the kid's
	// fragment matter to the reason.
	_, err := offerreceipt.VerifyOffer(changed, offerreceipt.KeysFor(signer.WithKID(kidOf(t, changed))))
	if err == nil {
		t.Fatal("the changed offer verifies")
	}
	return err.Error()
}

// kidOf is the kid of a JWS offer ("" for EIP-712).
func kidOf(t *testing.T, so offerreceipt.SignedOffer) string {
	if so.Format != offerreceipt.JWS {
		return ""
	}
	did, err := offerreceipt.SignerDID(so.Signature)
	if err != nil {
		t.Fatal(err)
	}
	head, _ := base64.RawURLEncoding.DecodeString(strings.Split(so.Signature, ".")[0])
	var h struct{ Kid string }
	_ = json.Unmarshal(head, &h)
	if !strings.HasPrefix(h.Kid, did+"#") {
		t.Fatalf("kid %q of DID %q", h.Kid, did)
	}
	return h.Kid
}

// TestPayCommandOfferReceiptMCP: over MCP, caddy x402 pay verifies the
// tool's offer and prints the receipt of the paid call.
func TestPayCommandOfferReceiptMCP(t *testing.T) {
	t.Setenv("X402_TEST_RECEIPT_A", receiptKeyA)
	_, up := newMCPServer(t)
	testutil.NewTester(t, testutil.GlobalBlock("receipt_key {env.X402_TEST_RECEIPT_A}")+fmt.Sprintf(`
:%d {
	x402 {
		pay_to %s
		network eip155:338
		mcp_tool weather 0.01
		offer_receipt eip712
	}
	reverse_proxy %s
}
`, testutil.SitePort, payOfferPayTo, up.Listener.Addr()))
	key := devnet.Buyer3PrivateKey
	payer := crypto.PubkeyToAddress(testutil.BuyerKey(t, key).PublicKey).Hex()
	file := filepath.Join(t.TempDir(), "receipt.json")
	sBefore := testutil.Balance(t, payOfferPayTo)
	var stdout, stderr bytes.Buffer
	err := x402cmd.RunPay(t.Context(), testutil.SiteURL+"/mcp", x402cmd.PayOptions{Key: key, Timeout: 30 * time.Second,
		MCPTool: "weather", MCPArgs: `{"city":"Oslo"}`, Receipt: file}, &stdout, &stderr)
	if err != nil {
		t.Fatalf("pay: %v\n%s", err, stderr.String())
	}
	testutil.AssertDelta(t, "seller", sBefore, testutil.Balance(t, payOfferPayTo), 10000)
	wantOffer := fmt.Sprintf("x402: offer verified (signed by %s): exact 10000 of %s on eip155:338 to %s for mcp://tool/weather, valid until ",
		siteDID(), devnet.TokenAddress.Hex(), payOfferPayTo)
	if !strings.Contains(stdout.String(), "sunny in Oslo") || !strings.Contains(stderr.String(), wantOffer) ||
		receiptBlock(offerreceipt.EIP712, siteDID(), payer, "mcp://tool/weather", "eip155:338").FindString(stderr.String()) == "" {
		t.Fatalf("stdout %q, stderr:\n%s", stdout.String(), stderr.String())
	}
	if r := savedReceipt(t, file, siteDID()); r.Charge == nil || r.Charge.Amount != "10000" {
		t.Errorf("saved receipt %+v", r)
	}
}

// TestPayCommandReceiptDID: a seller that publishes its keys under
// receipt_did (here the did:web of 127.0.0.1 while the buyer asks
// localhost): the JWS kid names that DID, and for EIP-712 the site's
// did.json (that DID's document) leads to it, resolved at its own address.
func TestPayCommandReceiptDID(t *testing.T) {
	t.Setenv("X402_TEST_RECEIPT_A", receiptKeyA)
	up := meteredUpstream(t, nil)
	did := fmt.Sprintf("did:web:127.0.0.1%%3A%d", testutil.SitePort)
	testutil.NewTester(t, testutil.GlobalBlock("receipt_key {env.X402_TEST_RECEIPT_A}\n\t\treceipt_did "+did)+
		fmt.Sprintf(payOfferSite, testutil.SitePort, payOfferPayTo, up.Listener.Addr()))
	key := devnet.Buyer1PrivateKey
	payer := crypto.PubkeyToAddress(testutil.BuyerKey(t, key).PublicKey).Hex()
	for _, f := range []offerreceipt.Format{offerreceipt.JWS, offerreceipt.EIP712} {
		sBefore := testutil.Balance(t, payOfferPayTo)
		var stdout, stderr bytes.Buffer
		if err := x402cmd.RunPay(t.Context(), testutil.SiteURL+"/"+string(f), x402cmd.PayOptions{Key: key, Timeout: 30 * time.Second}, &stdout, &stderr); err != nil {
			t.Fatalf("%s: %v\n%s", f, err, stderr.String())
		}
		testutil.AssertDelta(t, "seller", sBefore, testutil.Balance(t, payOfferPayTo), 10000)
		if !strings.Contains(stderr.String(), "x402: offer verified (signed by "+did+"): ") ||
			receiptBlock(f, did, payer, testutil.SiteURL+"/"+string(f), "eip155:338").FindString(stderr.String()) == "" {
			t.Fatalf("%s: stderr:\n%s", f, stderr.String())
		}
	}
}
