package storetest

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/caddy-x402/caddy-x402/facilitator/store"
)

// Channels runs the payment channels' conformance tests.
func Channels(t *testing.T, b Backend[store.Channels]) {
	t.Run("ChannelsSync", func(t *testing.T) { channelsSync(t, b) })
	t.Run("ChannelsCharge", func(t *testing.T) { channelsCharge(t, b) })
	t.Run("ChannelsRace", func(t *testing.T) { channelsRace(t, b) })
	t.Run("ChannelsClaims", func(t *testing.T) { channelsClaims(t, b) })
	t.Run("ChannelsClaimFence", func(t *testing.T) { channelsClaimFence(t, b) })
	t.Run("ChannelsRefundSlot", func(t *testing.T) { channelsRefundSlot(t, b) })
	t.Run("ChannelsLists", func(t *testing.T) { channelsLists(t, b) })
	t.Run("ChannelsStatsAndPrune", func(t *testing.T) { channelsStatsAndPrune(t, b) })
	t.Run("ChannelsBadInput", func(t *testing.T) { channelsBadInput(t, b) })
	t.Run("ChannelsRefund", func(t *testing.T) { channelsRefund(t, b) })
}

// ChannelID is a test channel id from n.
func ChannelID(n int) string { return fmt.Sprintf("0x%064x", n) }

// ChannelCfg is a test channel config (mixed-case addresses, as clients send them).
func ChannelCfg() store.ChannelConfig {
	return store.ChannelConfig{Payer: payerA, PayerAuthorizer: "0x0000000000000000000000000000000000000000",
		Receiver: "0x00000000000000000000000000000000000000Cc", ReceiverAuthorizer: "0x00000000000000000000000000000000000000DD",
		Token: "0x00000000000000000000000000000000000000EE", WithdrawDelay: 900, Salt: "0x" + strings.Repeat("0A", 32)}
}

// Big parses a decimal amount.
func Big(s string) *big.Int {
	v, ok := new(big.Int).SetString(s, 10)
	if !ok {
		panic(s)
	}
	return v
}

// Voucher is a test voucher of max with a signature naming it.
func Voucher(max *big.Int) store.ChannelVoucher {
	return store.ChannelVoucher{Max: max, Signature: []byte("sig:" + max.String())}
}

func eq(a, b *big.Int) bool { return a != nil && b != nil && a.Cmp(b) == 0 }

// open creates channel n with balance.
func openChannel(t testing.TB, s store.Channels, n int, network string, balance *big.Int) {
	t.Helper()
	if _, err := s.Sync(context.Background(), ChannelID(n), network, ChannelCfg(), store.ChainState{Balance: balance, Claimed: new(big.Int), Block: 10}); err != nil {
		t.Fatal(err)
	}
}

