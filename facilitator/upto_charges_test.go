package facilitator_test

import (
	"encoding/json"
	"math/big"
	"testing"

	"github.com/caddy-x402/caddy-x402/facilitator/permit2"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// TestUptoChargeEdges: a settle whose charge is not a plain amount of at
// most the maximum (negative, hex, decimals, above 2^256, over the
// maximum) is refused with a clear answer, never a 500, and moves nothing.
func TestUptoChargeEdges(t *testing.T) {
	b := uptoBuyer(t, 100_000, big.NewInt(1e12))
	for _, charge := range []string{"-1", "0x10", "1.5", "5001", "", " 5",
		"115792089237316195423570985008687907853269984665640564039457584007913129639936"} {
		t.Run(charge, func(t *testing.T) {
			seller := newSeller(t)
			acc := uptoAccepted(t, fac, seller, "5000")
			h := uptoPay(t, b, acc, permit2.PaymentOptions{})
			var out map[string]any
			status := post(t, x402.PathSettle, uptoBody(t, h, acc, charge), &out)
			js, _ := json.Marshal(out)
			t.Logf("charge %q: %d %s", charge, status, js)
			want := "Invalid amount: " + charge
			switch charge {
			case "5001":
				want = x402.ReasonUptoExceedsMaximum + "5001 > 5000"
			case "":
				want = "paymentRequirements.maxAmountRequired is required"
			}
			if status >= 500 || out["success"] == true || out["errorMessage"] != want || out["transaction"] != "" {
				t.Fatalf("charge %q: %d %s", charge, status, js)
			}
			if got := balance(t, seller); got.Sign() != 0 {
				t.Fatalf("seller holds %s", got)
			}
		})
	}
}
