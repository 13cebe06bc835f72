package bolt

import (
	"context"
	"math/big"
	"os"
	"path/filepath"
	"testing"

	"github.com/caddy-x402/caddy-x402/facilitator/store"
)

// TestChannelLogReplaySkipsWhatBboltHolds: charges logged, then a write
// that commits them to bbolt with a newer state (MarkClaimed above what
// was charged raises charged); the process dies before the log file is
// removed (the file is put back as it was); reopening replays nothing
// that bbolt already holds, so the newer state stays.
func TestChannelLogReplaySkipsWhatBboltHolds(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "redemptions.db")
	open := func() *redemptions {
		r, err := OpenRedemptions(path)
		if err != nil {
			t.Fatal(err)
		}
		return r.(*redemptions)
	}
	r := open()
	s := r.channels
	id := "0xab000000000000000000000000000000000000000000000000000000000000cd"
	cfg := store.ChannelConfig{Payer: "0x00000000000000000000000000000000000000a1", PayerAuthorizer: "0x00000000000000000000000000000000000000a1",
		Receiver: "0x00000000000000000000000000000000000000b2", ReceiverAuthorizer: "0x00000000000000000000000000000000000000c3",
		Token: "0x00000000000000000000000000000000000000d4", WithdrawDelay: 900, Salt: "0x" + "00000000000000000000000000000000000000000000000000000000000000e5"}
	if _, err := s.Sync(ctx, id, "net", cfg, store.ChainState{Balance: big.NewInt(100), Claimed: new(big.Int), Block: 1}); err != nil {
		t.Fatal(err)
	}
	for i := int64(1); i <= 3; i++ {
		if _, err := s.Charge(ctx, id, big.NewInt(i-1), big.NewInt(i), store.ChannelVoucher{Max: big.NewInt(i), Signature: []byte{byte(i)}}); err != nil {
			t.Fatal(err)
		}
	}
	logs, _ := filepath.Glob(path + ".channels-log.*")
	if len(logs) != 1 {
		t.Fatalf("log files %v, want one", logs)
	}
	saved, err := os.ReadFile(logs[0])
	if err != nil || len(saved) == 0 {
		t.Fatalf("the log holds %d bytes (%v), want the three charges", len(saved), err)
	}
	if err := s.MarkClaimed(ctx, id, big.NewInt(5)); err != nil {
		t.Fatal(err)
	}
	// The process dies: bbolt closed without the log's close, the old log
	// file still there.
	r.channels.log.stop <- struct{}{}
	r.db.Close()
	if err := os.WriteFile(logs[0], saved, 0o600); err != nil {
		t.Fatal(err)
	}
	r = open()
	defer r.Close()
	c, err := r.Channel(ctx, id)
	if err != nil || c == nil {
		t.Fatal(c, err)
	}
	if c.Charged.Int64() != 5 || c.Claimed.Int64() != 5 {
		t.Fatalf("after reopening: charged %s claimed %s, want 5 and 5 (the logged charges were in bbolt already)", c.Charged, c.Claimed)
	}
}