func channelsSync(t *testing.T, b Backend[store.Channels]) {
	s := b.New(t)
	ctx := context.Background()
	id := strings.ToUpper(ChannelID(7))[2:]
	id = "0x" + id
	if c, err := s.Channel(ctx, id); c != nil || err != nil {
		t.Fatalf("Channel before any deposit = %+v, %v; want nil", c, err)
	}
	one := big.NewInt(1)
	if c, err := s.Charge(ctx, id, new(big.Int), one, Voucher(one)); !errors.Is(err, store.ErrChannelNotFound) || c != nil {
		t.Fatalf("Charge of an unknown channel = %+v, %v; want ErrChannelNotFound", c, err)
	}
	// The largest uint128 balance is kept exactly.
	huge := Big("340282366920938463463374607431768211455")
	withdraw := time.Unix(1_800_000_100, 0).UTC()
	c, err := s.Sync(ctx, id, "cronos-testnet", ChannelCfg(), store.ChainState{Balance: huge, Claimed: Big("5"), Block: 100, WithdrawRequestedAt: withdraw})
	if err != nil {
		t.Fatal(err)
	}
	// What the chain says is claimed counts as charged.
	if c.ID != strings.ToLower(id) || c.State != store.ChannelOpen || !eq(c.Charged, Big("5")) || !eq(c.Balance, huge) || !eq(c.Claimed, Big("5")) {
		t.Fatalf("Sync = %+v", c)
	}
	// An older reading changes no balance, and claimed never goes down
	// (nor does charged fall below it); a reading delivered twice changes
	// nothing.
	if c, err = s.Sync(ctx, id, "cronos-testnet", ChannelCfg(), store.ChainState{Balance: Big("1"), Claimed: Big("9"), Block: 99}); err != nil || !eq(c.Balance, huge) || !eq(c.Claimed, Big("9")) || !eq(c.Charged, Big("9")) || c.Block != 100 || !c.WithdrawRequestedAt.Equal(withdraw) {
		t.Fatalf("Sync of an older block = %+v, %v", c, err)
	}
	for i := 0; i < 2; i++ {
		if c, err = s.Sync(ctx, id, "cronos-testnet", ChannelCfg(), store.ChainState{Balance: Big("1000"), Claimed: Big("2"), Block: 101}); err != nil || !eq(c.Balance, Big("1000")) || !eq(c.Claimed, Big("9")) || !eq(c.Charged, Big("9")) || c.Block != 101 || !c.WithdrawRequestedAt.IsZero() {
			t.Fatalf("Sync of a newer block (%d) = %+v, %v", i, c, err)
		}
	}
	if b.Reopen != nil {
		s = b.Reopen(t, s)
	}
	got, err := s.Channel(ctx, strings.ToLower(id))
	if err != nil || got == nil {
		t.Fatalf("Channel = %+v, %v", got, err)
	}
	want := ChannelCfg()
	if got.Network != "cronos-testnet" || got.Config.Payer != strings.ToLower(want.Payer) || got.Config.Receiver != strings.ToLower(want.Receiver) ||
		got.Config.ReceiverAuthorizer != strings.ToLower(want.ReceiverAuthorizer) || got.Config.Token != strings.ToLower(want.Token) ||
		got.Config.WithdrawDelay != 900 || got.Config.Salt != strings.ToLower(want.Salt) || !eq(got.Balance, Big("1000")) ||
		!eq(got.Claimed, Big("9")) || !eq(got.Charged, Big("9")) || got.VoucherMax != nil || got.Block != 101 || got.LastActivity.IsZero() {
		t.Fatalf("Channel after reopening = %+v", got)
	}
}

func channelsCharge(t *testing.T, b Backend[store.Channels]) {
	s := b.New(t)
	ctx := context.Background()
	id := ChannelID(1)
	openChannel(t, s, 1, "net", Big("1000"))
	price := Big("300")
	// Three charges of 300 fit in 1000, the fourth does not.
	prev := new(big.Int)
	for i := 1; i <= 3; i++ {
		next := new(big.Int).Add(prev, price)
		c, err := s.Charge(ctx, id, prev, next, Voucher(next))
		if err != nil || !eq(c.Charged, next) || !eq(c.VoucherMax, next) || string(c.VoucherSignature) != "sig:"+next.String() {
			t.Fatalf("charge %d = %+v, %v", i, c, err)
		}
		prev = next
	}
	c, err := s.Charge(ctx, id, prev, Big("1200"), Voucher(Big("1200")))
	if !errors.Is(err, store.ErrChannelBalance) || c == nil || !eq(c.Charged, Big("900")) || !eq(c.Balance, Big("1000")) {
		t.Fatalf("charge beyond the balance = %+v, %v; want ErrChannelBalance with the current state", c, err)
	}
	// A voucher signed from a stale cumulative loses and learns the state.
	c, err = s.Charge(ctx, id, Big("600"), Big("900"), Voucher(Big("900")))
	if !errors.Is(err, store.ErrChannelConflict) || c == nil || !eq(c.Charged, Big("900")) || !eq(c.VoucherMax, Big("900")) || string(c.VoucherSignature) != "sig:900" {
		t.Fatalf("stale charge = %+v, %v; want ErrChannelConflict with the current state", c, err)
	}
	// Exactly to the balance; a metered charge below its voucher's max.
	if c, err = s.Charge(ctx, id, Big("900"), Big("950"), Voucher(Big("1000"))); err != nil || !eq(c.Charged, Big("950")) || !eq(c.VoucherMax, Big("1000")) {
		t.Fatalf("metered charge = %+v, %v", c, err)
	}
	// A top-up (a newer chain reading) makes room.
	if _, err := s.Sync(ctx, id, "net", ChannelCfg(), store.ChainState{Balance: Big("2000"), Claimed: new(big.Int), Block: 11}); err != nil {
		t.Fatal(err)
	}
	if c, err = s.Charge(ctx, id, Big("950"), Big("1250"), Voucher(Big("1250"))); err != nil || !eq(c.Charged, Big("1250")) || !eq(c.Balance, Big("2000")) {
		t.Fatalf("charge after the top-up = %+v, %v", c, err)
	}
	if b.Reopen != nil {
		s = b.Reopen(t, s)
	}
	if c, err = s.Channel(ctx, id); err != nil || !eq(c.Charged, Big("1250")) || string(c.VoucherSignature) != "sig:1250" || !eq(c.VoucherMax, Big("1250")) {
		t.Fatalf("after reopening = %+v, %v", c, err)
	}
	// A channel being refunded takes no charge.
	if ok, err := s.SetChannelState(ctx, id, store.ChannelOpen, store.ChannelRefunding); !ok || err != nil {
		t.Fatalf("SetChannelState = %v, %v", ok, err)
	}
	if c, err = s.Charge(ctx, id, Big("1250"), Big("1550"), Voucher(Big("1550"))); !errors.Is(err, store.ErrChannelNotOpen) || c == nil || c.State != store.ChannelRefunding {
		t.Fatalf("charge of a refunding channel = %+v, %v; want ErrChannelNotOpen", c, err)
	}
	// The largest amounts keep every digit, charged and read back: 2^128-1
	// (a voucher's bound) and one below it.
	top, below := Big("340282366920938463463374607431768211455"), Big("340282366920938463463374607431768211454")
	openChannel(t, s, 2, "net", top)
	for _, step := range [][2]*big.Int{{new(big.Int), below}, {below, top}} {
		if c, err = s.Charge(ctx, ChannelID(2), step[0], step[1], Voucher(step[1])); err != nil || !eq(c.Charged, step[1]) || !eq(c.VoucherMax, step[1]) || !eq(c.Balance, top) {
			t.Fatalf("charge %s to %s = %+v, %v", step[0], step[1], c, err)
		}
	}
	if c, err = s.Channel(ctx, ChannelID(2)); err != nil || !eq(c.Charged, top) || !eq(c.VoucherMax, top) {
		t.Fatalf("the channel charged to 2^128-1 reads %+v, %v", c, err)
	}
}

