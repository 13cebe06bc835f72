package engine

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"math/big"
	"net"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/rpc"
	"go.uber.org/zap"

	"github.com/caddy-x402/caddy-x402/facilitator/evm"
	"github.com/caddy-x402/caddy-x402/facilitator/store"
	"github.com/caddy-x402/caddy-x402/facilitator/store/memory"
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

// TestReserveChainReadFails: a reservation that needs the exact check
// (the payer's settlements in flight take its balance) and cannot read the
// chain fails with ErrChainRead, so that the settle names the chain, not
// the store, as what is out of reach. The node is a real listener that
// was closed (connection refused).
func TestReserveChainReadFails(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String()
	ln.Close()
	pool, err := evm.NewPool("n", big.NewInt(338), []string{url}, zap.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	key, _ := crypto.GenerateKey()
	e, err := New(Config{Network: "n", ChainID: big.NewInt(338), Token: common.HexToAddress("0xa"), Journal: memory.NewJournal(), Keys: []*ecdsa.PrivateKey{key}, Pool: pool,
		Spent: balanceOnlySpent{common.HexToAddress("0xa")}})
	if err != nil {
		t.Fatal(err)
	}
	e.Start()
	t.Cleanup(e.Close)
	payer := common.HexToAddress("0xf")
	ctx := context.Background()
	if ok, err := e.Reserve(ctx, payer, [32]byte{1}, big.NewInt(60), big.NewInt(100), 7); !ok || err != nil {
		t.Fatalf("first reservation = %v, %v; want it to fit without a read", ok, err)
	}
	ok, err := e.Reserve(ctx, payer, [32]byte{2}, big.NewInt(60), big.NewInt(100), 7)
	if ok || !errors.Is(err, ErrChainRead) {
		t.Fatalf("second reservation = %v, %v; want an ErrChainRead", ok, err)
	}
	if errors.Is(err, store.ErrUnavailable) {
		t.Fatalf("a chain read's error %v is the store's ErrUnavailable", err)
	}
}

// balanceOnlySpent is a Spent whose UsedCalls asks the token's balanceOf
// once per nonce: a stand-in for a scheme's authorization reads (the
// engine imports no scheme), enough for a read that never gets an answer.
type balanceOnlySpent struct{ token common.Address }

func (s balanceOnlySpent) UsedCalls(block uint64, payer common.Address, nonces [][32]byte) ([]rpc.BatchElem, func() ([]bool, error)) {
	var elems []rpc.BatchElem
	for range nonces {
		el, _ := evm.ViewCallAt(s.token, block, "balanceOf", payer)
		elems = append(elems, el)
	}
	return elems, func() ([]bool, error) { return make([]bool, len(nonces)), nil }
}

func (s balanceOnlySpent) UseLog(common.Address, [32]byte) (common.Address, []any) {
	return s.token, nil
}
