package facilitator_test

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/caddy-x402/caddy-x402/facilitator"
	"github.com/caddy-x402/caddy-x402/facilitator/devnet"
	"github.com/caddy-x402/caddy-x402/facilitator/exact"
	"github.com/caddy-x402/caddy-x402/facilitator/internal/rpcproxy"
	"github.com/caddy-x402/caddy-x402/facilitator/network"
	"github.com/caddy-x402/caddy-x402/facilitator/store"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// TestLookupByAuthorizationBeyond10000Blocks settles a payment on a chain
// of its own and then seals 10,500 blocks over it (3 hours of chain time:
// the devnet's timestamps step a second a block), more than the 10,000
// one eth_getLogs reads. A facilitator whose journal does not hold the
// settlement still finds it by authorization, from the chain, within the
// journal retention: settled, with its transaction, in two chunks of logs;
// OwnSettlementByAuthorization answers it for the facilitator whose signer
// sent it and ErrSettledElsewhere for another one. With a retention of one
// hour, shorter than the settlement's age, the scan stops after the first
// chunk, whose first block is older than the window: an error, never "not
// found" (the authorization is used).
func TestLookupByAuthorizationBeyond10000Blocks(t *testing.T) {
	if testing.Short() {
		t.Skip("seals 10,500 blocks")
	}
	c, err := devnet.Start(devnet.Config{BlockTime: 200 * time.Millisecond, Buyers: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	proxy, err := rpcproxy.New(c.RPCURL())
	if err != nil {
		t.Fatal(err)
	}
	defer proxy.Close()
	start := func(key *ecdsa.PrivateKey, retention time.Duration) *facilitator.Facilitator {
		t.Helper()
		nc := testnetConfig()
		nc.RPCURLs = []string{proxy.URL()}
		nc.SignerKeys = []*ecdsa.PrivateKey{key}
		f, err := facilitator.New(context.Background(), facilitator.Config{
			Networks: []network.Config{nc}, Logger: testLogger(), JournalRetention: retention,
		})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f
	}

	seller := newSeller(t)
	req := requirements(seller, "10")
	h, p := pay(t, c.Buyers()[0], req, exact.PaymentOptions{})
	settler := start(c.Signer().Key, 0)
	s, err := settler.Settle(context.Background(), &x402.Request{X402Version: 1, PaymentHeader: h, PaymentRequirements: req})
	if err != nil || !s.Settled() {
		t.Fatalf("settle = %+v, %v", s, err)
	}
	c.PauseMining()
	const deep = 10_500
	began := time.Now()
	for range deep {
		c.Mine()
	}
	t.Logf("sealed %d blocks in %v; the settlement is in block %d", deep, time.Since(began).Round(time.Millisecond), *s.BlockNumber)

	// Fresh journals: the settlement is known only to the chain.
	fresh := start(c.Signer().Key, 0)
	logsBefore := proxy.Calls("eth_getLogs")
	began = time.Now()
	got, err := fresh.SettlementByAuthorization("cronos-testnet", p.Authorization.From.Hex(), hexNonce(p))
	if err != nil || !got.Settled() || got.TxHash != s.TxHash || got.To != seller.Hex() || got.Value != "10" || *got.BlockNumber != *s.BlockNumber {
		t.Fatalf("SettlementByAuthorization of a settlement %d blocks deep = %+v, %v; want settled by %s", deep, got, err, s.TxHash)
	}
	if n := proxy.Calls("eth_getLogs") - logsBefore; n != 2 {
		t.Errorf("the look-up read %d chunks of logs; want 2 (10,000 blocks each, backwards from the head)", n)
	}
	t.Logf("found in %v", time.Since(began).Round(time.Millisecond))
	if got, err := fresh.OwnSettlementByAuthorization(context.Background(), "cronos-testnet", p.Authorization.From.Hex(), hexNonce(p)); err != nil || got.TxHash != s.TxHash {
		t.Errorf("OwnSettlementByAuthorization at the settling signer = %+v, %v; want settled by %s", got, err, s.TxHash)
	}
	other := start(newSignerKey(t, c), 0)
	if got, err := other.OwnSettlementByAuthorization(context.Background(), "cronos-testnet", p.Authorization.From.Hex(), hexNonce(p)); !errors.Is(err, facilitator.ErrSettledElsewhere) {
		t.Errorf("OwnSettlementByAuthorization at another signer = %+v, %v; want ErrSettledElsewhere", got, err)
	}

	short := start(c.Signer().Key, time.Hour)
	logsBefore = proxy.Calls("eth_getLogs")
	got, err = short.SettlementByAuthorization("cronos-testnet", p.Authorization.From.Hex(), hexNonce(p))
	if err == nil || errors.Is(err, store.ErrNotFound) || !strings.Contains(err.Error(), "no AuthorizationUsed log found") {
		t.Errorf("SettlementByAuthorization beyond a 1h retention = %+v, %v; want an error (used, its log not in the window), not ErrSettlementNotFound", got, err)
	}
	if n := proxy.Calls("eth_getLogs") - logsBefore; n != 1 {
		t.Errorf("the look-up beyond the window read %d chunks of logs; want 1 (its first block is older than the window)", n)
	}
}
