package paywall

import (
	"context"
	"fmt"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/caddy-x402/caddy-x402/facilitator/batchsettlement/batch"
	"github.com/caddy-x402/caddy-x402/facilitator/store"
	"github.com/caddy-x402/caddy-x402/facilitator/store/memory"
	"github.com/caddy-x402/caddy-x402/facilitator/store/postgres"
	"github.com/caddy-x402/caddy-x402/internal/pgtest"
)

// spanChain is the chain as the withdraw watch sees it, at a given head
// with no withdraw logs; it records the block spans the watch asks for.
type spanChain struct {
	head  uint64
	spans [][2]uint64
}

func (c *spanChain) ChainHead(context.Context, string) (uint64, error) { return c.head, nil }

func (c *spanChain) WithdrawLogs(_ context.Context, _ string, from, to uint64) ([]common.Hash, error) {
	c.spans = append(c.spans, [2]uint64{from, to})
	return nil, nil
}

func (c *spanChain) ChannelState(context.Context, string, common.Hash, uint64) (batch.ChannelState, error) {
	return batch.ChannelState{}, fmt.Errorf("no channel state in this test")
}

// watchRoute is a channel route as far as the withdraw watch goes: one
// option, its channel store and the chain it reads.
func watchRoute(t *testing.T, chans store.Channels, chain withdrawChain) *chanRoute {
	h, _ := testHandler(t, &fakeClient{}, false)
	cr := chanRouteOf(h, chans)
	cr.chain, cr.opts = chain, []chanOption{{payTo: common.HexToAddress(h.PayTo)}}
	return cr
}

// TestWithdrawWatchResumes: the first withdraw scan ever reads a bounded
// span back (withdrawLookback); the instance that takes the claiming
// role over (another instance on the same PostgreSQL) resumes at the
// block after the last one read, not a fixed span back from its head.
func TestWithdrawWatchResumes(t *testing.T) {
	dsn := pgtest.Shared(t).DSN(t)
	open := func() store.Channels {
		p, err := postgres.Open(context.Background(), dsn, postgres.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { p.Close() })
		return p.Redemptions()
	}
	ctx := context.Background()
	chainA := &spanChain{head: 50_000}
	hA := watchRoute(t, open(), chainA)
	hA.watchWithdraws(ctx, 0)
	if n := len(chainA.spans); n == 0 || chainA.spans[0][0] != 50_000-withdrawLookback || chainA.spans[n-1][1] != 50_000 {
		t.Fatalf("the first scan read %v; want %d..50000", chainA.spans, 50_000-withdrawLookback)
	}

	// A stops leading; B takes the role over, the chain 100 blocks on.
	chainB := &spanChain{head: 50_100}
	hB := watchRoute(t, open(), chainB)
	hB.watchWithdraws(ctx, 0)
	if want := [][2]uint64{{50_001, 50_100}}; fmt.Sprint(chainB.spans) != fmt.Sprint(want) {
		t.Fatalf("the new leader read %v; want %v (from the block after the last one read)", chainB.spans, want)
	}

	// A paused leader that writes an older mark does not set it back.
	wm := hA.store.(store.WatchMarks)
	if err := wm.SetWatchMark(ctx, hA.watchKey(0), 50_001); err != nil {
		t.Fatal(err)
	}
	if mark, ok, err := wm.WatchMark(ctx, hA.watchKey(0)); mark != 50_101 || !ok || err != nil {
		t.Fatalf("mark after an older write = %d, %v, %v; want 50101", mark, ok, err)
	}
}

// TestWithdrawPendingPages: with more channels asking to withdraw than
// one page (maxClaimRows), the one with charges to claim is found
// however far down the list it is.
func TestWithdrawPendingPages(t *testing.T) {
	ctx := context.Background()
	chans := memory.NewRedemptions().(store.Channels)
	rt := watchRoute(t, chans, &spanChain{})
	network := rt.pricing.options[0].reqs.Network
	cfg := store.ChannelConfig{Payer: "0x00000000000000000000000000000000000000Aa", PayerAuthorizer: "0x0000000000000000000000000000000000000000",
		Receiver: rt.opts[0].payTo.Hex(), ReceiverAuthorizer: "0x00000000000000000000000000000000000000DD",
		Token: "0x00000000000000000000000000000000000000EE", WithdrawDelay: 900, Salt: "0x" + strings.Repeat("0A", 32)}
	at := time.Unix(1_800_000_000, 0).UTC()
	const n = maxClaimRows + 2
	for i := 1; i <= n; i++ {
		id := fmt.Sprintf("0x%064x", i)
		if _, err := chans.Sync(ctx, id, network, cfg, store.ChainState{Balance: big.NewInt(1000), Claimed: new(big.Int), Block: 10,
			WithdrawRequestedAt: at.Add(time.Duration(i) * time.Second)}); err != nil {
			t.Fatal(err)
		}
	}
	if rt.withdrawPending(ctx, 0) {
		t.Fatal("withdrawPending with nothing charged: true")
	}
	// The channel that asked last is charged: it is on the second page.
	if _, err := chans.Charge(ctx, fmt.Sprintf("0x%064x", n), new(big.Int), big.NewInt(1),
		store.ChannelVoucher{Max: big.NewInt(1), Signature: []byte("sig")}); err != nil {
		t.Fatal(err)
	}
	if !rt.withdrawPending(ctx, 0) {
		t.Fatalf("withdrawPending with the last of %d withdrawing channels charged: false; want true", n)
	}
}

var _ withdrawChain = facilitatorChain{}
