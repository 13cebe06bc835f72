package facilitator_test

import (
	"context"
	"math/big"
	"strings"
	"sync"
	"testing"

	"github.com/caddy-x402/caddy-x402/facilitator/devnet"
	"github.com/caddy-x402/caddy-x402/facilitator/exact"
	"github.com/caddy-x402/caddy-x402/facilitator/permit2"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// exactPermit2Pay signs an exact payment through Permit2 of accepted.
func exactPermit2Pay(t testing.TB, key devnet.Account, accepted x402.RequirementsV2) string {
	t.Helper()
	h, err := exact.CreatePermit2Payment(key.Key, accepted, nil, permit2.PaymentOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// TestExactPermit2: an exact payment through Permit2
// (extra.assetTransferMethod "permit2") verifies and settles its whole
// amount through the x402 exact proxy, once under concurrent settles; a
// settle of another amount, a payer without a Permit2 allowance (412) and
// a spender other than the exact proxy are refused; a facilitator whose
// journal never held it reads it back from the chain.
func TestExactPermit2(t *testing.T) {
	ctx := context.Background()
	b := uptoBuyer(t, 100_000, big.NewInt(1e12))
	seller := newSeller(t)
	acc := exactV2(seller, "2500")
	acc.Extra["assetTransferMethod"] = "permit2"
	h := exactPermit2Pay(t, b, acc)
	var v x402.ReferenceVerifyResponse
	if status := post(t, x402.PathVerify, uptoBody(t, h, acc, "2500"), &v); status != 200 || !v.IsValid {
		t.Fatalf("verify = %d %+v", status, v)
	}
	// Another amount than the signed price is refused.
	if s, err := fac.Settle(ctx, uptoRequest(h, acc, "2000")); err != nil || s.Settled() || s.Error != x402.ReasonPermit2AmountMismatch+"2000 != 2500" {
		t.Fatalf("settle of another amount = %+v, %v", s, err)
	}
	before := balance(t, b.Address)
	const n = 10
	var wg sync.WaitGroup
	answers := make([]*x402.SettleResponse, n)
	for i := range n {
		wg.Go(func() { answers[i], _ = fac.Settle(ctx, uptoRequest(h, acc, "2500")) })
	}
	wg.Wait()
	var tx string
	for i, s := range answers {
		switch {
		case s != nil && s.Settled() && tx == "" && s.Value == "2500":
			tx = s.TxHash
		case s != nil && s.Error == x402.ErrTextAlreadyUsed:
		default:
			t.Fatalf("settle %d = %+v", i, s)
		}
	}
	if tx == "" {
		t.Fatal("no settle succeeded")
	}
	if got := balance(t, seller); got.Int64() != 2500 {
		t.Fatalf("seller holds %s, want 2500", got)
	}
	if got := new(big.Int).Sub(before, balance(t, b.Address)); got.Int64() != 2500 {
		t.Fatalf("buyer paid %s, want 2500", got)
	}

	unapproved := uptoBuyer(t, 100_000, nil)
	if status := post(t, x402.PathVerify, uptoBody(t, exactPermit2Pay(t, unapproved, acc), acc, "2500"), &v); status != 412 || v.IsValid || v.InvalidReason != x402.CodePermit2AllowanceRequired {
		t.Fatalf("verify without allowance = %d %+v", status, v)
	}
	wrong := editPayload(t, exactPermit2Pay(t, b, acc), func(pl map[string]any) {
		pl["permit2Authorization"].(map[string]any)["spender"] = "0x4020A4f3b7b90ccA423B9fabCc0CE57C6C240002"
	})
	if status := post(t, x402.PathVerify, uptoBody(t, wrong, acc, "2500"), &v); status != 200 || v.IsValid || v.InvalidMessage != x402.ReasonPermit2Spender {
		t.Fatalf("verify with the upto proxy as spender = %d %+v", status, v)
	}

	other, _, _ := startFacilitator(t, newSignerKey(t, chain), chain.RPCURL(), t.TempDir()+"/journal.db", nil)
	got, err := other.Settlement(tx)
	if err != nil || !got.Settled() || !strings.EqualFold(got.From, b.Address.Hex()) || !strings.EqualFold(got.To, seller.Hex()) || got.Value != "2500" {
		t.Fatalf("look-up from the chain = %+v, %v", got, err)
	}
}
