package facilitator_test

import (
	"context"
	"crypto/ecdsa"
	"math/big"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/caddy-x402/caddy-x402/facilitator"
	"github.com/caddy-x402/caddy-x402/facilitator/devnet"
	"github.com/caddy-x402/caddy-x402/facilitator/exact"
	"github.com/caddy-x402/caddy-x402/facilitator/network"
	"github.com/caddy-x402/caddy-x402/facilitator/token"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// Smart-contract wallets on the development chain: its EIP-1271
// SmartWallet (buyer1 is the owner) and SmartWalletFactory, with the
// token's FiatToken v2.2 signature check. Each test runs its own chain, so
// its balances are its own.

// walletChain starts a chain and a facilitator on it; factories are the
// facilitator's smart_wallet_factories.
func walletChain(t testing.TB, cfg devnet.Config, factories ...common.Address) (*devnet.Chain, *facilitator.Facilitator) {
	t.Helper()
	if cfg.BlockTime == 0 {
		cfg.BlockTime = 200 * time.Millisecond
	}
	c, err := devnet.Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c, walletFacilitator(t, c, factories...)
}

func walletFacilitator(t testing.TB, c *devnet.Chain, factories ...common.Address) *facilitator.Facilitator {
	t.Helper()
	nc, _ := network.Builtin(network.CronosTestnet)
	nc.RPCURLs = []string{c.RPCURL()}
	nc.SignerKeys = []*ecdsa.PrivateKey{c.Signer().Key}
	for _, a := range factories {
		nc.SmartWalletFactories = append(nc.SmartWalletFactories, a.Hex())
	}
	f, err := facilitator.New(context.Background(), facilitator.Config{Networks: []network.Config{nc}, Logger: testLogger()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// walletPayment is a payment from wallet signed by owner (wrapped for
// ERC-6492 when deploy is set).
func walletPayment(t testing.TB, owner *ecdsa.PrivateKey, wallet common.Address, deploy *exact.WalletDeployment, req x402.PaymentRequirements) *x402.Request {
	t.Helper()
	h, _, err := exact.CreatePayment(owner, req, exact.PaymentOptions{ChainID: big.NewInt(devnet.ChainID), ValidFor: time.Hour, Wallet: &wallet, Deploy: deploy})
	if err != nil {
		t.Fatal(err)
	}
	return &x402.Request{X402Version: 1, PaymentHeader: h, PaymentRequirements: req}
}

func balanceOf(t *testing.T, c *devnet.Chain, a common.Address) *big.Int {
	t.Helper()
	b, err := c.BalanceOf(context.Background(), a)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func wantBalance(t *testing.T, c *devnet.Chain, name string, a common.Address, want *big.Int) {
	t.Helper()
	if got := balanceOf(t, c, a); got.Cmp(want) != 0 {
		t.Fatalf("%s balance %s, want %s", name, got, want)
	}
}

func hasCode(t *testing.T, c *devnet.Chain, a common.Address) bool {
	t.Helper()
	code, err := c.Client().CodeAt(context.Background(), a, nil)
	if err != nil {
		t.Fatal(err)
	}
	return len(code) > 0
}

func verifyIs(t *testing.T, f *facilitator.Facilitator, r *x402.Request, reason string) {
	t.Helper()
	v, err := f.Verify(context.Background(), r)
	if err != nil {
		t.Fatalf("verify: %v", err)
	}
	got := ""
	if v.InvalidReason != nil {
		got = *v.InvalidReason
	}
	if v.IsValid != (reason == "") || got != reason {
		t.Fatalf("verify = valid %v %q, want %q", v.IsValid, got, reason)
	}
}

func settleIs(t *testing.T, f *facilitator.Facilitator, r *x402.Request, event, errText string) *x402.SettleResponse {
	t.Helper()
	s, err := f.Settle(context.Background(), r)
	if err != nil {
		t.Fatalf("settle: %v", err)
	}
	if s.Event != event || s.Error != errText {
		t.Fatalf("settle = %s %q (tx %s), want %s %q", s.Event, s.Error, s.TxHash, event, errText)
	}
	return s
}

// TestSmartWalletPays: a deployed EIP-1271 wallet pays; the money leaves
// the wallet (not its owner); a signature by another key than the owner's
// is refused at verify and at settle, and moves nothing.
func TestSmartWalletPays(t *testing.T) {
	t.Parallel()
	c, f := walletChain(t, devnet.Config{})
	w := c.SmartWallet()
	owner, stranger := c.Buyers()[0], c.Buyers()[1]
	seller := newSeller(t)
	req := requirements(seller, "1250000")

	wrong := walletPayment(t, stranger.Key, w.Address, nil, req)
	verifyIs(t, f, wrong, x402.ReasonInvalidSignature)
	settleIs(t, f, wrong, x402.EventFailed, x402.ErrTextInvalidSignature)
	wantBalance(t, c, "wallet", w.Address, devnet.BuyerTokens)

	r := walletPayment(t, owner.Key, w.Address, nil, req)
	verifyIs(t, f, r, "")
	s := settleIs(t, f, r, x402.EventSettled, "")
	if s.From != w.Address.Hex() || s.To != seller.Hex() || s.Value != "1250000" {
		t.Fatalf("settled from %s to %s value %s", s.From, s.To, s.Value)
	}
	logGas(t, c, "EIP-1271 settle (bytes overload, payee without balance)", s.TxHash)
	wantBalance(t, c, "wallet", w.Address, new(big.Int).Sub(devnet.BuyerTokens, big.NewInt(1250000)))
	wantBalance(t, c, "seller", seller, big.NewInt(1250000))
	wantBalance(t, c, "owner", owner.Address, devnet.BuyerTokens)
	// The same authorization again: used.
	verifyIs(t, f, r, x402.ErrTextAlreadyUsed)
	settleIs(t, f, r, x402.EventFailed, x402.ErrTextAlreadyUsed)
	if st := exact.WalletStats(f)[0]; st.Payments != 1 || st.Deployments != 0 {
		t.Fatalf("stats %+v", st)
	}
	// An EOA that signs with another key is still an invalid signature
	// (its address has no code), now found on chain.
	eoa := walletPayment(t, stranger.Key, owner.Address, nil, req)
	verifyIs(t, f, eoa, x402.ReasonInvalidSignature)
	// For comparison: an EOA's payment to a payee without balance.
	s = settleIs(t, f, walletPayment(t, owner.Key, owner.Address, nil, requirements(newSeller(t), "1250000")), x402.EventSettled, "")
	logGas(t, c, "EOA settle (v, r, s overload, payee without balance)", s.TxHash)
}

// logGas logs the gas a settlement's transaction used.
func logGas(t *testing.T, c *devnet.Chain, what, tx string) {
	t.Helper()
	r, err := c.Client().TransactionReceipt(context.Background(), common.HexToHash(tx))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: %d gas", what, r.GasUsed)
}

// TestERC6492: a wallet that is not deployed yet pays with an ERC-6492
// signature when its factory is listed: the facilitator deploys it and
// settles in one transaction. With the default (empty) list, or below the
// floor, the payment is refused and nothing is deployed.
func TestERC6492(t *testing.T) {
	t.Parallel()
	c, refuser := walletChain(t, devnet.Config{})
	w := c.UndeployedWallet()
	owner := c.Buyers()[0]
	deploy := &exact.WalletDeployment{Factory: w.Factory, Calldata: token.CreateAccountCalldata(owner.Address, big.NewInt(w.Salt))}
	seller := newSeller(t)
	req := requirements(seller, "2000000")
	r := walletPayment(t, owner.Key, w.Address, deploy, req)

	// The default: no factory listed.
	notAllowed := x402.ReasonFactoryNotAllowed(w.Factory.Hex(), "cronos-testnet")
	verifyIs(t, refuser, r, notAllowed)
	settleIs(t, refuser, r, x402.EventFailed, notAllowed)
	if hasCode(t, c, w.Address) {
		t.Fatal("the wallet was deployed")
	}
	refuser.Close()

	f := walletFacilitator(t, c, w.Factory)
	// Below the floor (0.01 token = 10000 units): refused.
	low := walletPayment(t, owner.Key, w.Address, deploy, requirements(seller, "9999"))
	floor := x402.ReasonBelowDeploymentFloor("10000", "cronos-testnet")
	verifyIs(t, f, low, floor)
	settleIs(t, f, low, x402.EventFailed, floor)
	// A wrong owner inside the wrapper: refused.
	wrong := walletPayment(t, c.Buyers()[1].Key, w.Address, deploy, req)
	verifyIs(t, f, wrong, x402.ReasonInvalidSignature)
	settleIs(t, f, wrong, x402.EventFailed, x402.ErrTextInvalidSignature)
	if hasCode(t, c, w.Address) {
		t.Fatal("the wallet was deployed by a refused payment")
	}

	verifyIs(t, f, r, "")
	s := settleIs(t, f, r, x402.EventSettled, "")
	if s.From != w.Address.Hex() || s.Value != "2000000" {
		t.Fatalf("settled from %s value %s", s.From, s.Value)
	}
	if !hasCode(t, c, w.Address) {
		t.Fatal("the wallet is not deployed")
	}
	logGas(t, c, "ERC-6492 settle (deployment and transfer in one transaction, payee without balance)", s.TxHash)
	wantBalance(t, c, "wallet", w.Address, new(big.Int).Sub(devnet.BuyerTokens, big.NewInt(2000000)))
	wantBalance(t, c, "seller", seller, big.NewInt(2000000))
	waitStats(t, f, func(st exact.SmartWalletStats) bool {
		return st.Deployments == 1 && st.DeploymentGas > 0 && st.DeploymentFeeWei.Sign() > 0
	})
	t.Logf("ERC-6492 deployment and transfer: %+v", exact.WalletStats(f)[0])

	// The wallet exists now: a wrapped signature is checked with the
	// wallet, without deploying, and below the floor too.
	again := walletPayment(t, owner.Key, w.Address, deploy, requirements(seller, "1"))
	verifyIs(t, f, again, "")
	settleIs(t, f, again, x402.EventSettled, "")
	wantBalance(t, c, "seller", seller, big.NewInt(2000001))
}

func waitStats(t *testing.T, f *facilitator.Facilitator, ok func(exact.SmartWalletStats) bool) {
	t.Helper()
	for i := 0; !ok(exact.WalletStats(f)[0]); i++ {
		if i == 600 {
			t.Fatalf("stats %+v", exact.WalletStats(f)[0])
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestSmartWalletTokenWithoutOverload: on a token without the bytes
// overload (FiatToken v2.0/2.1), the start-up probe finds it missing and
// smart-wallet payments are refused with the reason; EOAs pay as ever.
func TestSmartWalletTokenWithoutOverload(t *testing.T) {
	t.Parallel()
	c, f := walletChain(t, devnet.Config{TokenWithoutBytesOverload: true}, devnet.FactoryAddress)
	seller := newSeller(t)
	req := requirements(seller, "1000")
	owner := c.Buyers()[0]
	reason := x402.ReasonSmartWalletUnsupported("cronos-testnet")
	r := walletPayment(t, owner.Key, c.SmartWallet().Address, nil, req)
	verifyIs(t, f, r, reason)
	settleIs(t, f, r, x402.EventFailed, reason)
	w := c.UndeployedWallet()
	deploy := &exact.WalletDeployment{Factory: w.Factory, Calldata: token.CreateAccountCalldata(owner.Address, big.NewInt(w.Salt))}
	verifyIs(t, f, walletPayment(t, owner.Key, w.Address, deploy, requirements(seller, "1000000")), reason)
	wantBalance(t, c, "wallet", c.SmartWallet().Address, devnet.BuyerTokens)

	eoa := walletPayment(t, owner.Key, owner.Address, nil, req)
	verifyIs(t, f, eoa, "")
	settleIs(t, f, eoa, x402.EventSettled, "")
	wantBalance(t, c, "seller", seller, big.NewInt(1000))
}

// TestSmartWalletConcurrent: 50 smart-wallet payments at once, 40 from the
// deployed wallet and 10 ERC-6492 payments from one wallet not deployed
// yet, each settled twice at the same moment, and again while refused as
// busy (a wallet settles one payment at a time): each authorization is
// settled exactly once, the other settle is refused as used, and the
// balances move by exactly the 50 payments.
func TestSmartWalletConcurrent(t *testing.T) {
	t.Parallel()
	c, f := walletChain(t, devnet.Config{}, devnet.FactoryAddress)
	owner := c.Buyers()[0]
	// A third wallet of buyer1 (salt 7), funded but not deployed.
	salt := big.NewInt(7)
	undeployed := token.WalletAddress(devnet.FactoryAddress, owner.Address, salt)
	if err := c.Mint(context.Background(), undeployed, devnet.BuyerTokens); err != nil {
		t.Fatal(err)
	}
	deploy := &exact.WalletDeployment{Factory: devnet.FactoryAddress, Calldata: token.CreateAccountCalldata(owner.Address, salt)}
	seller := newSeller(t)
	req := requirements(seller, "30000")
	var reqs []*x402.Request
	for i := range 50 {
		if i%5 == 4 {
			reqs = append(reqs, walletPayment(t, owner.Key, undeployed, deploy, req))
		} else {
			reqs = append(reqs, walletPayment(t, owner.Key, c.SmartWallet().Address, nil, req))
		}
	}
	type answer struct {
		i   int
		res *x402.SettleResponse
		err error
	}
	answers := make(chan answer, 2*len(reqs))
	var wg sync.WaitGroup
	for i, r := range reqs {
		for range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					res, err := f.Settle(context.Background(), r)
					if err == nil && res.Error == x402.ReasonWalletBusy {
						time.Sleep(20 * time.Millisecond)
						continue
					}
					answers <- answer{i, res, err}
					return
				}
			}()
		}
	}
	wg.Wait()
	close(answers)
	settled := make([]int, len(reqs))
	for a := range answers {
		switch {
		case a.err != nil:
			t.Errorf("payment %d: %v", a.i, a.err)
		case a.res.Event == x402.EventSettled:
			settled[a.i]++
		case a.res.Error != x402.ErrTextAlreadyUsed:
			t.Errorf("payment %d: %s %q", a.i, a.res.Event, a.res.Error)
		}
	}
	for i, n := range settled {
		if n != 1 {
			t.Errorf("payment %d settled %d times", i, n)
		}
	}
	wantBalance(t, c, "seller", seller, big.NewInt(50*30000))
	wantBalance(t, c, "deployed wallet", c.SmartWallet().Address, new(big.Int).Sub(devnet.BuyerTokens, big.NewInt(40*30000)))
	wantBalance(t, c, "undeployed wallet", undeployed, new(big.Int).Sub(devnet.BuyerTokens, big.NewInt(10*30000)))
	// One of the ten deployed the wallet; the others found it deployed.
	waitStats(t, f, func(st exact.SmartWalletStats) bool { return st.Payments+st.Deployments == 50 })
	if st := exact.WalletStats(f)[0]; st.Deployments != 1 {
		t.Fatalf("stats %+v, want 1 deployment", st)
	}
}

// BenchmarkVerifySmartWallet measures verify with its on-chain checks (one
// batched round trip to the devnet) for an EOA, a deployed EIP-1271 wallet
// and an ERC-6492 signature of a wallet not deployed yet.
func BenchmarkVerifySmartWallet(b *testing.B) {
	c, f := walletChain(b, devnet.Config{}, devnet.FactoryAddress)
	owner := c.Buyers()[0]
	w := c.UndeployedWallet()
	deploy := &exact.WalletDeployment{Factory: w.Factory, Calldata: token.CreateAccountCalldata(owner.Address, big.NewInt(w.Salt))}
	req := requirements(common.HexToAddress("0x2222222222222222222222222222222222222222"), "20000")
	for _, bc := range []struct {
		name string
		r    *x402.Request
	}{
		{"eoa", walletPayment(b, owner.Key, owner.Address, nil, req)},
		{"eip1271", walletPayment(b, owner.Key, c.SmartWallet().Address, nil, req)},
		{"erc6492", walletPayment(b, owner.Key, w.Address, deploy, req)},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				v, err := f.Verify(context.Background(), bc.r)
				if err != nil || !v.IsValid {
					b.Fatalf("verify = %+v, %v", v, err)
				}
			}
		})
	}
}
