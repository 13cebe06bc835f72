package facilitator_test

import (
	"context"
	"math/big"
	"testing"

	"github.com/caddy-x402/caddy-x402/facilitator/permit2"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// TestUptoSettleRechecks: a settle re-checks the payment against its own
// requirements, not the verify's: a verified payment settled with another
// payTo, asset or facilitatorAddress is refused with its reason, no
// transaction, nothing moved; the unchanged requirements then settle.
func TestUptoSettleRechecks(t *testing.T) {
	ctx := context.Background()
	b := uptoBuyer(t, 100_000, big.NewInt(1e12))
	seller, other := newSeller(t), newSeller(t)
	acc := uptoAccepted(t, fac, seller, "5000")
	h := uptoPay(t, b, acc, permit2.PaymentOptions{})
	if v, err := fac.Verify(ctx, uptoRequest(h, acc, "5000")); err != nil || !v.IsValid {
		t.Fatalf("verify = %+v, %v", v, err)
	}
	for _, c := range []struct {
		name string
		edit func(r *x402.RequirementsV2)
		want string
	}{
		{"payTo", func(r *x402.RequirementsV2) { r.PayTo = other.Hex() }, x402.ReasonPermit2Recipient},
		{"asset", func(r *x402.RequirementsV2) { r.Asset = other.Hex() }, x402.ReasonUnsupportedAsset(other.Hex())},
	} {
		r := acc
		r.Extra = map[string]any{}
		for k, v := range acc.Extra {
			r.Extra[k] = v
		}
		c.edit(&r)
		s, err := fac.Settle(ctx, uptoRequest(h, r, "4000"))
		if err != nil || s.Settled() || s.Error != c.want || s.TxHash != "" {
			t.Fatalf("settle with another %s = %+v, %v; want %q", c.name, s, err, c.want)
		}
	}
	if got := balance(t, seller).Int64() + balance(t, other).Int64(); got != 0 {
		t.Fatalf("moved %d before the true settle", got)
	}
	if s, err := fac.Settle(ctx, uptoRequest(h, acc, "4000")); err != nil || !s.Settled() || s.Value != "4000" {
		t.Fatalf("settle = %+v, %v", s, err)
	}
	if got := balance(t, seller).Int64(); got != 4000 {
		t.Fatalf("seller holds %d, want 4000", got)
	}
}
