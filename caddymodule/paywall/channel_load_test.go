package paywall

import (
	"context"
	"crypto/ecdsa"
	"crypto/rand"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/caddy-x402/caddy-x402/caddymodule/internal/testutil"
	"github.com/caddy-x402/caddy-x402/facilitator/batchsettlement/batch"
	"github.com/caddy-x402/caddy-x402/facilitator/devnet"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
	"github.com/caddy-x402/caddy-x402/internal/pgtest"
)

// TestChannelLoad is the load script of docs/benchmarks.md (skipped unless
// X402_LOAD=1): a channel route on the real Caddy over loopback, the devnet
// mining in the same process; per store (bbolt, then PostgreSQL from
// internal/pgtest) and per number of buyers (X402_LOAD_BUYERS, default
// "1,16"; one channel each, all at once), the buyers make
// X402_LOAD_REQUESTS paid requests in all (default 10,000: one deposit
// each, then vouchers signed before the clock starts) while as many unpaid
// requests get their 402 from the same route, in alternating slices
// (X402_LOAD_SLICES, default 10) so that both meet the same load of this
// shared machine. It reports both rates and their ratio, waits for the
// claim rounds to pay the seller exactly price x paid requests, and counts
// the transactions on chain from the facilitator's gas payer (deposits,
// claims, settles) and the buyers' nonces. X402_LOAD_PROFILE=<dir> writes a
// CPU profile of each slice there (go tool pprof -top <dir>/bbolt-paid-*).
//
//	X402_LOAD=1 go test ./caddymodule/paywall -run TestChannelLoad -v -count=1 -timeout 30m
func TestChannelLoad(t *testing.T) {
	if os.Getenv("X402_LOAD") != "1" {
		t.Skip("the load script: set X402_LOAD=1 (see docs/benchmarks.md)")
	}
	requests := envInt(t, "X402_LOAD_REQUESTS", 10_000)
	slices := envInt(t, "X402_LOAD_SLICES", 10)
	var buyers []int
	for _, s := range strings.Split(envStr("X402_LOAD_BUYERS", "1,16"), ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 || n > requests {
			t.Fatalf("X402_LOAD_BUYERS: %q", s)
		}
		buyers = append(buyers, n)
	}
	for i, st := range strings.Split(envStr("X402_LOAD_STORES", "bbolt,postgres"), ",") {
		if i > 0 {
			// Another store: the signer's engine must start afresh with its
			// journal, so the previous config goes first (the devnet too).
			if err := caddy.Stop(); err != nil {
				t.Fatal(err)
			}
		}
		// One store for the runs of every number of buyers (a new seller
		// each): the signer's engine keeps the journal it started with.
		var global string
		switch st {
		case "bbolt":
			global = "redemptions " + filepath.Join(t.TempDir(), "redemptions.db")
		case "postgres":
			global = "storage postgres " + pgtest.Start(t).DSN(t)
			t.Cleanup(func() { _ = caddy.Stop() }) // before the database stops
		case "memory":
		default:
			t.Fatalf("X402_LOAD_STORES: %q (bbolt, postgres, memory)", st)
		}
		for _, n := range buyers {
			t.Run(fmt.Sprintf("%s/buyers=%d", st, n), func(t *testing.T) { channelLoad(t, global, n, requests, slices) })
		}
	}
}

func envStr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}

func envInt(t *testing.T, k string, def int) int {
	v, err := strconv.Atoi(envStr(k, strconv.Itoa(def)))
	if err != nil || v < 1 {
		t.Fatalf("%s: want a positive number", k)
	}
	return v
}

