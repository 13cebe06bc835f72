package facilitator_test

import (
	"context"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"

	"github.com/caddy-x402/caddy-x402/facilitator/permit2"
	"github.com/caddy-x402/caddy-x402/facilitator/token"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// TestUptoNonceInvalidated: a buyer who invalidates its Permit2 nonce
// (invalidateUnorderedNonces) between verify and settle gets the settle
// refused "Authorization already used" before anything is broadcast (no
// transaction), once and finally; the seller holds nothing.
func TestUptoNonceInvalidated(t *testing.T) {
	ctx := context.Background()
	b := uptoBuyer(t, 100_000, big.NewInt(1e12))
	seller := newSeller(t)
	acc := uptoAccepted(t, fac, seller, "5000")
	nonce := big.NewInt(0x1234_56)
	h := uptoPay(t, b, acc, permit2.PaymentOptions{Nonce: nonce})
	if v, err := fac.Verify(ctx, uptoRequest(h, acc, "5000")); err != nil || !v.IsValid {
		t.Fatalf("verify = %+v, %v", v, err)
	}
	p2, err := token.NewPermit2(permit2.Address, chain.Client())
	if err != nil {
		t.Fatal(err)
	}
	word, bit := new(big.Int).Rsh(nonce, 8), new(big.Int).And(nonce, big.NewInt(0xff))
	tx, err := p2.InvalidateUnorderedNonces(bind.NewKeyedTransactor(b.Key, chain.ChainID()), word, new(big.Int).Lsh(big.NewInt(1), uint(bit.Uint64())))
	if err != nil {
		t.Fatal(err)
	}
	waitTx(t, tx)
	for i := range 2 {
		s, err := fac.Settle(ctx, uptoRequest(h, acc, "3000"))
		if err != nil || s.Settled() || s.Error != x402.ErrTextAlreadyUsed || s.TxHash != "" {
			t.Fatalf("settle %d after the nonce was invalidated = %+v, %v", i, s, err)
		}
	}
	if got := balance(t, seller).Int64(); got != 0 {
		t.Fatalf("seller holds %d", got)
	}
}
