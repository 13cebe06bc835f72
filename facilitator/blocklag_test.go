package facilitator_test

import (
	"context"
	"crypto/ecdsa"
	"fmt"
	"net/http"
	"os"
	"runtime/debug"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/rpc"
	"github.com/jackc/pgx/v5"

	"github.com/caddy-x402/caddy-x402/facilitator/devnet"
	"github.com/caddy-x402/caddy-x402/facilitator/internal/rpcproxy"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
	"github.com/caddy-x402/caddy-x402/internal/pgtest"
)

// BenchmarkBlockLag measures how soon the answers of a block's
// settlements follow the block, at Cronos's pace: a dev chain with 400 ms
// blocks (60M gas, about 900 transfers a block), the facilitator as a
// child process (its HTTP routes, default settings, a bbolt journal or,
// with "postgres", two instances on one PostgreSQL store) and a burst of
// 1000 concurrent settles of distinct authorizations over HTTP.
//
// A poller in this process asks the node for its head every 2 ms and
// notes when each block becomes visible; each answer is set against the
// block it names. Reported, for the fullest block: the first, median and
// last answer after the block became visible (full-first-ms,
// full-median-ms, full-last-ms); the worst last answer of any block
// (worst-last-ms); and the facilitator's calls to the node per block used
// (through a counting proxy): rpc-calls/block all of them,
// receipt-calls/block those that read receipts (eth_getBlockReceipts,
// eth_getTransactionReceipt). With "postgres", the database's statements
// per settle (pg_stat_statements). Every block's figures are logged (-v).
// With -benchtime Nx the metrics are the worst of N bursts.
//
//	go test ./facilitator -run '^$' -bench BlockLag -benchtime 3x -v
func BenchmarkBlockLag(b *testing.B) {
	defer debug.SetGCPercent(debug.SetGCPercent(400)) // the clients' GC, see BenchmarkSettleBurst
	for _, tc := range []struct {
		name      string
		burst     int
		instances int // on a shared PostgreSQL store; 0: one, on bbolt
	}{
		{"bbolt-1000", 1000, 0},
		{"postgres-1000-2instances", 1000, 2},
	} {
		b.Run(tc.name, func(b *testing.B) {
			c, err := devnet.Start(devnet.Config{BlockTime: 400 * time.Millisecond, Buyers: 20})
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			proxy, err := rpcproxy.New(c.RPCURL())
			if err != nil {
				b.Fatal(err)
			}
			defer proxy.Close()
			keys := []*ecdsa.PrivateKey{c.Signer().Key}
			env := []string{"X402_CHILD_SETTLE_TIMEOUT=10m", "X402_CHILD_QUIET=1"}
			var facs []*child
			var db *pgx.Conn
			if tc.instances == 0 {
				facs = append(facs, startChildOn(b, proxy.URL(), keys, b.TempDir()+"/journal.db", env...))
			} else {
				pg := pgtest.Start(b)
				dsn := pg.DSN(b)
				for range tc.instances {
					facs = append(facs, startChildOn(b, proxy.URL(), keys, "", append(env, "X402_CHILD_POSTGRES="+dsn)...))
				}
				if db, err = pgx.Connect(context.Background(), dsn); err != nil {
					b.Fatal(err)
				}
				defer db.Close(context.Background())
				if _, err := db.Exec(context.Background(), "CREATE EXTENSION IF NOT EXISTS pg_stat_statements"); err != nil {
					b.Logf("no statement counts: %v", err)
				}
			}
			defer func() {
				for _, f := range facs {
					f.kill()
				}
			}()
			client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: tc.burst}}
			var worst blockLag
			for b.Loop() {
				b.StopTimer()
				bodies := burstBodies(b, c, tc.burst)
				calls0 := proxyCalls(proxy)
				st0 := pgStatements(b, db)
				seen := watchHeads(b, c.RPCURL())
				b.StartTimer()

				type answer struct {
					at    time.Time
					block uint64
				}
				answers := make([]answer, tc.burst)
				var wg sync.WaitGroup
				for i := range bodies {
					wg.Add(1)
					go func() {
						defer wg.Done()
						var s x402.SettleResponse
						status := postWithURL(b, client, facs[i%len(facs)].url+x402.PathSettle, bodies[i], &s)
						at := time.Now()
						if status != 200 || !s.Settled() {
							b.Errorf("settle %d = %d %+v", i, status, s)
							return
						}
						answers[i] = answer{at, *s.BlockNumber}
					}()
				}
				wg.Wait()
				b.StopTimer()
				visible := seen.stop()
				calls := proxyCalls(proxy).minus(calls0)
				statements := pgStatements(b, db) - st0

				byBlock := map[uint64][]time.Duration{}
				for _, a := range answers {
					if a.block == 0 {
						continue
					}
					v, ok := visible[a.block]
					if !ok {
						b.Fatalf("block %d was never seen by the poller", a.block)
					}
					byBlock[a.block] = append(byBlock[a.block], a.at.Sub(v))
				}
				var lag blockLag
				blocks := make([]uint64, 0, len(byBlock))
				for n := range byBlock {
					blocks = append(blocks, n)
				}
				sort.Slice(blocks, func(i, j int) bool { return blocks[i] < blocks[j] })
				for _, n := range blocks {
					d := byBlock[n]
					sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
					first, median, last := ms(d[0]), ms(d[len(d)/2]), ms(d[len(d)-1])
					b.Logf("block %d: %4d settles, answers %6.1f / %6.1f / %6.1f ms after it was visible (first / median / last)", n, len(d), first, median, last)
					if len(d) > lag.fullest {
						lag.fullest, lag.first, lag.median, lag.last = len(d), first, median, last
					}
					lag.worstLast = max(lag.worstLast, last)
				}
				lag.blocks = float64(len(blocks))
				lag.calls = float64(calls.total()) / lag.blocks
				lag.receiptCalls = float64(calls["eth_getBlockReceipts"]+calls["eth_getTransactionReceipt"]) / lag.blocks
				lag.statements = float64(statements) / float64(tc.burst)
				b.Logf("node calls during the burst: %s", calls)
				worst = worst.worse(lag)
				b.StartTimer()
			}
			b.ReportMetric(worst.blocks, "blocks")
			b.ReportMetric(float64(worst.fullest), "full-settles")
			b.ReportMetric(worst.first, "full-first-ms")
			b.ReportMetric(worst.median, "full-median-ms")
			b.ReportMetric(worst.last, "full-last-ms")
			b.ReportMetric(worst.worstLast, "worst-last-ms")
			b.ReportMetric(worst.calls, "rpc-calls/block")
			b.ReportMetric(worst.receiptCalls, "receipt-calls/block")
			if db != nil {
				b.ReportMetric(worst.statements, "pg-statements/settle")
			}
		})
	}
}