// channelsRace: goroutines (on two handles where the backend has peers)
// race to charge one channel: each cumulative step is won exactly once
// and the total never passes the balance.
func channelsRace(t *testing.T, b Backend[store.Channels]) {
	s := b.New(t)
	handles := []store.Channels{s}
	if b.Peer != nil {
		handles = append(handles, b.Peer(t, s))
	}
	ctx := context.Background()
	id := ChannelID(2)
	const steps, workers = 40, 8
	price := Big("1000000000000000000000") // 1e21: beyond 64 bits
	balance := new(big.Int).Mul(price, big.NewInt(steps))
	balance.Add(balance, Big("999")) // room for a part of a step only
	openChannel(t, s, 2, "net", balance)
	var (
		mu     sync.Mutex
		wonBy  = map[string]int{} // prev -> wins
		wins   int
		wg     sync.WaitGroup
		failed error
	)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(h store.Channels) {
			defer wg.Done()
			cur, err := h.Channel(ctx, id)
			for err == nil {
				prev := cur.Charged
				next := new(big.Int).Add(prev, price)
				c, cerr := h.Charge(ctx, id, prev, next, Voucher(next))
				switch {
				case cerr == nil:
					mu.Lock()
					wonBy[prev.String()]++
					wins++
					mu.Unlock()
					cur = c
				case errors.Is(cerr, store.ErrChannelConflict):
					if c.Charged.Cmp(prev) == 0 {
						err = fmt.Errorf("a conflict answered the stale state %s", prev)
					}
					cur = c
				case errors.Is(cerr, store.ErrChannelBalance):
					return
				default:
					err = cerr
				}
			}
			mu.Lock()
			if failed == nil {
				failed = err
			}
			mu.Unlock()
		}(handles[w%len(handles)])
	}
	wg.Wait()
	if failed != nil {
		t.Fatal(failed)
	}
	if wins != steps {
		t.Fatalf("%d charges won, want %d", wins, steps)
	}
	for prev, n := range wonBy {
		if n != 1 {
			t.Fatalf("the step from %s was won %d times", prev, n)
		}
	}
	c, err := s.Channel(ctx, id)
	if err != nil || !eq(c.Charged, new(big.Int).Mul(price, big.NewInt(steps))) || c.Charged.Cmp(c.Balance) > 0 {
		t.Fatalf("after the race: %+v, %v", c, err)
	}
}

