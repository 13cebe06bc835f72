package facilitator_test

import (
	"context"
	"crypto/ecdsa"
	"math/big"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/caddy-x402/caddy-x402/facilitator/batchsettlement/batch"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// TestBatchCrashRecovery: a burst of deposits (each its own channel) to a
// facilitator child killed with SIGKILL after its first broadcasts, mining
// held back; restarted on the same journal, it concludes what was sent;
// every deposit sent again then either settles (it was never sent) or is
// refused, and each moved exactly once: the escrow gained and the buyer
// lost exactly burst x amount.
func TestBatchCrashRecovery(t *testing.T) {
	if testing.Short() {
		t.Skip("crash test skipped in -short mode")
	}
	const burst, amount = 12, 700
	key := newSignerKey(t, chain)
	authorizer := crypto.PubkeyToAddress(key.PublicKey)
	seller := newSeller(t)
	req := channelReq(seller)
	req.Extra["receiverAuthorizer"] = authorizer.Hex()
	buyer := newBuyer(t, chain, burst*amount)
	bodies := make([][]byte, burst)
	for i := range bodies {
		cfg := channelOf(buyer, seller, byte(100+i))
		cfg.ReceiverAuthorizer = authorizer
		bodies[i] = channelBody(t, depositPayload(t, buyer, cfg, amount, 1), req)
	}
	depositCrash(t, key, buyer.Address, bodies, amount)
}

// depositCrash sends the deposits' bodies at once to a facilitator child
// with key, killed with SIGKILL after its first broadcast (mining held
// back), restarts it on the same journal, sends them again, and checks
// that each moved exactly amount once from payer into the escrow.
func depositCrash(t *testing.T, key *ecdsa.PrivateKey, payer common.Address, bodies [][]byte, amount int64) {
	t.Helper()
	ctx := context.Background()
	burst := int64(len(bodies))
	authorizer := crypto.PubkeyToAddress(key.PublicKey)
	escrow, before := balance(t, batch.SettlementAddress), balance(t, payer)
	journal := t.TempDir() + "/journal.db"

	c1 := startChild(t, key, journal)
	chain.PauseMining()
	var wg sync.WaitGroup
	for _, b := range bodies {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if r, err := http.Post(c1.url+x402.PathSettle, "application/json", strings.NewReader(string(b))); err == nil {
				r.Body.Close()
			}
		}()
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		n, err := chain.Client().PendingNonceAt(ctx, authorizer)
		if err != nil {
			t.Fatal(err)
		}
		if n >= 1 || time.Now().After(deadline) {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	c1.kill()
	wg.Wait()
	chain.ResumeMining()

	c2 := startChild(t, key, journal)
	defer c2.kill()
	deadline = time.Now().Add(60 * time.Second)
	for c2.pending(t) > 0 {
		if time.Now().After(deadline) {
			t.Fatal("pending deposits from the journal were not concluded within 60 s")
		}
		time.Sleep(100 * time.Millisecond)
	}
	movedBefore := new(big.Int).Sub(before, balance(t, payer)).Int64() / amount
	settled := 0
	for _, b := range bodies {
		var s x402.ReferenceSettleResponse
		if st := postWithURL(t, http.DefaultClient, c2.url+x402.PathSettle, b, &s); st != 200 {
			t.Fatalf("settle again = %d %+v", st, s)
		}
		if s.Success {
			settled++
		}
	}
	t.Logf("%d deposits moved before the restart's retries, %d by them", movedBefore, settled)
	if movedBefore+int64(settled) != burst {
		t.Fatalf("%d moved before + %d settled by the retries, want %d", movedBefore, settled, burst)
	}
	if got := new(big.Int).Sub(before, balance(t, payer)); got.Int64() != burst*amount {
		t.Fatalf("buyer paid %s, want %d", got, burst*amount)
	}
	if got := new(big.Int).Sub(balance(t, batch.SettlementAddress), escrow); got.Int64() != burst*amount {
		t.Fatalf("escrow got %s, want %d", got, burst*amount)
	}
}
