package paywall

import (
	"fmt"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/caddy-x402/caddy-x402/caddymodule/internal/testutil"
	"github.com/caddy-x402/caddy-x402/facilitator/devnet"
)

// TestChannelDepositSignerWithoutGas: a deposit the facilitator cannot
// send (its signer has no gas money) is answered 500 with what happened
// and what to do, in words ("could not be settled"), and moves nothing.
func TestChannelDepositSignerWithoutGas(t *testing.T) {
	key, _ := crypto.GenerateKey()
	signer := crypto.PubkeyToAddress(key.PublicKey)
	t.Setenv("X402_TEST_NOGAS_KEY", hexutil.Encode(crypto.FromECDSA(key)))
	const payTo = "0x0000000000000000000000000000000000c4a0A5"
	tester := testutil.NewTester(t, testutil.GlobalBlock(testutil.NetworkBlock("nogasnet", devnet.ChainID, testutil.DevnetURL, "X402_TEST_NOGAS_KEY"))+fmt.Sprintf(`
:%d {
	x402 /nogas {
		pay_to %s
		amount 1000
		network nogasnet
		scheme batch-settlement
	}
	respond "paid content"
}
`, testutil.SitePort, payTo))
	u := testutil.SiteURL + "/nogas"
	cb := newChannelBuyer(t, tester, devnet.Buyer2PrivateKey, u, time.Now().UnixNano())
	buyerBefore := testutil.Balance(t, cb.cfg.Payer.Hex())
	st, b, _, _ := channelGet(t, tester, cb, u, cb.deposit(t, 5000, 1000))
	want := `{"error":"the payment could not be settled: the facilitator's signer ` + signer.Hex() +
		` has too little gas money on network nogasnet; nothing was sent, try again after the operator funds it","x402Version":1}` + "\n"
	if st != 500 || b != want {
		t.Fatalf("deposit = %d %s, want 500 %s", st, b, want)
	}
	testutil.AssertDelta(t, "buyer", buyerBefore, testutil.Balance(t, cb.cfg.Payer.Hex()), 0)
	testutil.AssertDelta(t, "seller", new(big.Int), testutil.Balance(t, payTo), 0)
}
