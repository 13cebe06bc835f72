package facilitator_test

import (
	"fmt"
	"math/big"
	"testing"

	"github.com/caddy-x402/caddy-x402/facilitator"
	"github.com/caddy-x402/caddy-x402/facilitator/exact"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// TestReceiptsByBlock: the outcomes of a block's settlements are read with
// one eth_getBlockReceipts, and no receipt is asked for one transaction at
// a time; on a node without eth_getBlockReceipts (it answers -32601, as
// Cronos nodes before v1.4.8 do) the method is asked once, and then only
// the receipts of the transactions mined are asked for, each once.
func TestReceiptsByBlock(t *testing.T) {
	const perBlock, price = 5, 100
	for _, tc := range []struct {
		name    string
		missing bool
	}{
		{"node serves eth_getBlockReceipts", false},
		{"node without eth_getBlockReceipts", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			proxy := newProxy(t)
			if tc.missing {
				proxy.FailMethod("eth_getBlockReceipts", -32601, "the method eth_getBlockReceipts does not exist/is not available")
			}
			tf := newTestFacilitator(t, nil, func(c *facilitator.Config) { c.Networks[0].RPCURLs = []string{proxy.URL()} })
			seller := newSeller(t)
			req := requirements(seller, fmt.Sprint(price))
			b := newBuyer(t, chain, 2*perBlock*price)
			defer chain.ResumeMining()
			for round := range 2 {
				chain.PauseMining()
				_, pending, err := chain.NonceAt(t.Context(), tf.signer)
				if err != nil {
					t.Fatal(err)
				}
				var chs []chan x402.SettleResponse
				for range perBlock {
					h, _ := pay(t, b, req, exact.PaymentOptions{})
					chs = append(chs, settleAsync(t, tf, body(h, req)))
				}
				waitBroadcast(t, tf.signer, pending+perBlock-1)
				chain.Mine()
				var block uint64
				for i, ch := range chs {
					s := awaitSettled(t, ch)
					if i > 0 && *s.BlockNumber != block {
						t.Fatalf("round %d: settled in blocks %d and %d, want one block", round, block, *s.BlockNumber)
					}
					block = *s.BlockNumber
				}
				chain.ResumeMining()
			}
			if got := balance(t, seller); got.Cmp(big.NewInt(2*perBlock*price)) != 0 {
				t.Fatalf("seller balance %s, want %d", got, 2*perBlock*price)
			}
			byBlock, byTx := proxy.Calls("eth_getBlockReceipts"), proxy.Calls("eth_getTransactionReceipt")
			if tc.missing {
				if byBlock != 1 || byTx != 2*perBlock {
					t.Fatalf("eth_getBlockReceipts asked %d times, eth_getTransactionReceipt %d times; want 1 (the probe) and %d (each mined transaction once)", byBlock, byTx, 2*perBlock)
				}
				return
			}
			if byBlock < 2 || byTx != 0 {
				t.Fatalf("eth_getBlockReceipts asked %d times, eth_getTransactionReceipt %d times; want at least 2 (one per block) and 0", byBlock, byTx)
			}
		})
	}
}
