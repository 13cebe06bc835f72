package engine

import (
	"context"
	"crypto/ecdsa"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/caddy-x402/caddy-x402/facilitator/store"
	"github.com/caddy-x402/caddy-x402/facilitator/store/memory"
)

// TestCoreSharing: engines on the same journal, chain and token share one
// core (the same signer, nonce counter and holds); another journal, chain
// or token gets a core of its own; the core outlives every engine but the
// last, and a new engine after that starts afresh.
func TestCoreSharing(t *testing.T) {
	key, _ := crypto.GenerateKey()
	key2, _ := crypto.GenerateKey()
	j1, j2 := memory.NewJournal(), memory.NewJournal()
	tokA, tokB := common.HexToAddress("0xa"), common.HexToAddress("0xb")
	mk := func(j store.Journal, chain int64, tok common.Address, keys ...*ecdsa.PrivateKey) *Engine {
		t.Helper()
		e, err := New(Config{Network: "n", ChainID: big.NewInt(chain), Token: tok, Journal: j, Keys: keys})
		if err != nil {
			t.Fatal(err)
		}
		e.Start()
		t.Cleanup(e.Close)
		return e
	}
	a := mk(j1, 338, tokA, key)
	if a.joined {
		t.Fatal("the first engine joined a core")
	}
	for _, tc := range []struct {
		name  string
		e     *Engine
		share bool
	}{
		{"same journal, chain and token", mk(j1, 338, tokA, key, key2), true},
		{"another journal", mk(j2, 338, tokA, key), false},
		{"another chain", mk(j1, 25, tokA, key), false},
		{"another token", mk(j1, 338, tokB, key), false},
	} {
		if got := tc.e.core == a.core; got != tc.share {
			t.Errorf("%s: shares the core = %v, want %v", tc.name, got, tc.share)
		}
		if got := tc.e.joined; got != tc.share {
			t.Errorf("%s: joined = %v, want %v", tc.name, got, tc.share)
		}
		if got := tc.e.signers[0] == a.signers[0]; got != tc.share {
			t.Errorf("%s: shares the signer = %v, want %v", tc.name, got, tc.share)
		}
	}
	b := mk(j1, 338, tokA, key)
	var nonce [32]byte
	from := common.HexToAddress("0xf")
	held := func(e *Engine) bool {
		ok, err := e.Claim(context.Background(), from, nonce)
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	if !held(a) || held(b) {
		t.Fatal("a hold taken through one engine of a core is not seen by the other")
	}
	a.Release(from, nonce)

	// The core outlives a, not the last engine.
	core := a.core
	a.Close()
	a.Close() // twice is harmless
	if core.ctx.Err() != nil {
		t.Fatal("closing one engine stopped the core the others use")
	}
	if core.active() == a {
		t.Fatal("a closed engine is still the active one")
	}
	b.Close()
	// The engine with key and key2 is still attached.
	if core.ctx.Err() != nil {
		t.Fatal("the core stopped while an engine is attached")
	}
}

// TestCoreStopsWithLastEngine: the last engine's Close stops the core's
// loops and unregisters it, so the next engine starts a new core (and
// recovers the journal).
func TestCoreStopsWithLastEngine(t *testing.T) {
	key, _ := crypto.GenerateKey()
	j := memory.NewJournal()
	cfg := Config{Network: "n", ChainID: big.NewInt(338), Token: common.HexToAddress("0xa"), Journal: j, Keys: []*ecdsa.PrivateKey{key}}
	a, _ := New(cfg)
	a.Start()
	b, _ := New(cfg)
	b.Start()
	core := a.core
	a.Close()
	b.Close()
	if core.ctx.Err() == nil {
		t.Fatal("the core runs on after its last engine closed")
	}
	c, _ := New(cfg)
	c.Start()
	defer c.Close()
	if c.joined || c.core == core {
		t.Fatal("an engine after the last one closed joined the stopped core")
	}
}

// TestRecoverOncePerNetwork: a core recovers the journal's records of a
// network name once; an engine that joins under the same name recovers
// nothing (the core follows those records), one under another name
// recovers that name's.
func TestRecoverOncePerNetwork(t *testing.T) {
	key, _ := crypto.GenerateKey()
	cfg := Config{Network: "n", ChainID: big.NewInt(338), Token: common.HexToAddress("0xa"), Journal: memory.NewJournal(), Keys: []*ecdsa.PrivateKey{key}}
	a, _ := New(cfg)
	a.Start()
	defer a.Close()
	a.Recover(context.Background(), nil)
	for _, tc := range []struct {
		network string
		want    bool
	}{{"n", false}, {"m", true}, {"m", false}} {
		if got := a.core.firstRecovery(tc.network); got != tc.want {
			t.Errorf("firstRecovery(%q) = %v, want %v", tc.network, got, tc.want)
		}
	}
}