// channelLoad runs one load: n buyers, requests paid requests.
func channelLoad(t *testing.T, global string, n, requests, slices int) {
	ctx := context.Background()
	var seller common.Address
	rand.Read(seller[:])
	tester := testutil.NewTester(t, testutil.GlobalBlock(global)+fmt.Sprintf(`
:%d {
	x402 /paid {
		pay_to %s
		amount 1
		scheme batch-settlement
		claim_every 2s
	}
	respond /paid "paid content"
}
`, testutil.SitePort, seller.Hex()))
	u := testutil.SiteURL + "/paid"
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4 * n, MaxConnsPerHost: 4 * n}, Timeout: 30 * time.Second}
	get := func(header string, want int) error {
		req, _ := http.NewRequest(http.MethodGet, u, nil)
		if header != "" {
			req.Header.Set(x402.HeaderPaymentSignature, header)
		}
		resp, err := client.Do(req)
		if err != nil {
			return err
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != want {
			return fmt.Errorf("status %d %s, want %d", resp.StatusCode, body, want)
		}
		return nil
	}
	chain := testutil.ActiveChain(t)
	gasPayer := crypto.PubkeyToAddress(testutil.BuyerKey(t, devnet.SignerPrivateKey).PublicKey)
	startBlock, err := chain.Client().BlockNumber(ctx)
	if err != nil {
		t.Fatal(err)
	}
	payerBefore, _, err := chain.NonceAt(ctx, gasPayer)
	if err != nil {
		t.Fatal(err)
	}

	// The buyers: fresh keys holding tokens (minted; they never send a
	// transaction), a deposit each, and every voucher signed up front.
	per := requests / n
	cbs := make([]*channelBuyer, n)
	keys := make([]*ecdsa.PrivateKey, n)
	headers := make([][]string, n)
	for i := range n {
		keys[i], _ = crypto.GenerateKey()
		addr := crypto.PubkeyToAddress(keys[i].PublicKey)
		if err := chain.Mint(ctx, addr, big.NewInt(int64(per+1000))); err != nil {
			t.Fatal(err)
		}
		cbs[i] = newChannelBuyer(t, tester, devnet.Buyer1PrivateKey, u, time.Now().UnixNano()+int64(i))
		cbs[i].key = keys[i]
		cbs[i].cfg.Payer, cbs[i].cfg.PayerAuthorizer = addr, addr
		if cbs[i].id, err = cbs[i].cfg.ID(big.NewInt(devnet.ChainID)); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := get(cbs[i].header(t, cbs[i].deposit(t, int64(per+1000), 1)), http.StatusOK); err != nil {
				t.Errorf("deposit of buyer %d: %v", i, err)
			}
		}()
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	paid := 0
	for i := range n {
		for v := 2; v <= per; v++ {
			sig, err := batch.SignVoucher(keys[i], big.NewInt(devnet.ChainID), cbs[i].id, big.NewInt(int64(v)))
			if err != nil {
				t.Fatal(err)
			}
			headers[i] = append(headers[i], cbs[i].header(t, voucherPayload(cbs[i], v, sig)))
		}
		paid += per
	}

	// Alternating slices of unpaid and paid requests, each by n clients at once.
	var cpu402, cpuPaid time.Duration
	profiles := os.Getenv("X402_LOAD_PROFILE") // a directory: a CPU profile per slice and kind
	slice := 0
	run := func(each func(g, k int) error, count func(g int) int, cpu *time.Duration) time.Duration {
		if profiles != "" {
			kind := "paid"
			if cpu == &cpu402 {
				kind = "402"
			}
			f, err := os.Create(filepath.Join(profiles, fmt.Sprintf("%s-%s-%d-%d.pprof", storeName(global), kind, n, slice)))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if err := pprof.StartCPUProfile(f); err != nil {
				t.Fatal(err)
			}
			defer pprof.StopCPUProfile()
		}
		start, cpu0 := time.Now(), cpuTime()
		defer func() { *cpu += cpuTime() - cpu0 }()
		var wg sync.WaitGroup
		for g := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for k := range count(g) {
					if err := each(g, k); err != nil {
						t.Error(err)
						return
					}
				}
			}()
		}
		wg.Wait()
		return time.Since(start)
	}
	var t402, tPaid time.Duration
	var n402, nPaid int
	next := make([]int, n)
	for s := range slices {
		share := func(g int) int { // this slice's part of buyer g's vouchers
			all := len(headers[g])
			return all*(s+1)/slices - all*s/slices
		}
		t402 += run(func(g, k int) error { return get("", http.StatusPaymentRequired) }, share, &cpu402)
		tPaid += run(func(g, k int) error {
			h := headers[g][next[g]]
			next[g]++
			return get(h, http.StatusOK)
		}, share, &cpuPaid)
		for g := range n {
			n402 += share(g)
		}
		slice++
	}
	nPaid = n402
	if t.Failed() {
		t.FailNow()
	}
	rate402 := float64(n402) / t402.Seconds()
	ratePaid := float64(nPaid) / tPaid.Seconds()

	// The seller is paid exactly price x paid requests by the claim rounds.
	deadline := time.Now().Add(60 * time.Second)
	for testutil.Balance(t, seller.Hex()).Cmp(big.NewInt(int64(paid))) != 0 && time.Now().Before(deadline) {
		time.Sleep(200 * time.Millisecond)
	}
	if got := testutil.Balance(t, seller.Hex()); got.Cmp(big.NewInt(int64(paid))) != 0 {
		t.Fatalf("the seller holds %s after the claim rounds, want %d (price 1 x paid requests)", got, paid)
	}
	payerAfter, _, err := chain.NonceAt(ctx, gasPayer)
	if err != nil {
		t.Fatal(err)
	}
	endBlock, err := chain.Client().BlockNumber(ctx)
	if err != nil {
		t.Fatal(err)
	}
	byMethod := txsByMethod(t, chain, gasPayer, startBlock+1, endBlock)
	buyerTxs := uint64(0)
	for _, k := range keys {
		nonce, _, err := chain.NonceAt(ctx, crypto.PubkeyToAddress(k.PublicKey))
		if err != nil {
			t.Fatal(err)
		}
		buyerTxs += nonce
	}
	total := payerAfter - payerBefore
	rounds := byMethod["claimWithSignature"] + byMethod["settle"]
	beyond := float64(total-uint64(rounds)+buyerTxs) / float64(n)
	t.Logf("LOAD %s buyers=%d: unpaid 402 %.0f req/s, paid by voucher %.0f req/s, ratio %.2f (%d + %d requests in %d slices)",
		storeName(global), n, rate402, ratePaid, ratePaid/rate402, n402, nPaid, slices)
	t.Logf("LOAD %s buyers=%d: CPU of this process (Caddy, clients, devnet) per request: unpaid 402 %.0f us, paid by voucher %.0f us, ratio %.2f",
		storeName(global), n, float64(cpu402.Microseconds())/float64(n402), float64(cpuPaid.Microseconds())/float64(nPaid), float64(cpu402)/float64(cpuPaid)*float64(nPaid)/float64(n402))
	t.Logf("LOAD %s buyers=%d: %d paid requests (%d deposits + %d vouchers); gas payer sent %d transactions %v; buyers sent %d; per buyer beyond the claim rounds: %.2f",
		storeName(global), n, paid, n, paid-n, total, byMethod, buyerTxs, beyond)
	if beyond > 3 {
		t.Errorf("%.2f transactions per buyer beyond the claim rounds, want at most 3", beyond)
	}
}