func channelsClaims(t *testing.T, b Backend[store.Channels]) {
	s := b.New(t)
	ctx := context.Background()
	for n := 1; n <= 3; n++ {
		openChannel(t, s, n, "net-a", Big("1000"))
	}
	openChannel(t, s, 4, "net-b", Big("1000"))
	for _, n := range []int{2, 1, 4} {
		if _, err := s.Charge(ctx, ChannelID(n), new(big.Int), Big("100"), Voucher(Big("100"))); err != nil {
			t.Fatal(err)
		}
		time.Sleep(2 * time.Millisecond) // distinct activity times
	}
	ids := func(cs []*store.Channel) string {
		var out []string
		for _, c := range cs {
			out = append(out, c.ID[len(c.ID)-1:])
		}
		return strings.Join(out, ",")
	}
	if cs, err := s.ToClaim(ctx, "net-a", 0); err != nil || ids(cs) != "2,1" {
		t.Fatalf("ToClaim(net-a) = %s, %v; want 2,1 (the least recently charged first)", ids(cs), err)
	}
	if cs, err := s.ToClaim(ctx, "net-a", 1); err != nil || ids(cs) != "2" {
		t.Fatalf("ToClaim(net-a, 1) = %s, %v; want 2", ids(cs), err)
	}
	// Claims only go up; a claimed channel is not listed.
	if err := s.MarkClaimed(ctx, ChannelID(2), Big("100")); err != nil {
		t.Fatal(err)
	}
	if err := s.MarkClaimed(ctx, ChannelID(2), Big("40")); err != nil {
		t.Fatal(err)
	}
	if err := s.MarkClaimed(ctx, ChannelID(9), Big("40")); !errors.Is(err, store.ErrChannelNotFound) {
		t.Fatalf("MarkClaimed of an unknown channel: %v", err)
	}
	if b.Reopen != nil {
		s = b.Reopen(t, s)
	}
	if c, err := s.Channel(ctx, ChannelID(2)); err != nil || !eq(c.Claimed, Big("100")) {
		t.Fatalf("claimed after MarkClaimed 100 then 40 = %+v, %v; want 100", c, err)
	}
	if cs, err := s.ToClaim(ctx, "net-a", 0); err != nil || ids(cs) != "1" {
		t.Fatalf("ToClaim(net-a) after the claim = %s, %v; want 1", ids(cs), err)
	}
	// A charge never goes below what is claimed.
	if _, err := s.Charge(ctx, ChannelID(2), Big("100"), Big("50"), Voucher(Big("100"))); !errors.Is(err, store.ErrBadCharge) {
		t.Fatalf("a charge below the claimed: %v, want ErrBadCharge", err)
	}
	if c, err := s.Charge(ctx, ChannelID(2), Big("100"), Big("200"), Voucher(Big("200"))); err != nil || !eq(c.Charged, Big("200")) {
		t.Fatalf("a charge after the claim = %+v, %v", c, err)
	}
	if cs, err := s.ToClaim(ctx, "net-a", 0); err != nil || ids(cs) != "1,2" {
		t.Fatalf("ToClaim(net-a) after another charge = %s, %v; want 1,2", ids(cs), err)
	}
	// A total claimed on chain above the charged one (claimed elsewhere)
	// is charged: the next voucher goes on from it.
	if err := s.MarkClaimed(ctx, ChannelID(3), Big("300")); err != nil {
		t.Fatal(err)
	}
	if c, err := s.Channel(ctx, ChannelID(3)); err != nil || !eq(c.Charged, Big("300")) || !eq(c.Claimed, Big("300")) {
		t.Fatalf("after MarkClaimed above charged: %+v, %v; want charged = claimed = 300", c, err)
	}
	if _, err := s.Charge(ctx, ChannelID(3), new(big.Int), Big("100"), Voucher(Big("100"))); !errors.Is(err, store.ErrChannelConflict) {
		t.Fatalf("a charge from below the claimed total: %v, want ErrChannelConflict", err)
	}
}

