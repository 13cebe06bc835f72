package store_test

import (
	"testing"
	"time"

	"github.com/caddy-x402/caddy-x402/facilitator/store"
)

// TestStrikeOne: the cooling-off arithmetic every backend applies: the
// first strike cools off for base, each next one doubles it up to max, a
// cooling-off never ends earlier than it did, and a transaction counted
// already is not counted again.
func TestStrikeOne(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	base, max := time.Minute, time.Hour
	at := func(d time.Duration) time.Time { return now.Add(d) }
	tests := []struct {
		name        string
		cur         *store.CoolOff
		tx          string
		wantStrikes int
		wantUntil   time.Time
		wantChanged bool
	}{
		{"first strike", nil, "0xA1", 1, at(base), true},
		{"second doubles", &store.CoolOff{Key: "k", Strikes: 1, Until: at(0), TxHash: "0xa1"}, "0xa2", 2, at(2 * base), true},
		{"fourth is 8 base", &store.CoolOff{Key: "k", Strikes: 3, TxHash: "0xa3"}, "0xa4", 4, at(8 * base), true},
		{"capped at max", &store.CoolOff{Key: "k", Strikes: 9, TxHash: "0xa9"}, "0xaa", 10, at(max), true},
		{"no overflow after many", &store.CoolOff{Key: "k", Strikes: 1 << 20, TxHash: "0xa9"}, "0xaa", 1<<20 + 1, at(max), true},
		{"never ends earlier", &store.CoolOff{Key: "k", Strikes: 1, Until: at(3 * time.Hour), TxHash: "0xa1"}, "0xa2", 2, at(3 * time.Hour), true},
		{"same transaction counted once", &store.CoolOff{Key: "k", Strikes: 2, Until: at(base), TxHash: "0xa1"}, "0xA1", 2, at(base), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, changed := store.StrikeOne(tt.cur, "k", tt.tx, now, base, max)
			if got.Strikes != tt.wantStrikes || !got.Until.Equal(tt.wantUntil) || changed != tt.wantChanged {
				t.Fatalf("StrikeOne = %d strikes until %v (changed %v), want %d until %v (changed %v)",
					got.Strikes, got.Until, changed, tt.wantStrikes, tt.wantUntil, tt.wantChanged)
			}
		})
	}
}
