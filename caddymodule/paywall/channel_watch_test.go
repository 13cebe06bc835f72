package paywall

import (
	"context"
	"crypto/ecdsa"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2/caddytest"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/caddy-x402/caddy-x402/facilitator/batchsettlement/batch"
	"github.com/caddy-x402/caddy-x402/facilitator/devnet"
	"github.com/caddy-x402/caddy-x402/facilitator/store"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// TestChannelWithdrawWatch: a payer asks to withdraw its channel's whole
// unclaimed balance while the seller claims only every hour; the
// withdraw watch sees the request and claims what was charged at once,
// and what is charged during the delay at its next scan; once the delay
// has passed (devnet time moved on) finalizeWithdraw returns the payer
// only the rest, the seller has every charged voucher, and the watch
// takes the balance the withdrawal left (a voucher beyond it is
// refused).
func TestChannelWithdrawWatch(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Caddy in a child process and waits for withdraw scans")
	}
	chain, err := devnet.Start(devnet.Config{BlockTime: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { chain.Close() })
	const seller = "0x0000000000000000000000000000000000c4a027"
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	dir := t.TempDir()
	config := fmt.Sprintf(`{"admin":{"disabled":true},"apps":{
		"x402":{"networks":[{"name":"cronos-testnet","rpc":[%q],"signer_keys":["{env.X402_CRASH_SIGNER}"]}],
			"journal":%q,"redemptions":%q},
		"http":{"servers":{"s":{"listen":["127.0.0.1:%d"],"routes":[{"handle":[
			{"handler":"x402","pay_to":%q,"amount":"1000","scheme":"batch-settlement","claim_every":3600000000000},
			{"handler":"static_response","body":"paid content"}]}]}}}}}`,
		chain.RPCURL(), filepath.Join(dir, "journal.db"), filepath.Join(dir, "redemptions.db"), port, seller)
	path := filepath.Join(dir, "config.json")
	if err := os.WriteFile(path, []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	u := fmt.Sprintf("http://127.0.0.1:%d/paid", port)
	c := &crashCaddy{t: t, config: path, url: u}
	c.start()
	t.Cleanup(c.kill)

	client := &http.Client{Timeout: 60 * time.Second}
	cb := newChannelBuyer(t, &caddytest.Tester{Client: client}, devnet.Buyer1PrivateKey, u, time.Now().UnixNano())
	get := func(payload any) (int, string) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, u, nil)
		req.Header.Set(x402.HeaderPaymentSignature, cb.header(t, payload))
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return resp.StatusCode, string(b)
	}
	ctx := context.Background()
	balance := func(a common.Address) *big.Int {
		t.Helper()
		b, err := chain.BalanceOf(ctx, a)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	payer, sellerAddr := cb.cfg.Payer, common.HexToAddress(seller)
	waitSeller := func(want int64, what string) {
		t.Helper()
		deadline := time.Now().Add(2*maxWatchEvery + 10*time.Second)
		for balance(sellerAddr).Int64() != want {
			if time.Now().After(deadline) {
				t.Fatalf("%s: the seller holds %s, want %d (the withdraw watch did not claim)", what, balance(sellerAddr), want)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}

	if st, b := get(cb.deposit(t, 10000, 1000)); st != 200 || b != "paid content" {
		t.Fatalf("deposit: %d %s", st, b)
	}
	for max := int64(2000); max <= 3000; max += 1000 {
		if st, b := get(cb.voucher(t, cb.key, max)); st != 200 {
			t.Fatalf("voucher %d: %d %s", max, st, b)
		}
	}
	// The payer asks for everything not claimed on chain: 10000.
	initiate, err := batch.InitiateWithdrawCalldata(cb.cfg, big.NewInt(10000))
	if err != nil {
		t.Fatal(err)
	}
	sendTx(t, chain, cb.key, initiate)
	waitSeller(3000, "after the withdraw request")
	// Charged during the delay: claimed at the next scan.
	if st, b := get(cb.voucher(t, cb.key, 4000)); st != 200 {
		t.Fatalf("voucher 4000 during the withdraw delay: %d %s", st, b)
	}
	waitSeller(4000, "a voucher charged during the delay")

	if err := chain.AdjustTime(DefaultWithdrawDelay * time.Second); err != nil {
		t.Fatal(err)
	}
	payerBefore := balance(payer)
	finalize, _ := batch.FinalizeWithdrawCalldata(cb.cfg)
	sendTx(t, chain, cb.key, finalize)
	if got := new(big.Int).Sub(balance(payer), payerBefore); got.Int64() != 6000 {
		t.Errorf("finalizeWithdraw returned %s to the payer, want 6000 (10000 deposited - 4000 charged and claimed)", got)
	}
	if got := balance(sellerAddr); got.Int64() != 4000 {
		t.Errorf("the seller holds %s, want 4000 (every charged voucher)", got)
	}
	// The watch records the balance the withdrawal left (4000, all
	// claimed), seen in a corrective 402's channelState (a voucher signed
	// from an old state charges nothing); then a voucher beyond it is
	// refused, not served unpaid.
	deadline := time.Now().Add(2*maxWatchEvery + 10*time.Second)
	for {
		req, _ := http.NewRequest(http.MethodGet, u, nil)
		req.Header.Set(x402.HeaderPaymentSignature, cb.header(t, cb.voucher(t, cb.key, 1000)))
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		var pr x402.PaymentRequiredV2
		_ = x402.DecodeBase64JSON(resp.Header.Get(x402.HeaderPaymentRequired), &pr)
		var cs map[string]any
		if len(pr.Accepts) == 1 {
			cs, _ = pr.Accepts[0].Extra["channelState"].(map[string]any)
		}
		if resp.StatusCode != 402 || cs == nil {
			t.Fatalf("a voucher signed from an old state: %d %+v", resp.StatusCode, pr)
		}
		if cs["balance"] == "4000" && cs["withdrawRequestedAt"] == float64(0) && cs["totalClaimed"] == "4000" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the channel's state after the withdrawal: %v, want balance 4000, totalClaimed 4000, withdrawRequestedAt 0", cs)
		}
		time.Sleep(500 * time.Millisecond)
	}
	if st, b := get(cb.voucher(t, cb.key, 5000)); st != 402 || !strings.Contains(b, reasonExceedsBalance) {
		t.Fatalf("a voucher beyond the balance the withdrawal left: %d %s", st, b)
	}
}

// sendTx sends a transaction of data to the batch settlement contract
// from key and waits for its successful receipt.
func sendTx(t *testing.T, chain *devnet.Chain, key *ecdsa.PrivateKey, data []byte) {
	t.Helper()
	ctx := context.Background()
	cl := chain.Client()
	from := crypto.PubkeyToAddress(key.PublicKey)
	nonce, err := cl.PendingNonceAt(ctx, from)
	if err != nil {
		t.Fatal(err)
	}
	head, err := cl.HeaderByNumber(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	tip := big.NewInt(1_000_000_000)
	to := batch.SettlementAddress
	tx := types.MustSignNewTx(key, types.LatestSignerForChainID(chain.ChainID()), &types.DynamicFeeTx{ChainID: chain.ChainID(), Nonce: nonce,
		GasTipCap: tip, GasFeeCap: new(big.Int).Add(new(big.Int).Mul(head.BaseFee, big.NewInt(2)), tip), Gas: 1_000_000, To: &to, Data: data})
	if err := cl.SendTransaction(ctx, tx); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if rc, err := cl.TransactionReceipt(ctx, tx.Hash()); err == nil {
			if rc.Status != types.ReceiptStatusSuccessful {
				t.Fatalf("transaction %s reverted", tx.Hash())
			}
			return
		}
	}
	t.Fatalf("transaction %s not mined", tx.Hash())
}

// TestWithdrawClosing: a channel is charged until a third of its
// withdraw delay is left, and not from then on.
func TestWithdrawClosing(t *testing.T) {
	at := time.Unix(1_800_000_000, 0)
	end := at.Add(DefaultWithdrawDelay * time.Second)
	for _, tc := range []struct {
		name      string
		requested time.Time
		now       time.Time
		want      bool
	}{
		{"no withdrawal pending", time.Time{}, at, false},
		{"just asked", at, at, false},
		{"a second before the margin", at, end.Add(-withdrawMargin - time.Second), false},
		{"at the margin", at, end.Add(-withdrawMargin), true},
		{"after the delay", at, end.Add(time.Hour), true},
	} {
		c := &store.Channel{WithdrawRequestedAt: tc.requested, Config: store.ChannelConfig{WithdrawDelay: DefaultWithdrawDelay}}
		if got := withdrawClosing(c, tc.now); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}
