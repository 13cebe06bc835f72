package facilitator_test

import (
	"context"
	"math/big"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/caddy-x402/caddy-x402/facilitator/devnet"
	"github.com/caddy-x402/caddy-x402/facilitator/permit2"
	"github.com/caddy-x402/caddy-x402/facilitator/store"
	"github.com/caddy-x402/caddy-x402/facilitator/store/bolt"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// TestUptoCrashRecovery: a facilitator killed (SIGKILL) in a burst of upto
// settles, some broadcast and not mined, is restarted on its journal: the
// settlements journaled are followed to their blocks, every payment of
// the burst is settled exactly once (by the first facilitator or on
// retry), the journal holds every transaction its signer sent, as upto
// records, and the balances add up to the charges.
func TestUptoCrashRecovery(t *testing.T) {
	if testing.Short() {
		t.Skip("crash test skipped in -short mode")
	}
	const burst, charge, killAt = 20, 700, 6
	ctx := context.Background()
	key := newSignerKey(t, chain)
	signer := crypto.PubkeyToAddress(key.PublicKey)
	seller := newSeller(t)
	b := uptoBuyer(t, (burst+1)*1000, big.NewInt(1e12))
	acc := x402.RequirementsV2{Scheme: "upto", Network: x402.CAIP2(devnet.ChainID), Amount: "1000", Asset: devnet.TokenAddress.Hex(),
		PayTo: seller.Hex(), MaxTimeoutSeconds: 300, Extra: map[string]any{"facilitatorAddress": signer.Hex()}}
	journal := t.TempDir() + "/journal.db"
	startBlock, err := chain.Client().BlockNumber(ctx)
	if err != nil {
		t.Fatal(err)
	}

	c1 := startChild(t, key, journal)
	chain.PauseMining()
	bodies := make([][]byte, burst)
	for i := range bodies {
		bodies[i] = uptoBody(t, uptoPay(t, b, acc, permit2.PaymentOptions{}), acc, "700")
	}
	var wg sync.WaitGroup
	for i := range bodies {
		wg.Go(func() {
			r, err := http.Post(c1.url+x402.PathSettle, "application/json", strings.NewReader(string(bodies[i])))
			if err == nil {
				r.Body.Close()
			}
		})
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		n, err := chain.Client().PendingNonceAt(ctx, signer)
		if err != nil {
			t.Fatal(err)
		}
		if n >= killAt || time.Now().After(deadline) {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	c1.kill()
	wg.Wait()
	jb, err := bolt.OpenJournal(journal)
	if err != nil {
		t.Fatal(err)
	}
	atKill, _ := jb.Pending()
	jb.Close()
	if len(atKill) == 0 {
		t.Fatal("the kill found no settlement journaled as pending: the test proves nothing")
	}
	for _, r := range atKill {
		if r.Scheme != "upto" || r.Value != "700" {
			t.Fatalf("pending record %+v, want an upto record of 700", r)
		}
	}
	t.Logf("killed with %d upto settlements journaled as pending", len(atKill))
	chain.ResumeMining()

	c2 := startChild(t, key, journal)
	defer func() { c2.kill() }()
	deadline = time.Now().Add(60 * time.Second)
	for c2.pending(t) > 0 {
		if time.Now().After(deadline) {
			t.Fatal("pending upto settlements from the journal were not reconciled within 60 s")
		}
		time.Sleep(100 * time.Millisecond)
	}
	var mu sync.Mutex
	retried := 0
	for _, bd := range bodies {
		wg.Go(func() {
			var s x402.ReferenceSettleResponse
			status := postWithURL(t, http.DefaultClient, c2.url+x402.PathSettle, bd, &s)
			switch {
			case status == 200 && s.Success:
				mu.Lock()
				retried++
				mu.Unlock()
			case status == 200 && s.ErrorMessage == x402.ErrTextAlreadyUsed:
			default:
				t.Errorf("retry of a burst payment = %d %+v", status, s)
			}
		})
	}
	wg.Wait()
	c2.kill()

	j, err := bolt.OpenJournal(journal)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if p, err := j.Pending(); err != nil || len(p) != 0 {
		t.Fatalf("journal still has %d pending records (%v)", len(p), err)
	}
	head, _ := chain.Client().BlockNumber(ctx)
	txSigner := types.LatestSignerForChainID(chain.ChainID())
	successes := map[string]int{}
	for n := startBlock + 1; n <= head; n++ {
		blk, err := chain.Client().BlockByNumber(ctx, new(big.Int).SetUint64(n))
		if err != nil {
			t.Fatal(err)
		}
		for _, tx := range blk.Transactions() {
			if from, _ := types.Sender(txSigner, tx); from != signer {
				continue
			}
			rec, err := j.ByTx(tx.Hash().Hex())
			if err != nil {
				t.Fatalf("transaction %s of the signer is not in the journal: %v", tx.Hash().Hex(), err)
			}
			if r, err := chain.Client().TransactionReceipt(ctx, tx.Hash()); err != nil {
				t.Fatal(err)
			} else if r.Status == 1 {
				successes[rec.ID]++
				if rec.Scheme != "upto" || rec.Status != store.StatusSettled || !strings.EqualFold(rec.TxHash, tx.Hash().Hex()) {
					t.Fatalf("record %+v, but its transaction %s succeeded", rec, tx.Hash().Hex())
				}
			}
		}
	}
	for id, n := range successes {
		if n > 1 {
			t.Fatalf("payment %s settled %d times", id, n)
		}
	}
	if len(successes) != burst {
		t.Fatalf("%d payments settled, want all %d", len(successes), burst)
	}
	if got := balance(t, seller); got.Int64() != burst*charge {
		t.Fatalf("seller holds %s, want %d", got, burst*charge)
	}
	t.Logf("%d settled before or during recovery, %d on retry", burst-retried, retried)
}
