package bolt_test

import (
	"bufio"
	"context"
	"fmt"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/caddy-x402/caddy-x402/facilitator/store"
	"github.com/caddy-x402/caddy-x402/facilitator/store/bolt"
	"github.com/caddy-x402/caddy-x402/facilitator/store/storetest"
)

// envChargeChild makes the test binary the child of
// TestBoltChannelChargeSurvivesKill: it charges the bbolt store at this
// path and prints each charge answered.
const envChargeChild = "X402_TEST_CHANNEL_CHARGE_CHILD"

// TestBoltChannelChargeSurvivesKill: a child process charges one channel
// of a bbolt store as fast as it can and prints every charge the store
// answered OK; it is killed (SIGKILL) mid-way, and the store reopened
// holds every printed charge (a charge is logged before it is answered,
// and checkpointed into bbolt only every interval). A torn record at
// the log's tail (a write cut by power loss) is dropped at reopen.
func TestBoltChannelChargeSurvivesKill(t *testing.T) {
	if path := os.Getenv(envChargeChild); path != "" {
		chargeChild(t, path)
		return
	}
	path := filepath.Join(t.TempDir(), "redemptions.db")
	id := storetest.ChannelID(1)
	for round := range 3 {
		cmd := exec.Command(os.Args[0], "-test.run", "^TestBoltChannelChargeSurvivesKill$", "-test.count=1")
		cmd.Env = append(os.Environ(), envChargeChild+"="+path)
		cmd.Stderr = os.Stderr
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(out)
		var last string
		n := 0
		for sc.Scan() {
			line := sc.Text()
			if !strings.HasPrefix(line, "charged ") {
				continue
			}
			last, n = strings.TrimPrefix(line, "charged "), n+1
			if n == 1500+round*700 {
				if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
					t.Fatal(err)
				}
			}
		}
		_ = cmd.Wait()
		if n < 1500 {
			t.Fatalf("round %d: the child printed %d charges before it ended, want it killed after 1500", round, n)
		}
		// A torn record at the tail of the newest log file, as power loss
		// may leave.
		logs, _ := filepath.Glob(path + ".channels-log.*")
		slices.Sort(logs)
		if len(logs) > 0 {
			f, err := os.OpenFile(logs[len(logs)-1], os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				t.Fatal(err)
			}
			f.Write([]byte{0, 0, 1, 0, 0xde, 0xad, 0xbe, 0xef, 0, 0, 0, 0, 0, 0, 0, 9, '{', '"'})
			f.Close()
		}
		r, err := bolt.OpenRedemptions(path)
		if err != nil {
			t.Fatalf("round %d: reopening after kill -9: %v", round, err)
		}
		c, err := r.(store.Channels).Channel(context.Background(), id)
		r.Close()
		if err != nil || c == nil {
			t.Fatalf("round %d: the channel after kill -9: %v, %v", round, c, err)
		}
		want, _ := new(big.Int).SetString(last, 10)
		// The charge the child was making when killed may be there too.
		if c.Charged.Cmp(want) < 0 || c.Charged.Cmp(new(big.Int).Add(want, big.NewInt(1))) > 0 {
			t.Fatalf("round %d: after kill -9 the channel's charged is %s; the last charge answered OK was %s", round, c.Charged, last)
		}
		t.Logf("round %d: %d charges answered, charged %s after kill -9 and reopen", round, n, c.Charged)
	}
}

// chargeChild charges channel 1 of the store at path by 1 at a time, from
// what the store holds, printing each charge answered, until killed.
func chargeChild(t *testing.T, path string) {
	r, err := bolt.OpenRedemptions(path)
	if err != nil {
		t.Fatal(err)
	}
	s := r.(store.Channels)
	ctx := context.Background()
	id := storetest.ChannelID(1)
	c, err := s.Channel(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if c == nil {
		balance := new(big.Int).Lsh(big.NewInt(1), 100)
		if c, err = s.Sync(ctx, id, "net", storetest.ChannelCfg(), store.ChainState{Balance: balance, Claimed: new(big.Int), Block: 1}); err != nil {
			t.Fatal(err)
		}
	}
	prev := c.Charged
	sig := make([]byte, 65)
	for range 1_000_000 {
		cur := new(big.Int).Add(prev, big.NewInt(1))
		if _, err := s.Charge(ctx, id, prev, cur, store.ChannelVoucher{Max: cur, Signature: sig}); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(os.Stdout, "charged %s\n", cur)
		prev = cur
	}
}
