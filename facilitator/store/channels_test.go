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

// TestChannelKey: a channel id is 0x and 64 hex digits in either case,
// kept in lower case; anything else is ErrBadCharge.
func TestChannelKey(t *testing.T) {
	const lower = "0x00000000000000000000000000000000000000000000000000000000000abcde"
	tests := []struct {
		name, id, want string
	}{
		{"lower case", lower, lower},
		{"upper-case digits", "0x00000000000000000000000000000000000000000000000000000000000ABCDE", lower},
		{"upper-case X", "0X00000000000000000000000000000000000000000000000000000000000abcde", lower},
		{"one digit short", lower[:65], ""},
		{"one digit more", lower + "0", ""},
		{"no 0x", "00" + lower[2:], ""},
		{"not hex", lower[:65] + "g", ""},
		{"an address", "0x0000000000000000000000000000000000000001", ""},
		{"empty", "", ""},
		{"multi-byte", lower[:64] + "é", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := store.ChannelKey(tc.id)
			if tc.want == "" {
				if got != "" || !errors.Is(err, store.ErrBadCharge) {
					t.Fatalf("ChannelKey(%q) = %q, %v; want ErrBadCharge", tc.id, got, err)
				}
				return
			}
			if got != tc.want || err != nil {
				t.Fatalf("ChannelKey(%q) = %q, %v; want %q", tc.id, got, err, tc.want)
			}
		})
	}
}
