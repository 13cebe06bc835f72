package testutil

import (
	"context"
	"crypto/ecdsa"
	"math/big"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi/bind"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/caddy-x402/caddy-x402/facilitator/devnet"
	"github.com/caddy-x402/caddy-x402/facilitator/evm"
	"github.com/caddy-x402/caddy-x402/facilitator/exact"
	"github.com/caddy-x402/caddy-x402/facilitator/token"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// BuyerKey parses a hex private key.
func BuyerKey(t testing.TB, hexKey string) *ecdsa.PrivateKey {
	t.Helper()
	k, err := evm.ParseKey(hexKey)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

var (
	chainOnce sync.Once
	// ChainClient is a client of the devnet's RPC, and ChainToken its
	// token, both dialled by the first Balance.
	ChainClient *ethclient.Client
	ChainToken  *token.EIP3009Token
)

// Balance reads a token balance from the devnet over its RPC URL.
func Balance(t testing.TB, addr string) *big.Int {
	t.Helper()
	chainOnce.Do(func() {
		c, err := ethclient.Dial(DevnetURL)
		if err != nil {
			t.Fatal(err)
		}
		ChainClient = c
		if ChainToken, err = token.NewEIP3009Token(devnet.TokenAddress, c); err != nil {
			t.Fatal(err)
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	b, err := ChainToken.BalanceOf(&bind.CallOpts{Context: ctx}, common.HexToAddress(addr))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// AssertDelta checks that who's balance changed by want from before to after.
func AssertDelta(t *testing.T, who string, before, after *big.Int, want int64) {
	t.Helper()
	if got := new(big.Int).Sub(after, before); got.Cmp(big.NewInt(want)) != 0 {
		t.Errorf("%s's balance changed by %s, want %d", who, got, want)
	}
}

// Pay signs what reqs ask for with key.
func Pay(t *testing.T, key *ecdsa.PrivateKey, reqs x402.PaymentRequirements) string {
	t.Helper()
	header, _, err := exact.CreatePayment(key, reqs, exact.PaymentOptions{ChainID: big.NewInt(devnet.ChainID)})
	if err != nil {
		t.Fatal(err)
	}
	return header
}
