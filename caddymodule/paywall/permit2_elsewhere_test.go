package paywall

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi/bind"

	"github.com/caddy-x402/caddy-x402/caddymodule/internal/testutil"
	"github.com/caddy-x402/caddy-x402/facilitator/devnet"
	"github.com/caddy-x402/caddy-x402/facilitator/token"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// TestUptoNonceUsedElsewhere: a buyer who invalidates the Permit2 nonce of
// its upto payment (invalidateUnorderedNonces: a use outside x402) and
// sends the payment anyway is refused 402 "Authorization already used", a
// final answer, every time: not 503 "the chain could not be asked",
// which it would be forever (no x402 transaction used the nonce, so none
// is ever found). Nothing moves.
func TestUptoNonceUsedElsewhere(t *testing.T) {
	up := meteredUpstream(t, nil)
	tester := testutil.NewTester(t, testutil.GlobalBlock("")+fmt.Sprintf(uptoCaddyfile, testutil.SitePort, uptoPayTo, up.Listener.Addr()))
	key := testutil.BuyerKey(t, devnet.Buyer2PrivateKey)
	approvePermit2(t, key)
	u := testutil.SiteURL + "/before/json?tokens=10"
	pay := payUpto(t, tester, key, u)
	p, err := x402.DecodePaymentHeader(pay)
	if err != nil {
		t.Fatal(err)
	}
	if err := parsePermit2Payment(p, true); err != nil {
		t.Fatal(err)
	}
	nonce := new(big.Int).SetBytes(p.Authorization.Nonce[:])
	p2, err := token.NewPermit2(devnet.Permit2Address, testutil.ChainClient)
	if err != nil {
		t.Fatal(err)
	}
	opts, err := bind.NewKeyedTransactorWithChainID(key, big.NewInt(devnet.ChainID))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	opts.Context = ctx
	word, bit := new(big.Int).Rsh(nonce, 8), new(big.Int).And(nonce, big.NewInt(0xff))
	tx, err := p2.InvalidateUnorderedNonces(opts, word, new(big.Int).Lsh(big.NewInt(1), uint(bit.Uint64())))
	if err != nil {
		t.Fatal(err)
	}
	if rc, err := bind.WaitMined(ctx, testutil.ChainClient, tx); err != nil || rc.Status != 1 {
		t.Fatalf("invalidateUnorderedNonces: %v %+v", err, rc)
	}
	sBefore := testutil.Balance(t, uptoPayTo)
	for i := range 2 {
		resp, b := testutil.Get(t, tester, u, map[string]string{x402.HeaderPaymentSignature: pay})
		var body struct {
			Error string `json:"error"`
		}
		if err := json.Unmarshal(b, &body); err != nil || resp.StatusCode != http.StatusPaymentRequired || body.Error != x402.ErrTextAlreadyUsed {
			t.Errorf("send %d: %d %s, want 402 %q", i, resp.StatusCode, b, x402.ErrTextAlreadyUsed)
		}
	}
	testutil.AssertDelta(t, "seller", sBefore, testutil.Balance(t, uptoPayTo), 0)
}
