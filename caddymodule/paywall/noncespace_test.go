package paywall

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2/caddytest"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/caddy-x402/caddy-x402/caddymodule/internal/httpx"
	"github.com/caddy-x402/caddy-x402/caddymodule/internal/testutil"
	"github.com/caddy-x402/caddy-x402/facilitator/devnet"
	"github.com/caddy-x402/caddy-x402/facilitator/exact"
	"github.com/caddy-x402/caddy-x402/facilitator/permit2"
	"github.com/caddy-x402/caddy-x402/facilitator/upto"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// nonceSpaceCaddyfile has an exact EIP-3009 route (/ex, 20000), an upto
// route (/up, 2 per token up to 10000) and an exact route through Permit2
// (/p2, 10000), an exact EIP-3009 route of 5000 (/cheap), all paying
// uptoPayTo on the devnet, and the facilitator's HTTP routes.
const nonceSpaceCaddyfile = `
:%[1]d {
	x402_facilitator {
		rate_limit off
	}
	handle_path /ex/* {
		x402 {
			pay_to %[2]s
			amount 20000
		}
		reverse_proxy %[3]s
	}
	handle_path /cheap/* {
		x402 {
			pay_to %[2]s
			amount 5000
		}
		reverse_proxy %[3]s
	}
	handle_path /up/* {
		x402 {
			pay_to %[2]s
			price 0.01
			scheme upto
			meter json usage.total_tokens 0.000002
		}
		reverse_proxy %[3]s
	}
	handle_path /p2/* {
		x402 {
			pay_to %[2]s
			amount 10000
			network eip155:338
			asset_transfer permit2
		}
		reverse_proxy %[3]s
	}
}
`