// channelsClaimFence: a claim's fence (FenceClaim) keeps every charge at
// or above the total being claimed, as Claimed does, until the claim is
// marked; it is refused when the channel was charged down below it since
// the claim round read it.
func channelsClaimFence(t *testing.T, b Backend[store.Channels]) {
	s := b.New(t)
	ctx := context.Background()
	id := ChannelID(1)
	openChannel(t, s, 1, "net-a", Big("10000"))
	if _, err := s.Charge(ctx, id, new(big.Int), Big("5000"), Voucher(Big("5000"))); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		id    string
		total *big.Int
		want  bool
		err   error
	}{
		{id, Big("6000"), false, nil},              // charged is below it: a later round
		{ChannelID(9), Big("1000"), false, nil},    // no record
		{id, Big("-1"), false, store.ErrBadCharge}, // out of range
		{id, new(big.Int).Lsh(big.NewInt(1), 256), false, store.ErrBadCharge},
		{id, Big("4000"), true, nil},
		{id, Big("3000"), true, nil}, // a lower claim leaves the fence where it is
	} {
		if got, err := s.FenceClaim(ctx, tc.id, tc.total); got != tc.want || !errors.Is(err, tc.err) || (tc.err == nil && err != nil) {
			t.Fatalf("FenceClaim(%s, %s) = %v, %v; want %v, %v", tc.id[len(tc.id)-1:], tc.total, got, err, tc.want, tc.err)
		}
	}
	if b.Reopen != nil {
		s = b.Reopen(t, s)
	}
	if c, err := s.Channel(ctx, id); err != nil || !eq(c.Claiming, Big("4000")) || !eq(c.Floor(), Big("4000")) || !eq(c.Claimed, new(big.Int)) {
		t.Fatalf("record after fencing 4000 then 3000 = %+v, %v; want Claiming 4000, Claimed 0", c, err)
	}
	// A give-back below the fence is refused with the record; one down
	// to it is made.
	c, err := s.Charge(ctx, id, Big("5000"), Big("3999"), Voucher(Big("5000")))
	if !errors.Is(err, store.ErrBadCharge) || c == nil || !eq(c.Charged, Big("5000")) || !eq(c.Claiming, Big("4000")) {
		t.Fatalf("a charge below the fence = %+v, %v; want ErrBadCharge and the record (charged 5000, claiming 4000)", c, err)
	}
	if c, err := s.Charge(ctx, id, Big("5000"), Big("4000"), Voucher(Big("5000"))); err != nil || !eq(c.Charged, Big("4000")) || !eq(c.Claiming, Big("4000")) {
		t.Fatalf("a charge down to the fence = %+v, %v; want charged 4000", c, err)
	}
	if _, err := s.Charge(ctx, id, Big("4000"), Big("4500"), Voucher(Big("4500"))); err != nil {
		t.Fatalf("a charge above the fence: %v", err)
	}
	// Once the claim is marked, Claimed is the floor.
	if err := s.MarkClaimed(ctx, id, Big("4000")); err != nil {
		t.Fatal(err)
	}
	if ok, err := s.FenceClaim(ctx, id, Big("4500")); !ok || err != nil {
		t.Fatalf("FenceClaim(4500) = %v, %v; want true", ok, err)
	}
	if _, err := s.Charge(ctx, id, Big("4500"), Big("4400"), Voucher(Big("4500"))); !errors.Is(err, store.ErrBadCharge) {
		t.Fatalf("a charge below the second fence: %v, want ErrBadCharge", err)
	}
	if c, err := s.Channel(ctx, id); err != nil || !eq(c.Floor(), Big("4500")) || !eq(c.Claimed, Big("4000")) || !eq(c.Charged, Big("4500")) {
		t.Fatalf("record = %+v, %v; want charged 4500, claimed 4000, floor 4500", c, err)
	}
}

