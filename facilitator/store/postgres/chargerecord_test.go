package postgres

import (
	"bytes"
	"context"
	"fmt"
	"math/big"
	"testing"
	"time"

	"github.com/caddy-x402/caddy-x402/facilitator/store"
	"github.com/caddy-x402/caddy-x402/facilitator/store/storetest"
	"github.com/caddy-x402/caddy-x402/internal/pgtest"
)

// TestPostgresChargeRecord: the record a charge answers is the record the
// database holds after it, field by field, for a lone charge and a group,
// whether the store's memo holds the channel (the charge returns only the
// chain's readings, chargedCols, and makes the rest) or not (the whole
// record, which fills the memo). A mark in the memo's network shows which
// way each charge went.
func TestPostgresChargeRecord(t *testing.T) {
	dsn := pgtest.Shared(t).DSN(t)
	s := openGroupTest(t, dsn)
	ctx := context.Background()
	// A chain reading with a withdrawal and a refund nonce, so that every
	// field the charge does not write has a value to carry.
	if _, err := s.Sync(ctx, storetest.ChannelID(1), "net", storetest.ChannelCfg(), store.ChainState{Balance: big.NewInt(1000),
		Claimed: big.NewInt(2), Block: 7, WithdrawRequestedAt: time.Date(2026, 11, 29, 1, 2, 3, 0, time.UTC), RefundNonce: big.NewInt(3)}); err != nil {
		t.Fatal(err)
	}
	charged := map[int]int64{1: 2} // channel -> charged so far
	charge := func(ch int, by int64) *queuedCharge {
		prev := big.NewInt(charged[ch])
		charged[ch] += by
		next := big.NewInt(charged[ch])
		return &queuedCharge{key: storetest.ChannelID(ch), prev: prev, charged: next, v: storetest.Voucher(next), done: make(chan struct{})}
	}
	for _, tc := range []struct {
		name     string
		channels []int
		known    bool // the memo holds the channels before the charge
		drop     int  // but not this one
	}{
		{"lone, not known", []int{1}, false, 0},
		{"lone, known", []int{1}, true, 0},
		{"group, not known", []int{1, 2, 3}, false, 0},
		{"group, known", []int{1, 2, 3}, true, 0},
		{"group, one not known", []int{1, 2, 4}, true, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s.known = channelMemo{}
			if tc.known {
				for _, ch := range tc.channels {
					if _, err := s.Channel(ctx, storetest.ChannelID(ch)); err != nil {
						t.Fatal(err)
					}
					kc := s.known.m[storetest.ChannelID(ch)]
					kc.network = "marked" // an answer made from the memo carries it; a record read whole replaces it
					s.known.m[storetest.ChannelID(ch)] = kc
				}
				delete(s.known.m, storetest.ChannelID(tc.drop))
			}
			var g []*queuedCharge
			for _, ch := range tc.channels {
				g = append(g, charge(ch, 5))
			}
			s.chargeGroup(g)
			slim := tc.known && tc.drop == 0 // a group of channels all known
			s.known = channelMemo{}          // from here, read the database's own
			for _, qc := range g {
				if qc.err != nil {
					t.Fatalf("charge of %s: %v", qc.key, qc.err)
				}
				if got := qc.c.Network == "marked"; got != slim {
					t.Errorf("charge of %s: the record was made from the memo: %v, want %v", qc.key, got, slim)
				}
				want, err := s.Channel(ctx, qc.key)
				if err != nil {
					t.Fatal(err)
				}
				if slim {
					want.Network = "marked"
				}
				if diff := recordDiff(qc.c, want); diff != "" {
					t.Errorf("charge of %s answered %s", qc.key, diff)
				}
			}
		})
	}
}

// recordDiff says how record got differs from want, "" when it does not.
func recordDiff(got, want *store.Channel) string {
	amounts := func(c *store.Channel) []*big.Int {
		return []*big.Int{c.Balance, c.Charged, c.VoucherMax, c.Claimed, c.RefundNonce}
	}
	ga, wa := amounts(got), amounts(want)
	for i := range ga {
		if (ga[i] == nil) != (wa[i] == nil) || (ga[i] != nil && ga[i].Cmp(wa[i]) != 0) {
			return fmt.Sprintf("amounts %v, want %v", ga, wa)
		}
	}
	if got.ID != want.ID || got.Network != want.Network || got.Config != want.Config || !bytes.Equal(got.VoucherSignature, want.VoucherSignature) ||
		got.Block != want.Block || !got.WithdrawRequestedAt.Equal(want.WithdrawRequestedAt) || !got.LastActivity.Equal(want.LastActivity) || got.State != want.State {
		return fmt.Sprintf("%+v, want %+v", got, want)
	}
	return ""
}
