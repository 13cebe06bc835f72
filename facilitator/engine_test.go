package facilitator_test

import (
	"context"
	"crypto/ecdsa"
	"fmt"
	"math/big"
	"net/http"
	"runtime/debug"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/jackc/pgx/v5"

	"github.com/caddy-x402/caddy-x402/facilitator/devnet"
	"github.com/caddy-x402/caddy-x402/facilitator/exact"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
	"github.com/caddy-x402/caddy-x402/internal/pgtest"
)

// fundGas sends native gas money from the dev chain's minter to a, and
// waits until it is mined.
func fundGas(t testing.TB, c *devnet.Chain, a common.Address, wei *big.Int) {
	t.Helper()
	if err := c.SendValue(context.Background(), c.Minter().Key, a, wei); err != nil {
		t.Fatal(err)
	}
}

// newSignerKey returns a fresh signer key funded with gas on chain c.
func newSignerKey(t testing.TB, c *devnet.Chain) *ecdsa.PrivateKey {
	k, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	fundGas(t, c, crypto.PubkeyToAddress(k.PublicKey), new(big.Int).Mul(big.NewInt(1e18), big.NewInt(10)))
	return k
}

// newBuyer returns a fresh buyer funded with tokens on chain c.
func newBuyer(t testing.TB, c *devnet.Chain, units int64) devnet.Account {
	k, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	a := devnet.Account{Address: crypto.PubkeyToAddress(k.PublicKey), Key: k}
	if err := c.Mint(context.Background(), a.Address, big.NewInt(units)); err != nil {
		t.Fatal(err)
	}
	return a
}

// TestSettleStorm sends 1,000 concurrent settle calls for 50 distinct
// authorizations, 20 copies each: exactly 50 transactions go out, every
// copy but one gets "Authorization already used", and balances add up.
func TestSettleStorm(t *testing.T) {
	if testing.Short() {
		t.Skip("storm test skipped in -short mode")
	}
	const distinct, copies, price = 50, 20, 700
	seller := newSeller(t)
	req := requirements(seller, fmt.Sprint(price))
	b := newBuyer(t, chain, distinct*price)
	signer := chain.Signer().Address
	ctx := context.Background()
	nonceBefore, err := chain.Client().PendingNonceAt(ctx, signer)
	if err != nil {
		t.Fatal(err)
	}

	bodies := make([][]byte, distinct)
	for i := range bodies {
		h, _ := pay(t, b, req, exact.PaymentOptions{})
		bodies[i] = body(h, req)
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: distinct * copies, MaxConnsPerHost: 0}}
	type result struct {
		i      int
		status int
		s      x402.SettleResponse
	}
	results := make(chan result, distinct*copies)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range distinct {
		for range copies {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				var s x402.SettleResponse
				status := postWith(t, client, x402.PathSettle, bodies[i], &s)
				results <- result{i, status, s}
			}()
		}
	}
	close(start)
	wg.Wait()
	close(results)

	settled := map[int]string{}
	used := 0
	for r := range results {
		switch {
		case r.status == 200 && r.s.Event == x402.EventSettled:
			if prev, dup := settled[r.i]; dup {
				t.Fatalf("authorization %d settled twice: %s and %s", r.i, prev, r.s.TxHash)
			}
			settled[r.i] = r.s.TxHash
		case r.status == 200 && r.s.Event == x402.EventFailed && r.s.Error == x402.ErrTextAlreadyUsed:
			used++
		default:
			t.Fatalf("settle of authorization %d = %d %+v", r.i, r.status, r.s)
		}
	}
	if len(settled) != distinct || used != distinct*(copies-1) {
		t.Fatalf("%d settled, %d already used; want %d and %d", len(settled), used, distinct, distinct*(copies-1))
	}
	nonceAfter, err := chain.Client().PendingNonceAt(ctx, signer)
	if err != nil {
		t.Fatal(err)
	}
	if sent := nonceAfter - nonceBefore; sent != distinct {
		t.Fatalf("the signer sent %d transactions, want exactly %d", sent, distinct)
	}
	if got := balance(t, seller); got.Cmp(big.NewInt(distinct*price)) != 0 {
		t.Fatalf("seller balance %s, want %d", got, distinct*price)
	}
	if got := balance(t, b.Address); got.Sign() != 0 {
		t.Fatalf("buyer balance %s, want 0", got)
	}
}

// burstBodies signs n settle bodies of 1000 units each, from the chain's
// buyers in turn to fresh sellers, valid for an hour: a benchmark's burst.
func burstBodies(b *testing.B, c *devnet.Chain, n int) [][]byte {
	b.Helper()
	bodies := make([][]byte, n)
	for i := range bodies {
		buyer := c.Buyers()[i%len(c.Buyers())]
		req := requirements(newSeller(b), "1000")
		h, _, err := exact.CreatePayment(buyer.Key, req, exact.PaymentOptions{ChainID: big.NewInt(devnet.ChainID), ValidFor: time.Hour})
		if err != nil {
			b.Fatal(err)
		}
		bodies[i] = body(h, req)
	}
	return bodies
}