// channelsRefundSlot: one refund on a public voucher per channel per
// window (TakeRefundSlot), of all the callers asking at once; a slot given
// back (ReturnRefundSlot) by its taker is free again, by another not.
func channelsRefundSlot(t *testing.T, b Backend[store.Channels]) {
	s := b.New(t)
	ctx := context.Background()
	id := ChannelID(1)
	openChannel(t, s, 1, "net-a", Big("1000"))
	const window = 10 * time.Minute
	t0 := time.Date(2026, 11, 29, 12, 0, 0, 123456789, time.UTC)
	take := func(at time.Time, want bool) {
		t.Helper()
		if ok, err := s.TakeRefundSlot(ctx, id, at, window); ok != want || err != nil {
			t.Fatalf("TakeRefundSlot(%s) = %v, %v; want %v", at.Sub(t0), ok, err, want)
		}
	}
	// Eight callers at once: one takes it.
	var won atomic.Int32
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if ok, err := s.TakeRefundSlot(ctx, id, t0, window); err != nil {
				t.Error(err)
			} else if ok {
				won.Add(1)
			}
		}()
	}
	wg.Wait()
	if won.Load() != 1 {
		t.Fatalf("%d of 8 callers at once took the slot, want 1", won.Load())
	}
	take(t0.Add(5*time.Minute), false)
	if b.Reopen != nil {
		s = b.Reopen(t, s)
	}
	if c, err := s.Channel(ctx, id); err != nil || !c.RefundSlotAt.Equal(store.SlotTime(t0)) {
		t.Fatalf("record after the take: %+v, %v; want RefundSlotAt %s", c, err, store.SlotTime(t0))
	}
	take(t0.Add(window-time.Microsecond), false)
	// Given back by another than its taker: still taken.
	if err := s.ReturnRefundSlot(ctx, id, t0.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	take(t0.Add(9*time.Minute), false)
	take(t0.Add(window), true) // a window later
	// Given back by its taker: free again.
	if err := s.ReturnRefundSlot(ctx, id, t0.Add(window)); err != nil {
		t.Fatal(err)
	}
	if c, err := s.Channel(ctx, id); err != nil || !c.RefundSlotAt.IsZero() {
		t.Fatalf("record after the slot was given back: %+v, %v; want no RefundSlotAt", c, err)
	}
	take(t0.Add(window+time.Second), true)
	if ok, err := s.TakeRefundSlot(ctx, ChannelID(9), t0, window); ok || err != nil {
		t.Fatalf("TakeRefundSlot of an unknown channel = %v, %v; want false", ok, err)
	}
	if _, err := s.TakeRefundSlot(ctx, "0x12", t0, window); err == nil {
		t.Fatal("TakeRefundSlot of a malformed id: no error")
	}
}