// txUpstream is a real upstream that counts its runs and answers JSON
// that uses 5 tokens and names the transaction the paywall told it.
func txUpstream(t *testing.T) (*httptest.Server, *atomic.Int32) {
	var n atomic.Int32
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"answer":"42","tx":%q,"usage":{"total_tokens":5}}`, r.Header.Get(httpx.HeaderTxHash))
	}))
	t.Cleanup(up.Close)
	return up, &n
}

// permit2PaymentWithNonce signs a Permit2 payment of a version 2 route
// (upto, or exact through Permit2) with the given nonce, and answers it
// with the requirements it accepts.
func permit2PaymentWithNonce(t *testing.T, tester *caddytest.Tester, key *ecdsa.PrivateKey, u, scheme string, nonce [32]byte) (string, x402.RequirementsV2) {
	t.Helper()
	resp, b := testutil.Get(t, tester, u, nil)
	var pr x402.PaymentRequiredV2
	if resp.StatusCode != http.StatusPaymentRequired || x402.DecodeBase64JSON(resp.Header.Get(x402.HeaderPaymentRequired), &pr) != nil || len(pr.Accepts) != 1 {
		t.Fatalf("GET %s unpaid: %d %s", u, resp.StatusCode, b)
	}
	opts := permit2.PaymentOptions{Nonce: new(big.Int).SetBytes(nonce[:])}
	var h string
	var err error
	if scheme == x402.SchemeUpto {
		h, err = upto.CreatePayment(key, pr.Accepts[0], pr.Resource, opts)
	} else {
		h, err = exact.CreatePermit2Payment(key, pr.Accepts[0], pr.Resource, opts)
	}
	if err != nil {
		t.Fatal(err)
	}
	return h, pr.Accepts[0]
}

// refusedUsed checks that a payment is answered 402 "Authorization
// already used".
func refusedUsed(t *testing.T, tester *caddytest.Tester, u string, header map[string]string) {
	t.Helper()
	resp, b := testutil.Get(t, tester, u, header)
	if resp.StatusCode != http.StatusPaymentRequired || !strings.Contains(string(b), x402.ErrTextAlreadyUsed) {
		t.Errorf("GET %s: %d %s; want 402 %q", u, resp.StatusCode, b, x402.ErrTextAlreadyUsed)
	}
}

// TestPermit2NonceOfEIP3009Payment: a buyer pays the exact route by
// EIP-3009 with nonce N, then the upto route, or the exact route through
// Permit2, with a Permit2 payment of the same N. That is another
// authorization (Permit2's nonce bitmap is not the token's): it is
// verified, settled and delivered once, and moves its own money; each
// payment sent again is refused "Authorization already used" (not "another
// authorization": each record stays its own payment's).
func TestPermit2NonceOfEIP3009Payment(t *testing.T) {
	up, ran := txUpstream(t)
	tester := testutil.NewTester(t, testutil.GlobalBlock("")+fmt.Sprintf(nonceSpaceCaddyfile, testutil.SitePort, uptoPayTo, up.Listener.Addr()))
	buyer := testutil.BuyerKey(t, devnet.Buyer4PrivateKey)
	from := crypto.PubkeyToAddress(buyer.PublicKey).Hex()
	approvePermit2(t, buyer)
	for _, c := range []struct {
		scheme, path string
		charge       int64
	}{{x402.SchemeUpto, "/up/json", 10}, {x402.SchemeExactPermit2, "/p2/json", 10000}} {
		t.Run(c.scheme, func(t *testing.T) {
			var nonce [32]byte
			rand.Read(nonce[:])
			exURL, bURL := testutil.SiteURL+"/ex/json", testutil.SiteURL+c.path
			bBefore, sBefore, runs := testutil.Balance(t, from), testutil.Balance(t, uptoPayTo), ran.Load()

			hA := signWithNonce(t, buyer, testutil.Require402(t, tester, exURL).PaymentRequirements, nonce, 10*time.Minute)
			resp, b := testutil.Get(t, tester, exURL, map[string]string{"X-Payment": hA})
			if resp.StatusCode != http.StatusOK || !strings.Contains(string(b), `"answer":"42"`) {
				t.Fatalf("the EIP-3009 payment: %d %s", resp.StatusCode, b)
			}
			hB, _ := permit2PaymentWithNonce(t, tester, buyer, bURL, c.scheme, nonce)
			resp, b = testutil.Get(t, tester, bURL, map[string]string{x402.HeaderPaymentSignature: hB})
			if resp.StatusCode != http.StatusOK || !strings.Contains(string(b), `"answer":"42"`) {
				t.Fatalf("the %s payment with the EIP-3009 payment's nonce: %d %s; want 200", c.scheme, resp.StatusCode, b)
			}
			refusedUsed(t, tester, bURL, map[string]string{x402.HeaderPaymentSignature: hB})
			refusedUsed(t, tester, exURL, map[string]string{"X-Payment": hA})
			if got := ran.Load() - runs; got != 2 {
				t.Errorf("the upstream ran %d times; want 2", got)
			}
			testutil.AssertDelta(t, "buyer", bBefore, testutil.Balance(t, from), -(20000 + c.charge))
			testutil.AssertDelta(t, "seller", sBefore, testutil.Balance(t, uptoPayTo), 20000+c.charge)
		})
	}
}

// TestLostPermit2RecordNotEIP3009: the paywall holds no record of either
// of two payments with one nonce N (as when the store lost its rows): an
// EIP-3009 payment of 20000 and a Permit2 payment (exact through Permit2,
// 10000) to the same pay_to, both used on chain. The Permit2 payment is
// delivered from its own settlement when the embedded facilitator made
// it (its transaction named, nothing moves again), and refused as used
// when it was settled through the facilitator's HTTP routes (for a seller
// elsewhere), never delivered against the EIP-3009 payment's settlement.
func TestLostPermit2RecordNotEIP3009(t *testing.T) {
	up, ran := txUpstream(t)
	tester := testutil.NewTester(t, testutil.GlobalBlock("")+fmt.Sprintf(nonceSpaceCaddyfile, testutil.SitePort, uptoPayTo, up.Listener.Addr()))
	buyer := testutil.BuyerKey(t, devnet.Buyer4PrivateKey)
	from := crypto.PubkeyToAddress(buyer.PublicKey).Hex()
	approvePermit2(t, buyer)
	fac := testutil.ActiveFacilitator(t)
	ctx := context.Background()
	for _, via := range []string{"embedded", "http"} {
		t.Run(via, func(t *testing.T) {
			var nonce [32]byte
			rand.Read(nonce[:])
			exURL, p2URL := testutil.SiteURL+"/ex/json", testutil.SiteURL+"/p2/json"
			reqsA := testutil.Require402(t, tester, exURL).PaymentRequirements
			hA := signWithNonce(t, buyer, reqsA, nonce, 10*time.Minute)
			sa, err := fac.Settle(ctx, &x402.Request{X402Version: 1, PaymentHeader: hA, PaymentRequirements: reqsA})
			if err != nil || !sa.Settled() {
				t.Fatalf("settle of the EIP-3009 payment = %+v, %v", sa, err)
			}
			hB, acc := permit2PaymentWithNonce(t, tester, buyer, p2URL, x402.SchemeExactPermit2, nonce)
			var sb x402.SettleResponse
			if via == "embedded" {
				s, err := fac.Settle(ctx, &x402.Request{X402Version: 1, PaymentHeader: hB, PaymentRequirements: acc.V1(nil)})
				if err != nil || !s.Settled() {
					t.Fatalf("settle of the Permit2 payment = %+v, %v", s, err)
				}
				sb = *s
			} else {
				payload, err := base64.StdEncoding.DecodeString(hB)
				if err != nil {
					t.Fatal(err)
				}
				body, _ := json.Marshal(map[string]any{"x402Version": 2, "paymentPayload": json.RawMessage(payload), "paymentRequirements": acc})
				resp, err := http.Post(testutil.SiteURL+"/v2/x402/settle", "application/json", bytes.NewReader(body))
				if err != nil {
					t.Fatal(err)
				}
				var out map[string]any
				err = json.NewDecoder(resp.Body).Decode(&out)
				resp.Body.Close()
				if err != nil || resp.StatusCode != http.StatusOK || out["success"] != true {
					t.Fatalf("settle of the Permit2 payment through the facilitator route = %d %v, %v", resp.StatusCode, out, err)
				}
				sb.TxHash, _ = out["transaction"].(string)
			}
			if sb.TxHash == sa.TxHash {
				t.Fatalf("the two payments settled in one transaction %s", sa.TxHash)
			}
			bBefore, sBefore, runs := testutil.Balance(t, from), testutil.Balance(t, uptoPayTo), ran.Load()

			resp, b := testutil.Get(t, tester, p2URL, map[string]string{x402.HeaderPaymentSignature: hB})
			if via == "embedded" {
				if resp.StatusCode != http.StatusOK || !strings.Contains(string(b), `"tx":"`+sb.TxHash+`"`) {
					t.Fatalf("GET with the Permit2 payment settled here, no record: %d %s; want 200 from its own tx %s (the EIP-3009 one is %s)",
						resp.StatusCode, b, sb.TxHash, sa.TxHash)
				}
				refusedUsed(t, tester, p2URL, map[string]string{x402.HeaderPaymentSignature: hB})
				if got := ran.Load() - runs; got != 1 {
					t.Errorf("the upstream ran %d times; want 1", got)
				}
			} else {
				if resp.StatusCode != http.StatusPaymentRequired || !strings.Contains(string(b), x402.ErrTextAlreadyUsed) {
					t.Fatalf("GET with the Permit2 payment settled through the facilitator routes: %d %s; want 402 %q (not delivered against the EIP-3009 settlement %s)",
						resp.StatusCode, b, x402.ErrTextAlreadyUsed, sa.TxHash)
				}
				if got := ran.Load() - runs; got != 0 {
					t.Errorf("the upstream ran %d times; want 0", got)
				}
			}
			testutil.AssertDelta(t, "buyer", bBefore, testutil.Balance(t, from), 0)
			testutil.AssertDelta(t, "seller", sBefore, testutil.Balance(t, uptoPayTo), 0)
		})
	}
}

// TestLostEIP3009RecordNotPermit2: the other way round. A Permit2 payment
// (exact through Permit2, 10000) with nonce N was settled by the embedded
// facilitator, and an EIP-3009 payment of 5000 with the same N was used
// on chain by someone else (the minter sent its transferWithAuthorization);
// the paywall holds no record of either. The EIP-3009 payment is refused
// as used, never delivered against the Permit2 payment's settlement.
func TestLostEIP3009RecordNotPermit2(t *testing.T) {
	up, ran := txUpstream(t)
	tester := testutil.NewTester(t, testutil.GlobalBlock("")+fmt.Sprintf(nonceSpaceCaddyfile, testutil.SitePort, uptoPayTo, up.Listener.Addr()))
	buyer := testutil.BuyerKey(t, devnet.Buyer4PrivateKey)
	from := crypto.PubkeyToAddress(buyer.PublicKey).Hex()
	approvePermit2(t, buyer)
	fac := testutil.ActiveFacilitator(t)
	var nonce [32]byte
	rand.Read(nonce[:])
	cheapURL, p2URL := testutil.SiteURL+"/cheap/json", testutil.SiteURL+"/p2/json"
	hB, acc := permit2PaymentWithNonce(t, tester, buyer, p2URL, x402.SchemeExactPermit2, nonce)
	sb, err := fac.Settle(context.Background(), &x402.Request{X402Version: 1, PaymentHeader: hB, PaymentRequirements: acc.V1(nil)})
	if err != nil || !sb.Settled() {
		t.Fatalf("settle of the Permit2 payment = %+v, %v", sb, err)
	}
	hA := signWithNonce(t, buyer, testutil.Require402(t, tester, cheapURL).PaymentRequirements, nonce, 10*time.Minute)
	spendOnChain(t, hA)
	bBefore, sBefore, runs := testutil.Balance(t, from), testutil.Balance(t, uptoPayTo), ran.Load()
	resp, b := testutil.Get(t, tester, cheapURL, map[string]string{"X-Payment": hA})
	if resp.StatusCode != http.StatusPaymentRequired || !strings.Contains(string(b), x402.ErrTextAlreadyUsed) {
		t.Fatalf("GET with the EIP-3009 payment someone else settled: %d %s; want 402 %q (not delivered against the Permit2 settlement %s)",
			resp.StatusCode, b, x402.ErrTextAlreadyUsed, sb.TxHash)
	}
	if got := ran.Load() - runs; got != 0 {
		t.Errorf("the upstream ran %d times; want 0", got)
	}
	testutil.AssertDelta(t, "buyer", bBefore, testutil.Balance(t, from), 0)
	testutil.AssertDelta(t, "seller", sBefore, testutil.Balance(t, uptoPayTo), 0)
}