// BenchmarkSettleBurst runs bursts of concurrent settles of distinct
// authorizations on a dev chain with 1 s blocks against a facilitator
// running as a child process (so that its own CPU time can be measured),
// and reports blocks used, settles per second, p50/p99 latency from the
// first request, the spread of the answers of one block (last minus first
// answer, worst block) and the facilitator's CPU time per settle.
// "pipelined" is the engine with one or two signer keys; "serial" is one
// transaction at a time per signer, the baseline (a smaller burst, as it
// settles one payment per block); "postgres" is two instances (two child
// processes) on one signer key and one PostgreSQL store, the burst spread
// over both, with the database's transactions per settle (each of the
// store's writes and reads is one transaction in one round trip, so this
// counts round trips, plus the leases' renewals and take-over checks).
//
// The burst's 500 clients run in this process, on the same 2 cores as the
// facilitator: their garbage collection, when 500 answers arrive at once,
// showed up in the block spread as noise of 20-30 ms. The clients get
// room (GOGC 400 in this process only; the facilitator keeps Go's
// default), so that the spread measures the facilitator.
func BenchmarkSettleBurst(b *testing.B) {
	defer debug.SetGCPercent(debug.SetGCPercent(400))
	for _, tc := range []struct {
		name      string
		burst     int
		keys      int
		serial    bool
		instances int // on a shared PostgreSQL store; 0: one, on bbolt
	}{
		{"pipelined-500-1key", 500, 1, false, 0},
		{"pipelined-500-2keys", 500, 2, false, 0},
		{"serial-10", 10, 1, true, 0},
		{"postgres-500-1key-2instances", 500, 1, false, 2},
	} {
		b.Run(tc.name, func(b *testing.B) {
			c, err := devnet.Start(devnet.Config{BlockTime: time.Second, Buyers: 20})
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			keys := []*ecdsa.PrivateKey{c.Signer().Key}
			for len(keys) < tc.keys {
				keys = append(keys, newSignerKey(b, c))
			}
			env := []string{"X402_CHILD_SETTLE_TIMEOUT=10m", "X402_CHILD_QUIET=1"}
			if tc.serial {
				env = append(env, "X402_CHILD_SERIAL=1")
			}
			var facs []*child
			var db *pgx.Conn
			if tc.instances == 0 {
				facs = append(facs, startChildOn(b, c.RPCURL(), keys, b.TempDir()+"/journal.db", env...))
			} else {
				dsn := pgtest.Start(b).DSN(b)
				for range tc.instances {
					facs = append(facs, startChildOn(b, c.RPCURL(), keys, "", append(env, "X402_CHILD_POSTGRES="+dsn)...))
				}
				if db, err = pgx.Connect(context.Background(), dsn); err != nil {
					b.Fatal(err)
				}
				defer db.Close(context.Background())
			}
			defer func() {
				for _, f := range facs {
					f.kill()
				}
			}()
			cpuAll := func() (d time.Duration) {
				for _, f := range facs {
					d += f.cpu()
				}
				return d
			}
			client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: tc.burst}}

			var blocks, rate, p50, p99, spread, cpu, xacts float64
			for b.Loop() {
				b.StopTimer()
				bodies := burstBodies(b, c, tc.burst)
				b.StartTimer()
				lat := make([]time.Duration, tc.burst)
				var mu sync.Mutex
				first, last := map[uint64]time.Duration{}, map[uint64]time.Duration{}
				var wg sync.WaitGroup
				x0 := pgXacts(b, db)
				cpu0 := cpuAll()
				t0 := time.Now()
				for i := range bodies {
					wg.Add(1)
					go func() {
						defer wg.Done()
						var s x402.SettleResponse
						status := postWithURL(b, client, facs[i%len(facs)].url+x402.PathSettle, bodies[i], &s)
						lat[i] = time.Since(t0)
						if status != 200 || !s.Settled() {
							b.Errorf("settle %d = %d %+v", i, status, s)
							return
						}
						mu.Lock()
						if f, ok := first[*s.BlockNumber]; !ok || lat[i] < f {
							first[*s.BlockNumber] = lat[i]
						}
						last[*s.BlockNumber] = max(last[*s.BlockNumber], lat[i])
						mu.Unlock()
					}()
				}
				wg.Wait()
				total := time.Since(t0)
				cpu = float64((cpuAll() - cpu0).Microseconds()) / float64(tc.burst)
				b.StopTimer()
				xacts = float64(pgXacts(b, db)-x0) / float64(tc.burst)
				b.StartTimer()
				spread = 0
				for blk, f := range first {
					spread = max(spread, float64((last[blk] - f).Milliseconds()))
				}
				sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
				blocks, rate = float64(len(first)), float64(tc.burst)/total.Seconds()
				p50, p99 = float64(lat[len(lat)/2].Milliseconds()), float64(lat[len(lat)*99/100].Milliseconds())
			}
			b.ReportMetric(blocks, "blocks")
			b.ReportMetric(rate, "settles/s")
			b.ReportMetric(p50, "p50-ms")
			b.ReportMetric(p99, "p99-ms")
			b.ReportMetric(spread, "block-spread-ms")
			b.ReportMetric(cpu, "cpu-us/settle")
			if db != nil {
				b.ReportMetric(xacts, "pg-xacts/settle")
			}
		})
	}
}

// pgXacts is the number of transactions the database has run (committed
// and rolled back), once the backends' statistics have been flushed (they
// are at most a second old); 0 without a database.
func pgXacts(b *testing.B, db *pgx.Conn) int64 {
	if db == nil {
		return 0
	}
	time.Sleep(1100 * time.Millisecond)
	var n int64
	if err := db.QueryRow(context.Background(), `SELECT pg_stat_clear_snapshot() IS NULL, xact_commit + xact_rollback
		FROM pg_stat_database WHERE datname = current_database()`).Scan(new(bool), &n); err != nil {
		b.Fatal(err)
	}
	return n
}
