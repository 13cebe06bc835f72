package engine

import (
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
)

// TestLedger walks one payer's reservations through every outcome: what
// fits beside the reservations in flight, an authorization reserved
// again, a release that moved nothing, a mined transfer counted only
// against balances read at older blocks and only for spentKeep, and a
// forced reservation (a settlement followed from the journal).
func TestLedger(t *testing.T) {
	payer, other := common.HexToAddress("0xa"), common.HexToAddress("0xb")
	key := func(from common.Address, n byte) authKey { return authKey{from: from, nonce: [32]byte{n}} }
	t0 := time.Unix(1_800_000_000, 0)
	l := newLedger()
	type step struct {
		name    string
		do      func() bool
		want    bool
		reserve int64 // the payer's reserved value after the step
	}
	big := big.NewInt
	steps := []step{
		{"first fits", func() bool { return l.reserve(key(payer, 1), big(60), big(100), 10, t0) }, true, 60},
		{"second does not fit beside it", func() bool { return l.reserve(key(payer, 2), big(60), big(100), 10, t0) }, false, 60},
		{"exactly the rest fits", func() bool { return l.reserve(key(payer, 3), big(40), big(100), 10, t0) }, true, 100},
		{"another payer is apart", func() bool { return l.reserve(key(other, 1), big(100), big(100), 10, t0) }, true, 100},
		{"reserved already stays reserved", func() bool { return l.reserve(key(payer, 1), big(60), big(0), 10, t0) }, true, 100},
		{"a release that moved nothing frees the value", func() bool {
			l.release(key(payer, 3), 0, t0)
			return l.reserve(key(payer, 4), big(40), big(100), 10, t0)
		}, true, 100},
		{"mined at 12: a balance read at 11 still shows the money", func() bool {
			l.release(key(payer, 1), 12, t0)
			return l.reserve(key(payer, 5), big(10), big(100), 11, t0)
		}, false, 100},
		{"a balance read at 12 holds the transfer", func() bool { return l.reserve(key(payer, 5), big(10), big(50), 12, t0) }, true, 110},
		{"after spentKeep the mined transfer no longer counts", func() bool {
			return l.reserve(key(payer, 6), big(50), big(100), 11, t0.Add(spentKeep+time.Second))
		}, true, 160},
		{"a forced reservation does not check", func() bool { return l.reserve(key(payer, 7), big(1000), nil, 0, t0) }, true, 1160},
	}
	for _, s := range steps {
		if got := s.do(); got != s.want {
			t.Fatalf("%s: reserve = %v, want %v", s.name, got, s.want)
		}
		if got := l.reserved(payer); got.Cmp(big(s.reserve)) != 0 {
			t.Fatalf("%s: reserved %s, want %d", s.name, got, s.reserve)
		}
	}
	// Every reservation released: the payer is gone from the ledger.
	for _, n := range []byte{4, 5, 6, 7} {
		l.release(key(payer, n), 0, t0)
	}
	l.mu.Lock()
	l.sweep(t0.Add(spentKeep + time.Second))
	_, kept := l.payers[payer]
	l.mu.Unlock()
	if kept {
		t.Fatal("a payer with nothing reserved stays in the ledger")
	}
}
