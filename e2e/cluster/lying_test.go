package cluster

import (
	"context"
	"math/big"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi/bind"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/caddy-x402/caddy-x402/facilitator/devnet"
	"github.com/caddy-x402/caddy-x402/facilitator/exact"
	"github.com/caddy-x402/caddy-x402/facilitator/token"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// TestLyingWallet (issue 23, item 3): a lying smart-contract wallet is
// deployed on the devnet (token.LyingWallet: it accepts its owner's
// signature only when tx.gasprice is 0, so every simulation passes and
// every mined transfer reverts). Forty payments from it at once, spread
// over the three instances, on a route that settles after its upstream:
// at most two transactions are broadcast and the upstream runs at most
// twice (without the bound: forty of each); one 402 names the reverted
// transaction, the payments that came while it was in flight get 409
// with Retry-After. The next payments, at every instance, are refused
// with the cooling-off before anything is sent or the upstream runs; the
// wallet's balance never moves.
func TestLyingWallet(t *testing.T) {
	c := newCluster(t, options{})
	const path, n = "/after/lying", 40
	owner := c.chain.Buyers()[5]
	wallet := deployLyingWallet(t, c.chain, owner, 100*price)
	reqs := c.requirements(c.nodes[0], path)
	sign := func() *payment {
		h, p, err := exact.CreatePayment(owner.Key, reqs, exact.PaymentOptions{ValidFor: time.Hour, Wallet: &wallet})
		if err != nil {
			t.Fatal(err)
		}
		return &payment{path: path, header: h, buyer: wallet, nonce: p.Authorization.Nonce}
	}
	nonce0 := c.waitIdle(time.Minute)
	ps := make([]*payment, n)
	for i := range ps {
		ps[i] = sign()
	}
	answers := burst(ps, func(i int) *instance { return c.nodes[i%len(c.nodes)] }, 0)
	nonce1 := c.waitIdle(time.Minute)
	mix := counts(answers)
	t.Logf("%d payments from a lying wallet over %d instances: %d broadcast, the upstream ran %d times;%s",
		n, len(c.nodes), nonce1-nonce0, c.up.runs(path), fmtCounts(mix))
	if sent := nonce1 - nonce0; sent > 2 {
		t.Errorf("%d transactions broadcast for %d payments from a lying wallet, want at most 2", sent, n)
	}
	if runs := c.up.runs(path); runs > 2 {
		t.Errorf("the upstream ran %d times for %d payments from a lying wallet, want at most 2", runs, n)
	}
	var txs []string
	for _, a := range answers {
		e := a.json().Error
		switch {
		case a.status == http.StatusPaymentRequired && strings.HasPrefix(e, x402.ErrTextFailedOnChain+": transaction 0x"):
			tx, _ := strings.CutPrefix(e, x402.ErrTextFailedOnChain+": transaction ")
			tx, _ = strings.CutSuffix(tx, " did not transfer the payment, so nothing was charged")
			txs = append(txs, strings.ToLower(tx))
		case a.status == http.StatusConflict && e == x402.ReasonWalletBusy && a.header.Get("Retry-After") == "2":
		case a.status == http.StatusPaymentRequired && strings.HasPrefix(e, "Smart-contract wallet: refused until "):
		default:
			t.Errorf("unexpected answer %v", a)
		}
	}
	if len(txs) == 0 || len(txs) > 2 {
		t.Fatalf("%d answers name a reverted transaction, want 1 or 2: %v", len(txs), mix)
	}
	runs := c.up.runs(path)

	// The next payments, at every instance: the cooling-off, naming the
	// (last) reverted transaction; nothing sent, the upstream not run.
	for i, in := range append(c.nodes, c.nodes...) {
		a := in.pay(sign(), 0)
		e := a.json().Error
		if a.status != http.StatusPaymentRequired || !strings.HasPrefix(e, "Smart-contract wallet: refused until ") ||
			!strings.Contains(e, "this wallet's payment reverted on chain in transaction 0x") || !strings.Contains(e, txs[len(txs)-1]) && !strings.Contains(e, txs[0]) {
			t.Fatalf("payment %d after the revert, at %s: %v", i, in.name, a)
		}
	}
	if nonce2 := c.waitIdle(time.Minute); nonce2 != nonce1 {
		t.Errorf("%d transactions broadcast for the payments after the revert, want none", nonce2-nonce1)
	}
	if got := c.up.runs(path); got != runs {
		t.Errorf("the upstream ran %d more times for the payments after the revert, want none", got-runs)
	}
	if b := c.balance(wallet); b.Cmp(big.NewInt(100*price)) != 0 {
		t.Errorf("the lying wallet's balance is %s, want %d (it never pays)", b, 100*price)
	}
}

// deployLyingWallet deploys a LyingWallet owned by owner (who pays its
// gas) on the devnet and mints it tokens.
func deployLyingWallet(t *testing.T, chain *devnet.Chain, owner devnet.Account, tokens int64) common.Address {
	t.Helper()
	ctx, cancel := context.WithTimeout(bg, time.Minute)
	defer cancel()
	opts, err := bind.NewKeyedTransactorWithChainID(owner.Key, chain.ChainID())
	if err != nil {
		t.Fatal(err)
	}
	addr, tx, _, err := token.DeployLyingWallet(opts, chain.Client(), owner.Address)
	if err != nil {
		t.Fatal(err)
	}
	chain.Mine()
	if r, err := bind.WaitMined(ctx, chain.Client(), tx); err != nil || r.Status != types.ReceiptStatusSuccessful {
		t.Fatalf("deploying the LyingWallet: %v %+v", err, r)
	}
	if err := chain.Mint(ctx, addr, big.NewInt(tokens)); err != nil {
		t.Fatal(err)
	}
	return addr
}
