package paywall

import (
	"fmt"
	"github.com/caddy-x402/caddy-x402/caddymodule/access"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/caddy-x402/caddy-x402/caddymodule/internal/httpx"
	"github.com/caddy-x402/caddy-x402/caddymodule/internal/testutil"
	"github.com/caddy-x402/caddy-x402/caddymodule/x402cmd"
	"github.com/caddy-x402/caddy-x402/facilitator/devnet"
	"github.com/caddy-x402/caddy-x402/facilitator/evm"
	"github.com/caddy-x402/caddy-x402/facilitator/token"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// TestAccessSmartWallet: a contract wallet (the devnet's EIP-1271 wallet
// of buyer1) that paid holds the grant under its own address and signs in
// as itself. "caddy x402 pay --smart-wallet" pays from it, then signs in
// and is served with no transfer. The wallet is asked on chain (one
// eth_call, counted at the network's RPC) only after everything else
// held: never for a key's own signature, a wallet without a grant or a
// replayed sign-in. Another key's signature for the wallet is refused with
// the wallet's answer as the reason; an ERC-6492 signature is checked too.
func TestAccessSmartWallet(t *testing.T) {
	up := testutil.EchoUpstream(t)
	rpc := testutil.NewRPCCounter(t, testutil.DevnetURL)
	t.Setenv("X402_TEST_SIGNER_KEY", devnet.SignerPrivateKey)
	tester := testutil.NewTester(t, testutil.GlobalBlock(testutil.NetworkBlock("walletnet", devnet.ChainID, rpc.URL, "X402_TEST_SIGNER_KEY"))+fmt.Sprintf(`
:%d {
	x402 /sw/* {
		pay_to %[2]s
		amount 23
		network walletnet
		access 1h
	}
	reverse_proxy %[3]s
}
`, testutil.SitePort, accessSeller, up.Listener.Addr()))
	owner := testutil.BuyerKey(t, devnet.Buyer1PrivateKey)
	ownerAddr := crypto.PubkeyToAddress(owner.PublicKey)
	wallet := token.WalletAddress(devnet.FactoryAddress, ownerAddr, big.NewInt(devnet.DeployedWalletSalt)).Hex()
	stranger := testutil.BuyerKey(t, devnet.Buyer2PrivateKey)
	calls := func() int { return rpc.Count("eth_call") }

	// Pay from the wallet: its sign-in is refused first (no grant, and
	// the chain is not asked), then it pays.
	o := x402cmd.PayOptions{Key: devnet.Buyer1PrivateKey, SmartWallet: "devnet", MaxAmount: "100", Timeout: 30 * time.Second}
	walletBefore, ownerBefore, sellerBefore := testutil.Balance(t, wallet), testutil.Balance(t, ownerAddr.Hex()), testutil.Balance(t, accessSeller)
	var stdout, stderr strings.Builder
	if err := x402cmd.RunPay(t.Context(), testutil.SiteURL+"/sw/a", o, &stdout, &stderr); err != nil {
		t.Fatalf("paying from the wallet: %v\n%s", err, stderr.String())
	}
	want := "x402: no access grant for " + wallet + " on this route yet (Sign-In-With-X: No access grant for " + wallet + " on this route: pay for access); paying\n"
	if !strings.HasPrefix(stderr.String(), want) {
		t.Fatalf("first run's stderr:\n%s\nwant it to start with\n%s", stderr.String(), want)
	}
	if saw := upstreamSaw(t, []byte(stdout.String())); saw[httpx.HeaderTxHash] == "" || saw[httpx.HeaderFrom] != wallet {
		t.Fatalf("first run: upstream saw %v, want a payment from %s", saw, wallet)
	}
	testutil.AssertDelta(t, "wallet", walletBefore, testutil.Balance(t, wallet), -23)
	testutil.AssertDelta(t, "seller", sellerBefore, testutil.Balance(t, accessSeller), 23)

	// Sign in as the wallet: served by its grant, one eth_call, no
	// transfer.
	stdout.Reset()
	stderr.Reset()
	before := calls()
	if err := x402cmd.RunPay(t.Context(), testutil.SiteURL+"/sw/b", o, &stdout, &stderr); err != nil {
		t.Fatalf("signing in as the wallet: %v\n%s", err, stderr.String())
	}
	saw := upstreamSaw(t, []byte(stdout.String()))
	want = "x402: signed in as " + wallet + " with Sign-In-With-X (access until " + saw[httpx.HeaderAccessUntil] + "): served without a new payment\n"
	if stderr.String() != want || saw[httpx.HeaderAccessVia] != access.ViaSIWx || saw[httpx.HeaderFrom] != wallet || saw[httpx.HeaderTxHash] != "" {
		t.Fatalf("signing in as the wallet: stderr %q\nwant %q\nupstream saw %v", stderr.String(), want, saw)
	}
	if n := calls() - before; n != 1 {
		t.Errorf("the wallet's sign-in made %d eth_calls, want 1", n)
	}
	testutil.AssertDelta(t, "wallet", walletBefore, testutil.Balance(t, wallet), -23)
	testutil.AssertDelta(t, "owner", ownerBefore, testutil.Balance(t, ownerAddr.Hex()), 0)
	testutil.AssertDelta(t, "seller", sellerBefore, testutil.Balance(t, accessSeller), 23)

	// Another key signs for the wallet: the wallet refuses, and says so.
	c := challengeOf(t, testutil.SiteURL+"/sw/c")
	_, wrong, err := x402.SignSIWxAs(c.decl.Info, c.decl.SupportedChains[0], stranger, common.HexToAddress(wallet), nil)
	if err != nil {
		t.Fatal(err)
	}
	before = calls()
	resp, b := accessGet(t, testutil.SiteURL+"/sw/c", map[string]string{x402.HeaderSignInWithX: wrong})
	reason := "Signature verification failed: the contract wallet " + wallet + " on eip155:338 does not accept it (EIP-1271 isValidSignature)"
	if want := c.refusal(reason); resp.StatusCode != 402 || string(b) != want {
		t.Fatalf("a stranger's signature for the wallet: %d %s\nwant 402 %s", resp.StatusCode, b, want)
	}
	if n := calls() - before; n != 1 {
		t.Errorf("the refused sign-in made %d eth_calls, want 1", n)
	}

	// The owner's signature, sent twice: served, then a replay refused
	// without asking the chain.
	c = challengeOf(t, testutil.SiteURL+"/sw/d")
	_, good, _ := x402.SignSIWxAs(c.decl.Info, c.decl.SupportedChains[0], owner, common.HexToAddress(wallet), nil)
	if resp, b = accessGet(t, testutil.SiteURL+"/sw/d", map[string]string{x402.HeaderSignInWithX: good}); resp.StatusCode != 200 || upstreamSaw(t, b)[httpx.HeaderFrom] != wallet {
		t.Fatalf("the owner's signature for the wallet: %d %s", resp.StatusCode, b)
	}
	before = calls()
	if resp, b = accessGet(t, testutil.SiteURL+"/sw/d", map[string]string{x402.HeaderSignInWithX: good}); resp.StatusCode != 402 || string(b) != c.refusal(access.TextSIWxNonceReplayed) {
		t.Fatalf("the same sign-in again: %d %s", resp.StatusCode, b)
	}
	// A contract wallet without a grant (buyer2's): refused before the
	// chain is asked.
	other := token.WalletAddress(devnet.FactoryAddress, crypto.PubkeyToAddress(stranger.PublicKey), big.NewInt(devnet.DeployedWalletSalt)).Hex()
	c = challengeOf(t, testutil.SiteURL+"/sw/e")
	_, h, _ := x402.SignSIWxAs(c.decl.Info, c.decl.SupportedChains[0], stranger, common.HexToAddress(other), nil)
	if resp, b = accessGet(t, testutil.SiteURL+"/sw/e", map[string]string{x402.HeaderSignInWithX: h}); resp.StatusCode != 402 ||
		string(b) != c.refusal("No access grant for "+other+" on this route: pay for access") {
		t.Fatalf("a wallet without a grant: %d %s", resp.StatusCode, b)
	}
	if n := calls() - before; n != 0 {
		t.Errorf("a replay and a wallet without a grant made %d eth_calls, want 0", n)
	}

	// An ERC-6492 signature (the wallet's, wrapped with its deployment):
	// checked by the validator in one eth_call, served.
	c = challengeOf(t, testutil.SiteURL+"/sw/f")
	deploy := token.CreateAccountCalldata(ownerAddr, big.NewInt(devnet.DeployedWalletSalt))
	_, h, _ = x402.SignSIWxAs(c.decl.Info, c.decl.SupportedChains[0], owner, common.HexToAddress(wallet),
		func(sig []byte) []byte { return evm.WrapERC6492(devnet.FactoryAddress, deploy, sig) })
	before = calls()
	if resp, b = accessGet(t, testutil.SiteURL+"/sw/f", map[string]string{x402.HeaderSignInWithX: h}); resp.StatusCode != 200 || upstreamSaw(t, b)[httpx.HeaderFrom] != wallet {
		t.Fatalf("an ERC-6492 sign-in: %d %s", resp.StatusCode, b)
	}
	if n := calls() - before; n != 1 {
		t.Errorf("the ERC-6492 sign-in made %d eth_calls, want 1", n)
	}

	// A key's own sign-in never asks the chain: buyer2 pays from its key
	// and signs in.
	if resp, b = payV2At(t, tester, testutil.SiteURL+"/sw/g", stranger); resp.StatusCode != 200 {
		t.Fatalf("buyer2 pays: %d %s", resp.StatusCode, b)
	}
	c = challengeOf(t, testutil.SiteURL+"/sw/h")
	before = calls()
	if resp, b = accessGet(t, testutil.SiteURL+"/sw/h", map[string]string{x402.HeaderSignInWithX: signIn(t, c, stranger, nil)}); resp.StatusCode != 200 {
		t.Fatalf("buyer2 signs in: %d %s", resp.StatusCode, b)
	}
	if n := calls() - before; n != 0 {
		t.Errorf("a key's own sign-in made %d eth_calls, want 0", n)
	}
	testutil.AssertDelta(t, "wallet", walletBefore, testutil.Balance(t, wallet), -23)
}