func channelsStatsAndPrune(t *testing.T, b Backend[store.Channels]) {
	s := b.New(t)
	ctx := context.Background()
	for n := 1; n <= 3; n++ {
		openChannel(t, s, n, "net-a", Big("1000000000000000000000000"))
	}
	openChannel(t, s, 4, "net-b", Big("1000"))
	if st, err := s.ChannelStats(ctx); err != nil || len(st) != 2 || st["net-a"].Open != 3 || st["net-a"].Unclaimed.Sign() != 0 || st["net-b"].Open != 1 {
		t.Fatalf("ChannelStats of new channels = %+v, %v", st, err)
	}
	big1 := Big("900000000000000000000000")
	for _, n := range []int{1, 2} {
		if _, err := s.Charge(ctx, ChannelID(n), new(big.Int), big1, Voucher(big1)); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.MarkClaimed(ctx, ChannelID(2), Big("400000000000000000000000")); err != nil {
		t.Fatal(err)
	}
	if ok, err := s.SetChannelState(ctx, ChannelID(3), store.ChannelOpen, store.ChannelClosed); !ok || err != nil {
		t.Fatalf("SetChannelState = %v, %v", ok, err)
	}
	st, err := s.ChannelStats(ctx)
	if a := st["net-a"]; err != nil || a.Open != 2 || !eq(a.Unclaimed, Big("1400000000000000000000000")) || !eq(a.Claimed, Big("400000000000000000000000")) {
		t.Fatalf("ChannelStats(net-a) = %+v, %v; want 2 open, 1.4e24 unclaimed, 4e23 claimed", st["net-a"], err)
	}
	// Only closed channels are pruned, and only once idle long enough.
	if n, err := s.PruneChannels(ctx, time.Now().Add(-time.Hour)); n != 0 || err != nil {
		t.Fatalf("PruneChannels an hour ago = %d, %v; want 0", n, err)
	}
	if n, err := s.PruneChannels(ctx, time.Now().Add(time.Second)); n != 1 || err != nil {
		t.Fatalf("PruneChannels = %d, %v; want 1 (the closed channel)", n, err)
	}
	if c, err := s.Channel(ctx, ChannelID(3)); c != nil || err != nil {
		t.Fatalf("the pruned channel = %+v, %v", c, err)
	}
	if c, err := s.Channel(ctx, ChannelID(1)); c == nil || err != nil {
		t.Fatalf("an open channel after the prune = %+v, %v", c, err)
	}
}

func channelsLists(t *testing.T, b Backend[store.Channels]) {
	s := b.New(t)
	ctx := context.Background()
	openChannel(t, s, 1, "net", Big("1000"))
	openChannel(t, s, 2, "net", Big("1000"))
	openChannel(t, s, 3, "net", Big("1000"))
	time.Sleep(5 * time.Millisecond)
	cut := time.Now()
	time.Sleep(5 * time.Millisecond)
	if _, err := s.Charge(ctx, ChannelID(2), new(big.Int), Big("1"), Voucher(Big("1"))); err != nil {
		t.Fatal(err)
	}
	if ok, err := s.SetChannelState(ctx, ChannelID(3), store.ChannelOpen, store.ChannelClosed); !ok || err != nil {
		t.Fatalf("SetChannelState = %v, %v", ok, err)
	}
	if ok, err := s.SetChannelState(ctx, ChannelID(3), store.ChannelOpen, store.ChannelRefunding); ok || err != nil {
		t.Fatalf("SetChannelState from a state it is not in = %v, %v; want false", ok, err)
	}
	if cs, err := s.Idle(ctx, cut, 0); err != nil || len(cs) != 1 || cs[0].ID != ChannelID(1) {
		t.Fatalf("Idle = %v, %v; want channel 1 only (2 was charged since, 3 is closed)", cs, err)
	}
	at := time.Unix(1_800_000_000, 0).UTC()
	for i, n := range []int{2, 1} {
		if _, err := s.Sync(ctx, ChannelID(n), "net", ChannelCfg(), store.ChainState{Balance: Big("1000"), Claimed: new(big.Int), Block: 20, WithdrawRequestedAt: at.Add(time.Duration(i) * time.Minute)}); err != nil {
			t.Fatal(err)
		}
	}
	if b.Reopen != nil {
		s = b.Reopen(t, s)
	}
	cs, err := s.Withdrawing(ctx, nil, 0)
	if err != nil || len(cs) != 2 || cs[0].ID != ChannelID(2) || cs[1].ID != ChannelID(1) || !cs[0].WithdrawRequestedAt.Equal(at) {
		t.Fatalf("Withdrawing = %v, %v; want 2 then 1", cs, err)
	}
	// Paged: one a page, each after the last of the one before, then
	// none. Channel 3 asks at the same moment as 1: the id orders them.
	if _, err := s.Sync(ctx, ChannelID(3), "net", ChannelCfg(), store.ChainState{Balance: Big("1000"), Claimed: new(big.Int), Block: 20, WithdrawRequestedAt: at.Add(time.Minute)}); err != nil {
		t.Fatal(err)
	}
	var after *store.Channel
	for _, want := range []int{2, 1, 3} {
		cs, err := s.Withdrawing(ctx, after, 1)
		if err != nil || len(cs) != 1 || cs[0].ID != ChannelID(want) {
			t.Fatalf("Withdrawing after %v = %v, %v; want channel %d", after, cs, err, want)
		}
		after = cs[0]
	}
	if cs, err := s.Withdrawing(ctx, after, 1); err != nil || len(cs) != 0 {
		t.Fatalf("Withdrawing after the last = %v, %v; want none", cs, err)
	}
}

func channelsBadInput(t *testing.T, b Backend[store.Channels]) {
	s := b.New(t)
	ctx := context.Background()
	openChannel(t, s, 1, "net", Big("1000"))
	id := ChannelID(1)
	tooBig := Big("340282366920938463463374607431768211456") // 2^128
	for _, tc := range []struct {
		name          string
		id            string
		prev, charged *big.Int
		v             store.ChannelVoucher
	}{
		{"short id", "0x01", new(big.Int), Big("1"), Voucher(Big("1"))},
		{"negative", id, Big("-1"), Big("1"), Voucher(Big("1"))},
		{"above uint128", id, new(big.Int), tooBig, Voucher(tooBig)},
		{"above its voucher", id, new(big.Int), Big("2"), Voucher(Big("1"))},
		{"no signature", id, new(big.Int), Big("1"), store.ChannelVoucher{Max: Big("1")}},
		{"oversized signature", id, new(big.Int), Big("1"), store.ChannelVoucher{Max: Big("1"), Signature: make([]byte, 5000)}},
		{"nil amount", id, nil, Big("1"), Voucher(Big("1"))},
	} {
		if _, err := s.Charge(ctx, tc.id, tc.prev, tc.charged, tc.v); !errors.Is(err, store.ErrBadCharge) {
			t.Errorf("Charge (%s): %v, want ErrBadCharge", tc.name, err)
		}
	}
	bad := ChannelCfg()
	bad.Token = "0x12"
	if _, err := s.Sync(ctx, ChannelID(5), "net", bad, store.ChainState{Balance: Big("1"), Claimed: new(big.Int)}); !errors.Is(err, store.ErrBadCharge) {
		t.Errorf("Sync with a bad token address: %v, want ErrBadCharge", err)
	}
	if _, err := s.Sync(ctx, ChannelID(5), "net", ChannelCfg(), store.ChainState{Claimed: new(big.Int)}); !errors.Is(err, store.ErrBadCharge) {
		t.Errorf("Sync without a balance: %v, want ErrBadCharge", err)
	}
	if _, err := s.SetChannelState(ctx, id, store.ChannelOpen, "gone"); !errors.Is(err, store.ErrBadCharge) {
		t.Errorf("SetChannelState to an unknown state: %v, want ErrBadCharge", err)
	}
	if c, _ := s.Channel(ctx, id); c == nil || c.Charged.Sign() != 0 || c.State != store.ChannelOpen {
		t.Fatalf("the refused calls changed the channel: %+v", c)
	}
}

// channelsRefund: the refund nonce read from the chain is kept (it only
// rises, whatever the block order), survives a reopen, and a channel in
// state refunding is listed by Refunding and refuses charges.
func channelsRefund(t *testing.T, b Backend[store.Channels]) {
	s := b.New(t)
	ctx := context.Background()
	id := ChannelID(41)
	c, err := s.Sync(ctx, id, "cronos-testnet", ChannelCfg(), store.ChainState{Balance: Big("1000"), Claimed: Big("0"), Block: 10})
	if err != nil || !eq(c.RefundNonce, Big("0")) {
		t.Fatalf("Sync without a refund nonce = %+v, %v; want refund nonce 0", c, err)
	}
	if c, err = s.Sync(ctx, id, "cronos-testnet", ChannelCfg(), store.ChainState{Balance: Big("1000"), Claimed: Big("0"), Block: 12, RefundNonce: Big("3")}); err != nil || !eq(c.RefundNonce, Big("3")) {
		t.Fatalf("Sync of refund nonce 3 = %+v, %v", c, err)
	}
	// An older reading, or a lower nonce, lowers nothing.
	if c, err = s.Sync(ctx, id, "cronos-testnet", ChannelCfg(), store.ChainState{Balance: Big("1000"), Claimed: Big("0"), Block: 11, RefundNonce: Big("1")}); err != nil || !eq(c.RefundNonce, Big("3")) {
		t.Fatalf("Sync of an older refund nonce = %+v, %v", c, err)
	}
	openChannel(t, s, 42, "cronos-testnet", Big("1000"))
	if moved, err := s.SetChannelState(ctx, id, store.ChannelOpen, store.ChannelRefunding); !moved || err != nil {
		t.Fatalf("SetChannelState open -> refunding = %v, %v", moved, err)
	}
	if _, err := s.Charge(ctx, id, Big("0"), Big("10"), Voucher(Big("10"))); err != store.ErrChannelNotOpen {
		t.Fatalf("Charge of a refunding channel: %v; want ErrChannelNotOpen", err)
	}
	if b.Reopen != nil {
		s = b.Reopen(t, s)
	}
	list, err := s.Refunding(ctx, 10)
	if err != nil || len(list) != 1 || list[0].ID != id || !eq(list[0].RefundNonce, Big("3")) {
		t.Fatalf("Refunding = %+v, %v; want channel %s with refund nonce 3", list, err, id)
	}
	if moved, err := s.SetChannelState(ctx, id, store.ChannelRefunding, store.ChannelClosed); !moved || err != nil {
		t.Fatalf("SetChannelState refunding -> closed = %v, %v", moved, err)
	}
	if list, err := s.Refunding(ctx, 10); err != nil || len(list) != 0 {
		t.Fatalf("Refunding after closing = %+v, %v; want none", list, err)
	}
	if _, err := s.Sync(ctx, id, "cronos-testnet", ChannelCfg(), store.ChainState{Balance: Big("1000"), Claimed: Big("0"), Block: 13, RefundNonce: Big("-1")}); err == nil {
		t.Fatal("Sync of a negative refund nonce succeeded")
	}
}
