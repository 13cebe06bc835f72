package paywall

import (
	"math/big"
	"testing"
)

// TestChanHolds: a claim read counts the prices held, and those released
// after it began (their final write may have come after the store was
// read), never those released before; nothing is kept once no read is
// under way and no price is held.
func TestChanHolds(t *testing.T) {
	c := &chanHolds{rounds: map[uint64]int{}, m: map[string]*chanHeld{}}
	a := c.hold("0xa", big.NewInt(10000))
	b := c.hold("0xa", big.NewInt(500))
	early := c.hold("0xa", big.NewInt(7))
	early() // released before the read: its final write is in what the read sees
	mark, end := c.begin()
	if got := c.pending("0xa", mark); got.Int64() != 10500 {
		t.Fatalf("pending with two held: %s, want 10500", got)
	}
	a() // released during the read
	a() // a release is made once
	if got := c.pending("0xa", mark); got.Int64() != 10500 {
		t.Fatalf("pending after a release during the read: %s, want 10500", got)
	}
	mark2, end2 := c.begin()
	if got := c.pending("0xa", mark2); got.Int64() != 500 {
		t.Fatalf("pending for a read begun after the release: %s, want 500", got)
	}
	end2()
	end()
	b()
	if got := c.pending("0xa", mark); got.Sign() != 0 || len(c.m) != 0 || len(c.rounds) != 0 {
		t.Fatalf("after all: pending %s, %d channels, %d reads kept", got, len(c.m), len(c.rounds))
	}
	if got := c.pending("0xb", 0); got.Sign() != 0 {
		t.Fatalf("pending of a channel never held: %s", got)
	}
}
