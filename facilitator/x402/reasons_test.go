package x402

import (
	"strings"
	"testing"
)

// TestClip: a value from the request is repeated in a reason whole up to
// MaxEchoBytes, and cut there (on a rune boundary, with an ellipsis)
// beyond, however long it is.
func TestClip(t *testing.T) {
	long := strings.Repeat("n", 11_000)
	tests := []struct {
		name, got, want string
	}{
		{"short", Clip("cronos-testnet", 80), "cronos-testnet"},
		{"exactly n", Clip(strings.Repeat("a", 80), 80), strings.Repeat("a", 80)},
		{"one more", Clip(strings.Repeat("a", 81), 80), strings.Repeat("a", 80) + "…"},
		{"cut inside a rune", Clip("ab"+strings.Repeat("é", 10), 5), "abé…"},
		{"nothing left", Clip("éé", 1), "…"},
		{"network", ReasonUnsupportedNetwork(long), "Unsupported network: " + long[:80] + "…"},
		{"scheme", ReasonUnsupportedScheme(long), "Unsupported scheme: " + long[:80] + "…"},
		{"asset", ReasonUnsupportedAsset(long), "Unsupported asset: " + long[:80] + "…"},
		{"amount", ReasonInvalidAmount(long), "Invalid amount: " + long[:80] + "…"},
		{"amount of 78 digits, whole", ReasonInvalidAmount(strings.Repeat("9", 78)), "Invalid amount: " + strings.Repeat("9", 78)},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, tt.got, tt.want)
		}
	}
}