// voucherPayload is a voucher payload for max with its signature.
func voucherPayload(cb *channelBuyer, max int, sig []byte) map[string]any {
	return map[string]any{"type": "voucher", "channelConfig": cb.cfg,
		"voucher": map[string]any{"channelId": cb.id.Hex(), "maxClaimableAmount": strconv.Itoa(max), "signature": "0x" + common.Bytes2Hex(sig)}}
}

// storeName names a load's store from its global options.
func storeName(global string) string {
	switch {
	case strings.HasPrefix(global, "redemptions"):
		return "bbolt"
	case strings.HasPrefix(global, "storage postgres"):
		return "postgres"
	}
	return "memory"
}

// txsByMethod counts from's transactions in blocks from..to by the
// x402BatchSettlement method they call.
func txsByMethod(t *testing.T, chain *devnet.Chain, from common.Address, first, last uint64) map[string]int {
	out := map[string]int{}
	signer := types.LatestSignerForChainID(chain.ChainID())
	for b := first; b <= last; b++ {
		blk, err := chain.Client().BlockByNumber(context.Background(), new(big.Int).SetUint64(b))
		if err != nil {
			t.Fatal(err)
		}
		for _, tx := range blk.Transactions() {
			if s, err := types.Sender(signer, tx); err != nil || s != from {
				continue
			}
			name := "other"
			if len(tx.Data()) >= 4 {
				if m, err := batch.ABI.MethodById(tx.Data()[:4]); err == nil {
					name = m.Name
				}
			}
			out[name]++
		}
	}
	return out
}

// cpuTime is the CPU time (user and system) this process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