// blockLag is one burst's figures (see BenchmarkBlockLag).
type blockLag struct {
	blocks              float64
	fullest             int
	first, median, last float64
	worstLast           float64
	calls, receiptCalls float64
	statements          float64
}

// worse is the worst of two bursts' figures, each figure on its own.
func (l blockLag) worse(o blockLag) blockLag {
	return blockLag{
		blocks: max(l.blocks, o.blocks), fullest: max(l.fullest, o.fullest),
		first: max(l.first, o.first), median: max(l.median, o.median), last: max(l.last, o.last),
		worstLast: max(l.worstLast, o.worstLast),
		calls:     max(l.calls, o.calls), receiptCalls: max(l.receiptCalls, o.receiptCalls),
		statements: max(l.statements, o.statements),
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// headWatch notes when each block number is first seen at the node.
type headWatch struct {
	stopped chan struct{}
	done    chan struct{}
	seen    map[uint64]time.Time
}

// watchHeads polls the node's head every 2 ms until stop.
func watchHeads(b *testing.B, url string) *headWatch {
	cl, err := rpc.DialHTTP(url)
	if err != nil {
		b.Fatal(err)
	}
	w := &headWatch{stopped: make(chan struct{}), done: make(chan struct{}), seen: map[uint64]time.Time{}}
	var last uint64
	poll := func() {
		var h hexutil.Uint64
		if err := cl.Call(&h, "eth_blockNumber"); err != nil {
			return
		}
		now := time.Now()
		if last == 0 {
			last = uint64(h)
		}
		for n := last + 1; n <= uint64(h); n++ {
			w.seen[n] = now
		}
		last = max(last, uint64(h))
	}
	poll()
	go func() {
		defer close(w.done)
		defer cl.Close()
		t := time.NewTicker(2 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-w.stopped:
				return
			case <-t.C:
				poll()
			}
		}
	}()
	return w
}

func (w *headWatch) stop() map[uint64]time.Time {
	close(w.stopped)
	<-w.done
	return w.seen
}

// rpcCounts is the JSON-RPC calls a proxy carried, by method.
type rpcCounts map[string]int

// watchedMethods are the methods counted: every one the facilitator uses.
var watchedMethods = []string{
	"eth_blockNumber", "eth_getBlockReceipts", "eth_getTransactionReceipt", "eth_getTransactionByHash",
	"eth_getTransactionCount", "eth_sendRawTransaction", "eth_estimateGas", "eth_call", "eth_getBalance",
	"eth_gasPrice", "eth_maxPriorityFeePerGas", "eth_getBlockByNumber", "eth_chainId", "eth_getLogs",
}

func proxyCalls(p *rpcproxy.Proxy) rpcCounts {
	out := rpcCounts{}
	for _, m := range watchedMethods {
		out[m] = p.Calls(m)
	}
	return out
}

func (c rpcCounts) minus(o rpcCounts) rpcCounts {
	out := rpcCounts{}
	for m, n := range c {
		if d := n - o[m]; d != 0 {
			out[m] = d
		}
	}
	return out
}

func (c rpcCounts) total() (n int) {
	for _, v := range c {
		n += v
	}
	return n
}

func (c rpcCounts) String() string {
	var parts []string
	for _, m := range watchedMethods {
		if c[m] != 0 {
			parts = append(parts, fmt.Sprintf("%s %d", m, c[m]))
		}
	}
	return strings.Join(parts, ", ")
}

// pgStatements is the number of statements the database has run, from
// pg_stat_statements (0 without a database or the extension).
func pgStatements(b *testing.B, db *pgx.Conn) int64 {
	if db == nil {
		return 0
	}
	var n int64
	if err := db.QueryRow(context.Background(), `SELECT coalesce(sum(calls), 0)::bigint FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) AND query NOT LIKE '%pg_stat_statements%'`).Scan(&n); err != nil {
		if os.Getenv("X402_TEST_LOG") != "" {
			b.Logf("pg_stat_statements: %v", err)
		}
		return 0
	}
	return n
}
