package storetest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/caddy-x402/caddy-x402/facilitator/store"
)

// CoolOffs runs the cooling-offs' conformance tests.
func CoolOffs(t *testing.T, b Backend[store.CoolOffs]) {
	t.Run("CoolOffsDoubling", func(t *testing.T) { coolOffsDoubling(t, b) })
	t.Run("CoolOffsKeys", func(t *testing.T) { coolOffsKeys(t, b) })
	t.Run("CoolOffsPrune", func(t *testing.T) { coolOffsPrune(t, b) })
	t.Run("CoolOffsConcurrent", func(t *testing.T) { coolOffsConcurrent(t, b) })
}

const (
	coolPayer = "payer:338/0xAbCdEf0000000000000000000000000000000001"
	coolCode  = "code:338/0x00000000000000000000000000000000000000000000000000000000c0dec0de"
)

func strike(t *testing.T, s store.CoolOffs, keys []string, tx string, now time.Time) []store.CoolOff {
	t.Helper()
	cs, err := s.Strike(context.Background(), keys, tx, now, time.Minute, 10*time.Minute)
	if err != nil || len(cs) != len(keys) {
		t.Fatalf("Strike(%v, %s) = %+v, %v", keys, tx, cs, err)
	}
	return cs
}

func wantCoolOff(t *testing.T, what string, got store.CoolOff, strikes int, until time.Time, tx string) {
	t.Helper()
	if got.Strikes != strikes || !got.Until.Equal(until) || got.TxHash != tx {
		t.Fatalf("%s = %d strikes until %v by %s; want %d until %v by %s", what, got.Strikes, got.Until, got.TxHash, strikes, until, tx)
	}
}

// coolOffsDoubling: each strike doubles the cooling-off from its moment,
// up to the maximum; the same transaction counts once; a cooling-off is
// never shortened; keys and hashes compare in any case.
func coolOffsDoubling(t *testing.T, b Backend[store.CoolOffs]) {
	s := b.New(t)
	t0 := time.Unix(1_800_000_000, 0).UTC()
	wantCoolOff(t, "first strike", strike(t, s, []string{coolPayer}, "0xAA01", t0)[0], 1, t0.Add(time.Minute), "0xaa01")
	// The same transaction again (another instance saw it too): once.
	wantCoolOff(t, "the same transaction again", strike(t, s, []string{coolPayer}, "0xaa01", t0.Add(time.Second))[0], 1, t0.Add(time.Minute), "0xaa01")
	steps := []struct {
		at    time.Duration
		until time.Duration
	}{
		{2 * time.Minute, 4 * time.Minute},   // 2nd: 2 min
		{5 * time.Minute, 9 * time.Minute},   // 3rd: 4 min
		{10 * time.Minute, 18 * time.Minute}, // 4th: 8 min
		{20 * time.Minute, 30 * time.Minute}, // 5th: 16 min, cut to 10
		{21 * time.Minute, 31 * time.Minute}, // 6th: the maximum again
	}
	for i, st := range steps {
		tx := fmt.Sprintf("0xaa%02d", i+2)
		wantCoolOff(t, fmt.Sprintf("strike %d", i+2), strike(t, s, []string{coolPayer}, tx, t0.Add(st.at))[0], i+2, t0.Add(st.until), tx)
	}
	// A strike that would end earlier (its moment is older) keeps the end.
	wantCoolOff(t, "an older strike", strike(t, s, []string{coolPayer}, "0xaa08", t0)[0], 7, t0.Add(31*time.Minute), "0xaa08")
	if b.Reopen != nil {
		s = b.Reopen(t, s)
	}
	got, err := s.CoolingOff(context.Background(), []string{"PAYER:338/0xabcdef0000000000000000000000000000000001"}, t0.Add(30*time.Minute))
	if err != nil || got == nil {
		t.Fatalf("CoolingOff after reopening = %+v, %v", got, err)
	}
	wantCoolOff(t, "after reopening", *got, 7, t0.Add(31*time.Minute), "0xaa08")
	if got.Key != "payer:338/0xabcdef0000000000000000000000000000000001" {
		t.Fatalf("key %q, want it in lower case", got.Key)
	}
	for _, bad := range []struct {
		keys []string
		tx   string
		base time.Duration
	}{{nil, "0x1", time.Minute}, {[]string{""}, "0x1", time.Minute}, {[]string{coolPayer}, "", time.Minute}, {[]string{coolPayer}, "0x1", 0}} {
		if _, err := s.Strike(context.Background(), bad.keys, bad.tx, t0, bad.base, time.Hour); !errors.Is(err, store.ErrBadStrike) {
			t.Fatalf("Strike(%v, %q, %v) = %v, want ErrBadStrike", bad.keys, bad.tx, bad.base, err)
		}
	}
}

