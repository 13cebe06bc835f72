package store_test

import (
	"errors"
	"math/big"
	"testing"

	"github.com/caddy-x402/caddy-x402/facilitator/store"
)

// TestChargeRefusal: the conditions of a charge every backend checks in
// its one conditional write: the channel open, charged exactly prev, the
// new charged within the balance and not below what is claimed.
func TestChargeRefusal(t *testing.T) {
	open := func(state string) *store.Channel {
		return &store.Channel{State: state, Charged: big.NewInt(40), Balance: big.NewInt(100), Claimed: big.NewInt(30)}
	}
	tests := []struct {
		name          string
		cur           *store.Channel
		prev, charged int64
		want          error
	}{
		{"takes", open(store.ChannelOpen), 40, 60, nil},
		{"takes the whole balance", open(store.ChannelOpen), 40, 100, nil},
		{"takes a lower charge down to claimed", open(store.ChannelOpen), 40, 30, nil},
		{"refunding", open(store.ChannelRefunding), 40, 60, store.ErrChannelNotOpen},
		{"closed", open(store.ChannelClosed), 40, 60, store.ErrChannelNotOpen},
		{"another charged first", open(store.ChannelOpen), 39, 60, store.ErrChannelConflict},
		{"beyond the balance", open(store.ChannelOpen), 40, 101, store.ErrChannelBalance},
		{"below claimed", open(store.ChannelOpen), 40, 29, store.ErrBadCharge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := store.ChargeRefusal(tt.cur, big.NewInt(tt.prev), big.NewInt(tt.charged))
			if (tt.want == nil) != (err == nil) || (tt.want != nil && !errors.Is(err, tt.want)) {
				t.Fatalf("ChargeRefusal = %v, want %v", err, tt.want)
			}
		})
	}
}
