package paywall

import (
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi/bind"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/caddy-x402/caddy-x402/caddymodule/internal/testutil"
	"github.com/caddy-x402/caddy-x402/facilitator/devnet"
	"github.com/caddy-x402/caddy-x402/facilitator/exact"
	"github.com/caddy-x402/caddy-x402/facilitator/token"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// TestLyingWalletSettleAfter: forty payments at once from a lying wallet
// (token.LyingWallet, deployed here on the devnet: its signature passes
// every simulation and fails in every mined transaction) on a route that
// settles after its upstream. The upstream runs once (without the bound:
// forty times, each for nothing) and one transaction is broadcast; that
// payment's 402 names its reverted transaction; the payments that came
// while it was in flight get 409 with Retry-After; the next ones a 402
// with the cooling-off, naming the same transaction, before the upstream
// runs. The metrics count the revert and its gas.
func TestLyingWalletSettleAfter(t *testing.T) {
	var runs atomic.Int64
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		runs.Add(1)
		fmt.Fprint(w, "lying content")
	}))
	t.Cleanup(upstream.Close)
	tester := testutil.NewTester(t, testutil.GlobalBlock("")+fmt.Sprintf(`
:%d {
	x402 /lying {
		pay_to %s
		amount 1000
		settle after
		attempt_limit off
	}
	reverse_proxy %s
}
`, testutil.SitePort, testutil.Seller2Addr, upstream.Listener.Addr()))

	owner := testutil.BuyerKey(t, devnet.Buyer3PrivateKey)
	wallet := deployLying(t, owner, 100_000)
	reqs := testutil.Require402(t, tester, testutil.SiteURL+"/lying").PaymentRequirements
	signer := crypto.PubkeyToAddress(testutil.BuyerKey(t, devnet.SignerPrivateKey).PublicKey)
	nonce0, err := testutil.ChainClient.NonceAt(context.Background(), signer, nil)
	if err != nil {
		t.Fatal(err)
	}
	sign := func() string {
		h, _, err := exact.CreatePayment(owner, reqs, exact.PaymentOptions{ChainID: big.NewInt(devnet.ChainID), ValidFor: time.Hour, Wallet: &wallet})
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	type answer struct {
		status int
		retry  string
		error  string
	}
	send := func(header string) answer {
		resp, b := testutil.Get(t, tester, testutil.SiteURL+"/lying", map[string]string{"X-Payment": header})
		var body struct {
			Error string `json:"error"`
		}
		_ = json.Unmarshal(b, &body)
		return answer{resp.StatusCode, resp.Header.Get("Retry-After"), body.Error}
	}
	headers := make([]string, 40)
	for i := range headers {
		headers[i] = sign()
	}
	answers := make([]answer, len(headers))
	var wg sync.WaitGroup
	for i, h := range headers {
		wg.Go(func() { answers[i] = send(h) })
	}
	wg.Wait()

	tx, reverts := "", 0
	mix := map[string]int{}
	for _, a := range answers {
		mix[fmt.Sprintf("%d %s", a.status, a.error)]++
		if a.status == http.StatusPaymentRequired && strings.HasPrefix(a.error, x402.ErrTextFailedOnChain+": transaction 0x") {
			tx, _ = strings.CutPrefix(a.error, x402.ErrTextFailedOnChain+": transaction ")
			tx, _ = strings.CutSuffix(tx, " did not transfer the payment, so nothing was charged")
			reverts++
		}
	}
	t.Logf("40 payments from a lying wallet at once: upstream ran %d times, %d reverted", runs.Load(), reverts)
	if n := runs.Load(); n != 1 || reverts != 1 || len(tx) != 66 {
		t.Fatalf("the upstream ran %d times and %d answers name a reverted transaction, want once and one: %v", n, reverts, mix)
	}
	cooling := " payment reverted on chain in transaction " + strings.ToLower(tx) + " though its simulation passed"
	for _, a := range answers {
		switch {
		case a.status == http.StatusPaymentRequired && strings.Contains(a.error, tx):
		case a.status == http.StatusConflict && a.error == x402.ReasonWalletBusy && a.retry == "2":
		case a.status == http.StatusPaymentRequired && strings.HasSuffix(a.error, cooling):
		default:
			t.Errorf("answer %+v", a)
		}
	}
	// The next payments: refused with the cooling-off before the upstream
	// runs, nothing sent.
	for range 3 {
		if a := send(sign()); a.status != http.StatusPaymentRequired || !strings.HasPrefix(a.error, "Smart-contract wallet: refused until ") || !strings.HasSuffix(a.error, cooling) {
			t.Fatalf("a payment after the revert: %+v", a)
		}
	}
	if n := runs.Load(); n != 1 {
		t.Fatalf("the upstream ran %d times, want once", n)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		latest, err := testutil.ChainClient.NonceAt(context.Background(), signer, nil)
		pending, perr := testutil.ChainClient.PendingNonceAt(context.Background(), signer)
		if err == nil && perr == nil && latest == pending {
			if latest-nonce0 != 1 {
				t.Fatalf("%d transactions broadcast, want 1", latest-nonce0)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the signer's transactions are not all mined: %v %v", err, perr)
		}
		time.Sleep(50 * time.Millisecond)
	}
	m := testutil.Scrape(t)
	net := map[string]string{"network": "cronos-testnet"}
	for name, atLeast := range map[string]float64{"x402_settlements_reverted_total": 1, "x402_settlement_revert_gas_total": 21_000,
		"x402_settlement_revert_fee_wei_total": 1, "x402_smart_wallet_cool_offs_total": 1, "x402_smart_wallet_cooling_off_refusals_total": 3} {
		if v, ok := testutil.Sample(m, name, net); !ok || v < atLeast {
			t.Errorf("%s = %v, %v; want at least %v", name, v, ok, atLeast)
		}
	}
}

// deployLying deploys a LyingWallet owned by owner (who pays its gas) on
// the devnet and mints it tokens.
func deployLying(t *testing.T, owner *ecdsa.PrivateKey, tokens int64) common.Address {
	t.Helper()
	testutil.Balance(t, testutil.SellerAddr) // dials testutil.ChainClient
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	opts, err := bind.NewKeyedTransactorWithChainID(owner, big.NewInt(devnet.ChainID))
	if err != nil {
		t.Fatal(err)
	}
	addr, tx, _, err := token.DeployLyingWallet(opts, testutil.ChainClient, crypto.PubkeyToAddress(owner.PublicKey))
	if err != nil {
		t.Fatal(err)
	}
	if r, err := bind.WaitMined(ctx, testutil.ChainClient, tx); err != nil || r.Status != types.ReceiptStatusSuccessful {
		t.Fatalf("deploying the LyingWallet: %v %+v", err, r)
	}
	mopts, err := bind.NewKeyedTransactorWithChainID(testutil.BuyerKey(t, devnet.MinterPrivateKey), big.NewInt(devnet.ChainID))
	if err != nil {
		t.Fatal(err)
	}
	mtx, err := testutil.ChainToken.Mint(mopts, addr, big.NewInt(tokens))
	if err != nil {
		t.Fatal(err)
	}
	if r, err := bind.WaitMined(ctx, testutil.ChainClient, mtx); err != nil || r.Status != types.ReceiptStatusSuccessful {
		t.Fatalf("minting to the LyingWallet: %v %+v", err, r)
	}
	return addr
}
