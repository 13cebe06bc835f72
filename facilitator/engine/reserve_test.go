package engine

import (
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
)

// TestLedger walks one payer's reservations through every outcome: what
// fits beside the reservations in flight, an authorization reserved
// again, a release that moved nothing, a mined transfer that still counts
// in the first check for spentKeep, the exact check that leaves out the
// reservations known to be in the balance, and a forced reservation (a
// settlement followed from the journal).
func TestLedger(t *testing.T) {
	payer, other := common.HexToAddress("0xa"), common.HexToAddress("0xb")
	key := func(from common.Address, n byte) authKey { return authKey{from: from, nonce: [32]byte{n}} }
	t0 := time.Unix(1_800_000_000, 0)
	l := newLedger()
	n := big.NewInt
	steps := []struct {
		name    string
		do      func() bool
		want    bool
		reserve int64 // the payer's reserved value after the step
	}{
		{"first fits", func() bool { return l.reserve(key(payer, 1), n(60), n(100), nil, t0) }, true, 60},
		{"second does not fit beside it", func() bool { return l.reserve(key(payer, 2), n(60), n(100), nil, t0) }, false, 60},
		{"exactly the rest fits", func() bool { return l.reserve(key(payer, 3), n(40), n(100), nil, t0) }, true, 100},
		{"another payer is apart", func() bool { return l.reserve(key(other, 1), n(100), n(100), nil, t0) }, true, 100},
		{"reserved already stays reserved", func() bool { return l.reserve(key(payer, 1), n(60), n(0), nil, t0) }, true, 100},
		{"a release that moved nothing frees the value", func() bool {
			l.release(key(payer, 3), false, t0)
			return l.reserve(key(payer, 4), n(40), n(100), nil, t0)
		}, true, 100},
		{"a mined transfer still counts in the first check", func() bool {
			l.release(key(payer, 1), true, t0)
			return l.reserve(key(payer, 5), n(10), n(50), nil, t0)
		}, false, 100},
		{"the exact check leaves out what is in the balance", func() bool {
			return l.reserve(key(payer, 5), n(10), n(50), map[authKey]bool{key(payer, 1): true}, t0)
		}, true, 110},
		{"the same nonce in another space is another authorization", func() bool {
			k := key(payer, 1)
			k.space = spacePermit2
			return l.reserve(k, n(10), n(50), map[authKey]bool{key(payer, 1): true}, t0)
		}, false, 110},
		{"the exact check counts what is not", func() bool {
			return l.reserve(key(payer, 6), n(10), n(50), map[authKey]bool{key(payer, 1): true}, t0)
		}, false, 110},
		{"after spentKeep a mined transfer no longer counts", func() bool {
			return l.reserve(key(payer, 6), n(50), n(100), nil, t0.Add(spentKeep+time.Second))
		}, true, 160},
		{"a forced reservation does not check", func() bool { return l.reserve(key(payer, 7), n(1000), nil, nil, t0) }, true, 1160},
	}
	for _, s := range steps {
		if got := s.do(); got != s.want {
			t.Fatalf("%s: reserve = %v, want %v", s.name, got, s.want)
		}
		if got := l.reserved(payer); got.Cmp(n(s.reserve)) != 0 {
			t.Fatalf("%s: reserved %s, want %d", s.name, got, s.reserve)
		}
	}
	if got := len(l.keys(payer)); got != 5 {
		t.Fatalf("nonces listed %d, want 5", got)
	}
	// Every reservation released: the payer is gone from the ledger.
	for _, b := range []byte{4, 5, 6, 7} {
		l.release(key(payer, b), false, t0)
	}
	l.mu.Lock()
	l.sweep(t0.Add(spentKeep + time.Second))
	_, kept := l.payers[payer]
	l.mu.Unlock()
	if kept {
		t.Fatal("a payer with nothing reserved stays in the ledger")
	}
}

// TestRecordIDAuthorization reads the payer and nonce back out of record
// IDs, and refuses malformed ones.
func TestRecordIDAuthorization(t *testing.T) {
	from := common.HexToAddress("0x00000000000000000000000000000000000000aa")
	nonce := [32]byte{1, 2, 3}
	for _, c := range []struct {
		id    string
		ok    bool
		space string
	}{
		{RecordID("cronos-testnet", from, nonce), true, ""},
		{RecordIDIn("cronos-testnet", spacePermit2, from, nonce), true, spacePermit2},
		{"cronos-testnet/" + from.Hex() + "/0x01", false, ""},
		{"cronos-testnet/0x12/" + RecordID("x", from, nonce)[len("x/")+43:], false, ""},
		{"nonsense", false, ""},
	} {
		k, ok := recordIDAuthorization(c.id)
		if ok != c.ok || ok && (k.from != from || k.nonce != nonce || k.space != c.space) {
			t.Errorf("recordIDAuthorization(%q) = %+v, %v; want ok %v", c.id, k, ok, c.ok)
		}
	}
}

// spacePermit2 is a nonce space other than EIP-3009's, as Permit2's
// (permit2.NonceSpace: the engine knows no Permit2).
const spacePermit2 = "permit2"
