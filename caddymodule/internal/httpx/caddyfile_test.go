package httpx

import "testing"

// TestHasPlaceholder: a placeholder is a { with a } after it.
func TestHasPlaceholder(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want bool
	}{
		{"0.01", false},
		{"10000", false},
		{"{vars.price}", true},
		{"{http.request.header.X-Plan-Price}", true},
		{"0.0{x}", true},
		{"{", false},
		{"}{", false},
		{"", false},
	} {
		if got := HasPlaceholder(tt.in); got != tt.want {
			t.Errorf("HasPlaceholder(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}
