package facilitator_test

import (
	"bufio"
	"crypto/ecdsa"
	"fmt"
	"net/http"
	"os"
	"runtime/debug"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/caddy-x402/caddy-x402/facilitator/devnet"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// BenchmarkBurstRSS measures the facilitator's resident memory around a
// burst: a child process with default settings (bbolt journal) on a dev
// chain with 400 ms blocks, idle after start, then 500 concurrent settles
// over HTTP, then every second for 60 s after the last answer. Reported:
// rss-idle-MB (before the burst), rss-peak-MB (the highest sample),
// rss-60s-MB (60 s after the last answer) and back-s (seconds after the
// last answer until RSS was within 20 MB of idle; -1 for never).
//
//	go test ./facilitator -run '^$' -bench BurstRSS -benchtime 1x
func BenchmarkBurstRSS(b *testing.B) {
	defer debug.SetGCPercent(debug.SetGCPercent(400))
	const burst = 500
	c, err := devnet.Start(devnet.Config{BlockTime: 400 * time.Millisecond, Buyers: 20})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	f := startChildOn(b, c.RPCURL(), []*ecdsa.PrivateKey{c.Signer().Key}, b.TempDir()+"/journal.db", "X402_CHILD_QUIET=1")
	defer f.kill()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: burst}}
	var idle, peak, after, back float64
	for b.Loop() {
		bodies := burstBodies(b, c, burst)
		time.Sleep(2 * time.Second) // settled after start
		idle = f.rssMB(b)
		peak = idle
		stop := make(chan struct{})
		sampled := make(chan struct{})
		go func() {
			defer close(sampled)
			t := time.NewTicker(50 * time.Millisecond)
			defer t.Stop()
			for {
				select {
				case <-stop:
					return
				case <-t.C:
					peak = max(peak, f.rssMB(b))
				}
			}
		}()
		var wg sync.WaitGroup
		for i := range bodies {
			wg.Add(1)
			go func() {
				defer wg.Done()
				var s x402.SettleResponse
				if status := postWithURL(b, client, f.url+x402.PathSettle, bodies[i], &s); status != 200 || !s.Settled() {
					b.Errorf("settle %d = %d %+v", i, status, s)
				}
			}()
		}
		wg.Wait()
		close(stop)
		<-sampled
		client.CloseIdleConnections()
		back = -1
		for s := 1; s <= 60; s++ {
			time.Sleep(time.Second)
			after = f.rssMB(b)
			if back < 0 && after <= idle+20 {
				back = float64(s)
			}
			b.Logf("%2d s after the last answer: RSS %.1f MB (idle %.1f, peak %.1f)", s, after, idle, peak)
		}
	}
	b.ReportMetric(idle, "rss-idle-MB")
	b.ReportMetric(peak, "rss-peak-MB")
	b.ReportMetric(after, "rss-60s-MB")
	b.ReportMetric(back, "back-s")
}

// rssMB is the child's resident set size in MB, from /proc.
func (c *child) rssMB(b *testing.B) float64 {
	fh, err := os.Open(fmt.Sprintf("/proc/%d/status", c.cmd.Process.Pid))
	if err != nil {
		b.Fatal(err)
	}
	defer fh.Close()
	sc := bufio.NewScanner(fh)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			var kb float64
			fmt.Sscan(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), &kb)
			return kb / 1024
		}
	}
	b.Fatal("no VmRSS in /proc status")
	return 0
}