// coolOffsKeys: one strike counts against every key; a look-up of several
// keys answers the cooling-off that ends last, and none once it ended or
// for keys never struck.
func coolOffsKeys(t *testing.T, b Backend[store.CoolOffs]) {
	s := b.New(t)
	ctx := context.Background()
	t0 := time.Unix(1_800_000_000, 0).UTC()
	other := "payer:338/0x00000000000000000000000000000000000000b2"
	strike(t, s, []string{coolPayer}, "0x01", t0) // the payer: 1 min
	cs := strike(t, s, []string{coolCode, coolPayer}, "0x02", t0.Add(30*time.Second))
	wantCoolOff(t, "the code", cs[0], 1, t0.Add(90*time.Second), "0x02")
	wantCoolOff(t, "the payer", cs[1], 2, t0.Add(150*time.Second), "0x02")
	if b.Reopen != nil {
		s = b.Reopen(t, s)
	}
	for _, c := range []struct {
		keys []string
		at   time.Duration
		want string // key, "" for none
	}{
		{[]string{other, coolCode}, time.Minute, coolCode},
		{[]string{coolCode, coolPayer}, time.Minute, coolPayer},
		{[]string{other, coolCode}, 90 * time.Second, ""}, // ends at that moment
		{[]string{coolPayer}, 149 * time.Second, coolPayer},
		{[]string{coolPayer, coolCode}, 150 * time.Second, ""},
		{[]string{other}, 0, ""},
		{nil, 0, ""},
	} {
		if c.at == 0 && len(c.keys) == 0 {
			// Two that end together: the first key's.
			k1, k2 := "payer:338/0x00000000000000000000000000000000000000c1", "code:338/0xc2"
			strike(t, s, []string{k1, k2}, "0x03", t0.Add(time.Hour))
			for _, keys := range [][]string{{k1, k2}, {k2, k1}} {
				if got, err := s.CoolingOff(ctx, keys, t0.Add(time.Hour)); err != nil || got == nil || got.Key != lower(keys[0]) {
					t.Fatalf("CoolingOff(%v) of two that end together = %+v, %v; want %s's", keys, got, err, keys[0])
				}
			}
		}
		got, err := s.CoolingOff(ctx, c.keys, t0.Add(c.at))
		switch {
		case err != nil:
			t.Fatalf("CoolingOff(%v) at +%v: %v", c.keys, c.at, err)
		case c.want == "" && got != nil:
			t.Fatalf("CoolingOff(%v) at +%v = %+v, want none", c.keys, c.at, got)
		case c.want != "" && (got == nil || got.Key != lower(c.want)):
			t.Fatalf("CoolingOff(%v) at +%v = %+v, want %s", c.keys, c.at, got, c.want)
		}
	}
}

// coolOffsPrune: pruning drops the cooling-offs that ended, with their
// strikes; a key struck again then starts from one.
func coolOffsPrune(t *testing.T, b Backend[store.CoolOffs]) {
	s := b.New(t)
	t0 := time.Unix(1_800_000_000, 0).UTC()
	strike(t, s, []string{coolPayer}, "0x01", t0)
	strike(t, s, []string{coolPayer}, "0x02", t0.Add(time.Minute)) // until +3 min
	strike(t, s, []string{coolCode}, "0x03", t0)                   // until +1 min
	if n, err := s.PruneCoolOffs(t0.Add(2 * time.Minute)); err != nil || n != 1 {
		t.Fatalf("PruneCoolOffs = %d, %v; want 1 (the code's)", n, err)
	}
	if got, _ := s.CoolingOff(context.Background(), []string{coolPayer}, t0.Add(2*time.Minute)); got == nil || got.Strikes != 2 {
		t.Fatalf("the payer's cooling-off after pruning = %+v, want its 2 strikes", got)
	}
	if n, err := s.PruneCoolOffs(t0.Add(time.Hour)); err != nil || n != 1 {
		t.Fatalf("PruneCoolOffs = %d, %v; want 1", n, err)
	}
	wantCoolOff(t, "a strike after pruning", strike(t, s, []string{coolPayer}, "0x04", t0.Add(time.Hour))[0], 1, t0.Add(time.Hour+time.Minute), "0x04")
}

// coolOffsConcurrent: one transaction struck at once (by several
// connections of a shared store) counts once; distinct transactions
// struck at once all count, whatever the order of their keys.
func coolOffsConcurrent(t *testing.T, b Backend[store.CoolOffs]) {
	stores := []store.CoolOffs{b.New(t)}
	t0 := time.Unix(1_800_000_000, 0).UTC()
	const n = 16
	at := func(tx func(i int) string) {
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				keys := []string{coolPayer, coolCode}
				if i%2 == 1 {
					keys = []string{coolCode, coolPayer}
				}
				if _, err := stores[i%len(stores)].Strike(context.Background(), keys, tx(i), t0, time.Second, time.Hour); err != nil {
					t.Errorf("Strike: %v", err)
				}
			})
		}
		wg.Wait()
	}
	check := func(what string, want int) {
		t.Helper()
		for _, k := range []string{coolPayer, coolCode} {
			got, err := stores[len(stores)-1].CoolingOff(context.Background(), []string{k}, t0)
			if err != nil || got == nil || got.Strikes != want {
				t.Fatalf("%s: %s's cooling-off = %+v, %v; want %d strikes", what, k, got, err, want)
			}
		}
	}
	at(func(int) string { return "0xffff" })
	check("one transaction struck at once", 1)
	at(func(i int) string { return fmt.Sprintf("0x%04x", i+1) })
	check("distinct transactions struck at once", n+1)
}

func lower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
