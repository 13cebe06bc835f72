package facilitator_test

import (
	"context"
	"crypto/ecdsa"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/caddy-x402/caddy-x402/facilitator"
	"github.com/caddy-x402/caddy-x402/facilitator/permit2"
)

// TestUptoSecondSigner: with two signer keys, /supported names the first
// as facilitatorAddress, and a payment whose witness names the second is
// accepted and settled from the second (the proxy lets only the witness's
// facilitator settle), moving exactly the charge.
func TestUptoSecondSigner(t *testing.T) {
	ctx := context.Background()
	k1, k2 := newSignerKey(t, chain), newSignerKey(t, chain)
	f, _, _ := startFacilitator(t, k1, chain.RPCURL(), t.TempDir()+"/journal.db", func(c *facilitator.Config) {
		c.Networks[0].SignerKeys = []*ecdsa.PrivateKey{k1, k2}
	})
	second := crypto.PubkeyToAddress(k2.PublicKey)
	b := uptoBuyer(t, 100_000, big.NewInt(1e12))
	seller := newSeller(t)
	acc := uptoAccepted(t, f, seller, "5000")
	if acc.Extra["facilitatorAddress"] != crypto.PubkeyToAddress(k1.PublicKey).Hex() {
		t.Fatalf("facilitatorAddress %v, want the first signer", acc.Extra["facilitatorAddress"])
	}
	acc.Extra["facilitatorAddress"] = second.Hex()
	s, err := f.Settle(ctx, uptoRequest(uptoPay(t, b, acc, permit2.PaymentOptions{}), acc, "777"))
	if err != nil || !s.Settled() || s.Value != "777" {
		t.Fatalf("settle naming the second signer = %+v, %v", s, err)
	}
	tx, _, err := chain.Client().TransactionByHash(ctx, common.HexToHash(s.TxHash))
	if err != nil {
		t.Fatal(err)
	}
	if from, err := txSender(tx); err != nil || from != second {
		t.Fatalf("settled from %s, %v; want the second signer %s", from.Hex(), err, second.Hex())
	}
	if got := balance(t, seller).Int64(); got != 777 {
		t.Fatalf("seller holds %d, want 777", got)
	}
}

// txSender is the sender of a transaction on the dev chain.
func txSender(tx *types.Transaction) (common.Address, error) {
	return types.Sender(types.LatestSignerForChainID(tx.ChainId()), tx)
}
