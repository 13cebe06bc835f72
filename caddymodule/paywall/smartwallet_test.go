package paywall

import (
	"bytes"
	"context"
	"fmt"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/caddy-x402/caddy-x402/caddymodule/internal/testutil"
	"github.com/caddy-x402/caddy-x402/caddymodule/x402cmd"
	"github.com/caddy-x402/caddy-x402/facilitator/devnet"
	"github.com/caddy-x402/caddy-x402/facilitator/token"
)

// TestPaySmartWallet: "caddy x402 pay --smart-wallet" pays a real paywall
// from the devnet's EIP-1271 wallet of buyer1, and
// "--smart-wallet-undeployed" from its undeployed wallet with an ERC-6492
// signature, which the embedded facilitator deploys because the network
// lists the devnet factory. The money leaves the wallets, not buyer1.
func TestPaySmartWallet(t *testing.T) {
	testutil.NewTester(t, testutil.GlobalBlock(fmt.Sprintf(`network cronos-testnet {
			smart_wallet_factories %s
		}`, devnet.FactoryAddress.Hex()))+fmt.Sprintf(`
:%d {
	x402 /wallet {
		pay_to %s
		price 0.02
	}
	respond /wallet "wallet content"
}
`, testutil.SitePort, testutil.Seller2Addr))
	owner := crypto.PubkeyToAddress(testutil.BuyerKey(t, devnet.Buyer1PrivateKey).PublicKey)
	deployed := token.WalletAddress(devnet.FactoryAddress, owner, big.NewInt(devnet.DeployedWalletSalt)).Hex()
	undeployed := token.WalletAddress(devnet.FactoryAddress, owner, big.NewInt(devnet.UndeployedWalletSalt)).Hex()

	for _, tc := range []struct {
		name   string
		o      x402cmd.PayOptions
		wallet string
	}{
		{"EIP-1271 v1", x402cmd.PayOptions{SmartWallet: "devnet", Protocol: "v1"}, deployed},
		{"EIP-1271 v2", x402cmd.PayOptions{SmartWallet: deployed}, deployed},
		{"ERC-6492", x402cmd.PayOptions{Undeployed: "1"}, undeployed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			walletBefore, ownerBefore, sellerBefore := testutil.Balance(t, tc.wallet), testutil.Balance(t, owner.Hex()), testutil.Balance(t, testutil.Seller2Addr)
			o := tc.o
			o.Key, o.Method, o.Timeout = devnet.Buyer1PrivateKey, "GET", 30*time.Second
			var stdout, stderr bytes.Buffer
			if err := x402cmd.RunPay(context.Background(), testutil.SiteURL+"/wallet", o, &stdout, &stderr); err != nil {
				t.Fatalf("x402cmd.RunPay: %v\nstderr: %s", err, stderr.String())
			}
			if stdout.String() != "wallet content" {
				t.Fatalf("stdout %q", stdout.String())
			}
			if !strings.Contains(stderr.String(), "from "+tc.wallet) {
				t.Errorf("stderr does not name the wallet %s as payer: %s", tc.wallet, stderr.String())
			}
			testutil.AssertDelta(t, "wallet", walletBefore, testutil.Balance(t, tc.wallet), -20000)
			testutil.AssertDelta(t, "seller", sellerBefore, testutil.Balance(t, testutil.Seller2Addr), 20000)
			testutil.AssertDelta(t, "owner", ownerBefore, testutil.Balance(t, owner.Hex()), 0)
		})
	}
	code, err := testutil.ChainClient.CodeAt(context.Background(), crypto.PubkeyToAddress(testutil.BuyerKey(t, devnet.Buyer1PrivateKey).PublicKey), nil)
	if err != nil || len(code) != 0 {
		t.Fatalf("owner has code %x, %v", code, err)
	}
	code, err = testutil.ChainClient.CodeAt(context.Background(), token.WalletAddress(devnet.FactoryAddress, owner, big.NewInt(devnet.UndeployedWalletSalt)), nil)
	if err != nil || string(code) != string(token.WalletRuntimeCode()) {
		t.Fatalf("the undeployed wallet has %d bytes of code after paying, %v", len(code), err)
	}
}

// TestPaySmartWalletFlags: the flags are checked before anything is sent.
func TestPaySmartWalletFlags(t *testing.T) {
	for _, tc := range []struct {
		o    x402cmd.PayOptions
		want string
	}{
		{x402cmd.PayOptions{SmartWallet: "devnet", Undeployed: "1"}, "give --smart-wallet or --smart-wallet-undeployed, not both"},
		{x402cmd.PayOptions{SmartWallet: "0x12"}, `--smart-wallet "0x12" is not an address (0x and 40 hex digits) or devnet`},
		{x402cmd.PayOptions{Undeployed: "-1"}, `--smart-wallet-undeployed "-1" is not a salt (a whole number)`},
	} {
		tc.o.Key = devnet.Buyer1PrivateKey
		var stdout, stderr bytes.Buffer
		if err := x402cmd.RunPay(context.Background(), "http://127.0.0.1:1/", tc.o, &stdout, &stderr); err == nil || err.Error() != tc.want {
			t.Errorf("%+v: %v, want %q", tc.o, err, tc.want)
		}
	}
}
