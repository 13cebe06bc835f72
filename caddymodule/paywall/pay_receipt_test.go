package paywall

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/caddy-x402/caddy-x402/caddymodule/internal/testutil"
	"github.com/caddy-x402/caddy-x402/caddymodule/x402cmd"
	"github.com/caddy-x402/caddy-x402/facilitator/devnet"
	"github.com/caddy-x402/caddy-x402/facilitator/offerreceipt"
)

// TestReceiptCommand: "caddy x402 receipt" fetches the receipt of a
// payment "caddy x402 pay --payment-id" made, from the real seller's
// look-up, by its transaction (in any case) and by payer and payment id,
// verifies it against the site's did:web keys, writes it to stdout as
// kept and prints what it says. A payment id the seller does not know, or
// another payer's, is the seller's 404 text; bad flags are refused before
// any request; a look-up answered with another payment's receipt (a
// proxy that swaps them) does not verify.
func TestReceiptCommand(t *testing.T) {
	t.Setenv("X402_TEST_RECEIPT_A", receiptKeyA)
	up := meteredUpstream(t, nil)
	testutil.NewTester(t, testutil.GlobalBlock("receipt_key {env.X402_TEST_RECEIPT_A}")+
		fmt.Sprintf(payOfferSite, testutil.SitePort, payOfferPayTo, up.Listener.Addr()))
	did := siteDID()
	key := devnet.Buyer1PrivateKey
	payer := crypto.PubkeyToAddress(testutil.BuyerKey(t, key).PublicKey).Hex()
	receipt := func(t *testing.T, site string, o x402cmd.ReceiptOptions) (string, string, error) {
		t.Helper()
		var stdout, stderr bytes.Buffer
		o.Timeout = 30 * time.Second
		err := x402cmd.RunReceipt(t.Context(), site, o, &stdout, &stderr)
		return stdout.String(), stderr.String(), err
	}
	compact := func(t *testing.T, b []byte) string {
		t.Helper()
		var out bytes.Buffer
		if err := json.Compact(&out, b); err != nil {
			t.Fatalf("not JSON: %s", b)
		}
		return out.String()
	}

	type paid struct{ id, tx, receipt string }
	payments := map[offerreceipt.Format]paid{}
	for _, f := range []offerreceipt.Format{offerreceipt.JWS, offerreceipt.EIP712} {
		t.Run(string(f), func(t *testing.T) {
			id := fmt.Sprintf("receipt-cmd-%s-%d", f, time.Now().UnixNano())
			file := filepath.Join(t.TempDir(), "receipt.json")
			var stdout, stderr bytes.Buffer
			if err := x402cmd.RunPay(t.Context(), testutil.SiteURL+"/"+string(f), x402cmd.PayOptions{Key: key, Timeout: 30 * time.Second, PaymentID: id, Receipt: file}, &stdout, &stderr); err != nil {
				t.Fatalf("pay: %v\n%s", err, stderr.String())
			}
			resource := testutil.SiteURL + "/" + string(f)
			m := receiptBlock(f, did, payer, resource, "eip155:338").FindStringSubmatch(stderr.String())
			saved, err := os.ReadFile(file)
			if m == nil || err != nil {
				t.Fatalf("pay's stderr:\n%s (%v)", stderr.String(), err)
			}
			tx := m[1]
			payments[f] = paid{id, tx, compact(t, saved)}
			for _, o := range []x402cmd.ReceiptOptions{
				{Transaction: tx},
				{Transaction: "0x" + strings.ToUpper(tx[2:])},
				{Payer: payer, PaymentID: id},
				{Payer: strings.ToLower(payer), PaymentID: id},
			} {
				// Any URL of the site: the look-up is at its root.
				out, errOut, err := receipt(t, resource+"?q=1", o)
				if err != nil {
					t.Fatalf("receipt %+v: %v\n%s", o, err, errOut)
				}
				if compact(t, []byte(out)) != payments[f].receipt || !strings.HasSuffix(out, "}\n") {
					t.Errorf("receipt %+v wrote %s, want pay's %s", o, out, saved)
				}
				if bm := receiptBlock(f, did, payer, resource, "eip155:338").FindStringSubmatch(errOut); bm == nil || bm[1] != tx ||
					!strings.Contains(errOut, "\n  charged      10000 smallest units\n") {
					t.Errorf("receipt %+v printed:\n%s", o, errOut)
				}
			}
		})
	}
	if t.Failed() {
		t.FailNow()
	}

	notKept := "no receipt: the seller answered 404: no receipt is kept for this payment: it is unknown, its record was pruned (an hour after its authorization expired), or its route signs no receipts (offer_receipt), or none that name their transaction (receipt_transaction off) when asked by transaction"
	jws := payments[offerreceipt.JWS]
	for _, tc := range []struct {
		name string
		o    x402cmd.ReceiptOptions
		want string
	}{
		{"an unknown payment id", x402cmd.ReceiptOptions{Payer: payer, PaymentID: jws.id + "x"}, notKept},
		{"another payer's id", x402cmd.ReceiptOptions{Payer: payOfferPayTo, PaymentID: jws.id}, notKept},
		{"an unknown transaction", x402cmd.ReceiptOptions{Transaction: "0x" + strings.Repeat("ab", 32)}, notKept},
		{"nothing asked", x402cmd.ReceiptOptions{}, "give --transaction 0x... (the settlement's transaction hash), or --payer 0x... with --payment-id ID (the payment identifier it was paid under)"},
		{"a payer without an id", x402cmd.ReceiptOptions{Payer: payer}, "give --transaction 0x... (the settlement's transaction hash), or --payer 0x... with --payment-id ID (the payment identifier it was paid under)"},
		{"both", x402cmd.ReceiptOptions{Transaction: jws.tx, Payer: payer, PaymentID: jws.id}, "give --transaction, or --payer with --payment-id, not both"},
		{"a short transaction", x402cmd.ReceiptOptions{Transaction: jws.tx[:65]}, `--transaction "` + jws.tx[:65] + `": want 0x and 64 hex digits (the settlement's transaction hash)`},
		{"a bad payer", x402cmd.ReceiptOptions{Payer: "0x12", PaymentID: jws.id}, `--payer "0x12": want 0x and 40 hex digits (the payer's address)`},
		{"a bad payment id", x402cmd.ReceiptOptions{Payer: payer, PaymentID: "short"}, `--payment-id "short": `},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, _, err := receipt(t, testutil.SiteURL, tc.o)
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) || (!strings.HasSuffix(tc.want, ": ") && err.Error() != tc.want) || out != "" {
				t.Fatalf("receipt %+v: %v, stdout %q; want %q", tc.o, err, out, tc.want)
			}
		})
	}
	if _, _, err := receipt(t, "ftp://localhost/x", x402cmd.ReceiptOptions{Transaction: jws.tx}); err == nil || err.Error() != `"ftp://localhost/x" is not an http or https URL of the seller's site` {
		t.Errorf("an ftp URL: %v", err)
	}

	t.Run("a swapped receipt", func(t *testing.T) {
		// A proxy answers every look-up with the EIP-712 payment's
		// receipt, signed by the site's key: asked for the JWS payment's
		// transaction, or another payer, it is refused.
		e := payments[offerreceipt.EIP712]
		target, _ := url.Parse(testutil.SiteURL)
		rp := &httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) { r.SetURL(target); r.Out.Host = target.Host }}
		swap := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/.well-known/x402/receipt" {
				w.Header().Set("Content-Type", "application/json")
				w.Write([]byte(e.receipt))
				return
			}
			rp.ServeHTTP(w, r)
		}))
		defer swap.Close()
		if out, errOut, err := receipt(t, swap.URL, x402cmd.ReceiptOptions{Transaction: e.tx}); err != nil || compact(t, []byte(out)) != e.receipt {
			t.Fatalf("the proxy's own receipt: %v\n%s", err, errOut)
		}
		for _, tc := range []struct {
			o    x402cmd.ReceiptOptions
			want string
		}{
			{x402cmd.ReceiptOptions{Transaction: jws.tx}, "the seller's receipt does not verify: it names transaction \"" + e.tx + "\", not " + jws.tx},
			{x402cmd.ReceiptOptions{Payer: payOfferPayTo, PaymentID: jws.id}, "the seller's receipt does not verify: its payer " + payer + " is not " + payOfferPayTo},
		} {
			if out, _, err := receipt(t, swap.URL, tc.o); err == nil || err.Error() != tc.want || out != "" {
				t.Errorf("receipt %+v through the swapping proxy: %v, stdout %q; want %q", tc.o, err, out, tc.want)
			}
		}
	})
}
