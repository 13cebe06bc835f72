package paywall

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/caddy-x402/caddy-x402/caddymodule/internal/testutil"
	"github.com/caddy-x402/caddy-x402/facilitator/devnet"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// TestLostRecordDeliveredFromChain: payments used on chain of which the
// paywall holds no record, in both settlement orders. One the embedded
// facilitator settled (its signer sent the transaction; the paywall never
// saw it, as when its redemption row was lost) is delivered at the first
// request, once: the upstream runs once, nothing more moves, and the same
// header again, here or at another route of the same terms, is refused
// "Authorization already used". One settled through the facilitator's
// HTTP routes (for a seller elsewhere), and one that someone else settled
// (the minter sends the transferWithAuthorization itself), are refused as
// used, truly, and the upstream does not run.
func TestLostRecordDeliveredFromChain(t *testing.T) {
	up, ran := countingUpstream(t, 0)
	tester := testutil.NewTester(t, testutil.GlobalBlock("")+fmt.Sprintf(`
:%d {
	x402_facilitator {
		rate_limit off
	}
	x402 /a {
		pay_to %s
		amount 17
	}
	x402 /b {
		pay_to %s
		amount 17
	}
	x402 /after {
		pay_to %s
		amount 17
		settle after
	}
	reverse_proxy %s
}
`, testutil.SitePort, testutil.SellerAddr, testutil.SellerAddr, testutil.SellerAddr, up.Listener.Addr()))
	buyer := testutil.BuyerKey(t, devnet.Buyer4PrivateKey)
	buyerAddr := crypto.PubkeyToAddress(buyer.PublicKey).Hex()
	fac := testutil.ActiveFacilitator(t)

	refused := func(t *testing.T, path, header string) {
		t.Helper()
		resp, b := testutil.Get(t, tester, testutil.SiteURL+path, map[string]string{"X-Payment": header})
		var out testutil.Body402
		if resp.StatusCode != http.StatusPaymentRequired || json.Unmarshal(b, &out) != nil || out.Error != x402.ErrTextAlreadyUsed {
			t.Errorf("GET %s: %d %s; want 402 %q", path, resp.StatusCode, b, x402.ErrTextAlreadyUsed)
		}
	}

	for _, path := range []string{"/a", "/after"} {
		t.Run("settled here "+path, func(t *testing.T) {
			reqs := testutil.Require402(t, tester, testutil.SiteURL+path).PaymentRequirements
			var nonce [32]byte
			rand.Read(nonce[:])
			header := signWithNonce(t, buyer, reqs, nonce, 10*time.Minute)
			// The embedded facilitator settles it, and the paywall has no
			// record of it.
			s, err := fac.Settle(context.Background(), &x402.Request{X402Version: 1, PaymentHeader: header, PaymentRequirements: reqs})
			if err != nil || !s.Settled() {
				t.Fatalf("settle = %+v, %v", s, err)
			}
			buyerBefore, sellerBefore, runs := testutil.Balance(t, buyerAddr), testutil.Balance(t, testutil.SellerAddr), ran.Load()

			resp, b := testutil.Get(t, tester, testutil.SiteURL+path, map[string]string{"X-Payment": header})
			if resp.StatusCode != http.StatusOK || string(b) != "resource tx="+s.TxHash {
				t.Fatalf("GET %s with a payment settled on chain and no record here: %d %s; want 200 from tx %s", path, resp.StatusCode, b, s.TxHash)
			}
			if pr := paymentResponseOf(t, resp); !pr.Success || pr.TxHash != s.TxHash {
				t.Errorf("X-PAYMENT-RESPONSE %+v; want success with %s", pr, s.TxHash)
			}
			refused(t, path, header)
			refused(t, "/b", header)
			// Another authorization of the payer with the same nonce: the
			// record made from the chain knows which one paid.
			other := signWithNonce(t, buyer, reqs, nonce, 20*time.Minute)
			resp, b = testutil.Get(t, tester, testutil.SiteURL+path, map[string]string{"X-Payment": other})
			var out testutil.Body402
			if resp.StatusCode != http.StatusPaymentRequired || json.Unmarshal(b, &out) != nil || out.Error != textOtherAuthUsed {
				t.Errorf("GET %s with another authorization of the same nonce: %d %s; want 402 %q", path, resp.StatusCode, b, textOtherAuthUsed)
			}
			if got := ran.Load() - runs; got != 1 {
				t.Errorf("the upstream ran %d times; want 1", got)
			}
			testutil.AssertDelta(t, "buyer", buyerBefore, testutil.Balance(t, buyerAddr), 0)
			testutil.AssertDelta(t, "seller", sellerBefore, testutil.Balance(t, testutil.SellerAddr), 0)
		})
	}

	// Settled through the facilitator's HTTP routes, as for a paywall
	// elsewhere on the same pay_to, which may have delivered it: refused.
	t.Run("settled through the facilitator routes", func(t *testing.T) {
		reqs := testutil.Require402(t, tester, testutil.SiteURL+"/a").PaymentRequirements
		header := testutil.Pay(t, buyer, reqs)
		body, _ := json.Marshal(x402.Request{X402Version: 1, PaymentHeader: header, PaymentRequirements: reqs})
		resp, err := http.Post(testutil.SiteURL+"/v2/x402/settle", "application/json", bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		var s x402.SettleResponse
		err = json.NewDecoder(resp.Body).Decode(&s)
		resp.Body.Close()
		if err != nil || !s.Settled() {
			t.Fatalf("settle through the facilitator route = %d %+v, %v", resp.StatusCode, s, err)
		}
		runs := ran.Load()
		refused(t, "/a", header)
		if got := ran.Load() - runs; got != 0 {
			t.Errorf("the upstream ran %d times for a payment settled through the facilitator routes", got)
		}
	})

	t.Run("settled by someone else", func(t *testing.T) {
		reqs := testutil.Require402(t, tester, testutil.SiteURL+"/a").PaymentRequirements
		header := testutil.Pay(t, buyer, reqs)
		spendOnChain(t, header)
		runs := ran.Load()
		refused(t, "/a", header)
		refused(t, "/after", header)
		if got := ran.Load() - runs; got != 0 {
			t.Errorf("the upstream ran %d times for a payment someone else settled", got)
		}
	})
}
