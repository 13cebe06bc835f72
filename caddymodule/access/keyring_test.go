package access

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/caddyserver/certmagic"
	"go.uber.org/zap"

	"github.com/caddy-x402/caddy-x402/facilitator/store"
)

// memKeys is a key source in memory, for tests of what a route does with
// the generations it knows.
type memKeys struct {
	mu sync.Mutex
	vs []store.SecretVersion
}

func (m *memKeys) Versions(context.Context) ([]store.SecretVersion, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]store.SecretVersion(nil), m.vs...), nil
}

func (m *memKeys) Rotate(context.Context, func(store.SecretVersion, time.Time) bool) (store.SecretVersion, []store.SecretVersion, error) {
	panic("not used")
}

func (m *memKeys) Where() string { return "memory" }

// keyOf is a 32-byte key named by s.
func keyOf(s string) []byte {
	k := sha256.Sum256([]byte(s))
	return k[:]
}

// fixedKeyring is a keyring of one key that never changes.
func fixedKeyring(t *testing.T, name []byte) *accessKeyring {
	t.Helper()
	return memKeyring(t, store.SecretVersion{Gen: 1, Value: keyOf(string(name))})
}

// memKeyring is a keyring over generations in memory, not polling.
func memKeyring(t *testing.T, vs ...store.SecretVersion) *accessKeyring {
	t.Helper()
	k := &accessKeyring{src: &memKeys{vs: vs}, logger: zap.NewNop()}
	if err := k.read(context.Background()); err != nil {
		t.Fatal(err)
	}
	return k
}

// gateOf is a route's gate with access window and keys.
func gateOf(window time.Duration, keys *accessKeyring) *Gate {
	return &Gate{window: window, keys: keys, path: "/"}
}

// forgeCookie is a cookie for g signed with the key of generation value.
func forgeCookie(value []byte, g *store.Grant) string {
	k := &accessKey{cookie: deriveKey(value, "x402 access cookie")}
	payload := "1." + g.Route + "." + strings.ToLower(g.Payer) + "." + strconv.FormatInt(g.End.Unix(), 10)
	return payload + "." + cookieMAC(k, payload)
}

// TestAccessKeyHorizon: after a rotation a route signs with the newest
// key and honours the one before for cookies until its retirement +
// slack + the access window, for challenges until retirement + slack +
// their 5 minutes and the skew, and then forgets it: even a cookie that
// claims a later end (a leaked old key) is refused.
func TestAccessKeyHorizon(t *testing.T) {
	t0 := time.Unix(1_800_000_000, 0).UTC()
	retired := t0.Add(24 * time.Hour) // generation 2 stored
	old, cur := keyOf("one"), keyOf("two")
	const window = time.Hour
	h := gateOf(window, memKeyring(t,
		store.SecretVersion{Gen: 1, Value: old, Created: t0},
		store.SecretVersion{Gen: 2, Value: cur, Created: retired}))
	slack := accessKeySlack()
	g := &store.Grant{Route: strings.Repeat("ab", 16), Payer: "0x94e3f6ec28a2d73543e60b9442c3ebeeeb63c70c", End: retired.Add(3 * time.Hour)}

	if got, want := h.cookieValue(g), forgeCookie(cur, g); got != want {
		t.Fatalf("signed %s, want the newest key's %s", got, want)
	}
	for _, c := range []struct {
		name  string
		value []byte
		at    time.Time
		ok    bool
	}{
		{"old key, within the window after retirement", old, retired.Add(window), true},
		{"old key, at the horizon's last second", old, retired.Add(slack + window - time.Second), true},
		{"old key, after the horizon", old, retired.Add(slack + window), false},
		{"new key, long after", cur, retired.Add(2 * time.Hour), true},
		{"a key never stored", keyOf("three"), retired, false},
	} {
		if got := h.parseCookie(forgeCookie(c.value, g), g.Route, c.at); (got != nil) != c.ok {
			t.Errorf("%s: parseCookie = %+v, want honoured %v", c.name, got, c.ok)
		}
	}

	// Challenges: the nonce of an old-key challenge.
	rnd := make([]byte, siwxNonceRandom)
	issued, domain, uri := retired.Format(isoMillis), "shop.example", "https://shop.example/a"
	oldNonce := hex.EncodeToString(rnd) + siwxNonceMAC(&accessKey{nonce: deriveKey(old, "x402 sign-in-with-x nonce")}, rnd, issued, domain, uri)
	life := siwxMaxAge + siwxSkew
	for _, c := range []struct {
		at time.Time
		ok bool
	}{{retired.Add(slack + life - time.Second), true}, {retired.Add(slack + life), false}} {
		if got := h.issuedHere(oldNonce, issued, domain, uri, c.at); got != c.ok {
			t.Errorf("an old-key nonce at retirement + %s: %v, want %v", c.at.Sub(retired), got, c.ok)
		}
	}
	if c := h.siwxChallenge("https://shop.example/a", retired); !h.issuedHere(c.Info.Nonce, c.Info.IssuedAt, domain, uri, retired.Add(slack+life)) {
		t.Errorf("a challenge of the newest key is not known")
	}
}

// TestRotateKeyStorage: instances on one Caddy storage (a shared data
// directory), rotated as "caddy x402 rotate-key --config" does. A cookie and a
// challenge made before the rotation are still honoured after it at every
// instance; a cookie of the new key made at one instance is honoured at
// the others at once (they read the keys on the miss); each signs with the
// new key once it has read it; old generations the config's longest window
// no longer needs are removed.
func TestRotateKeyStorage(t *testing.T) {
	oldGap := accessKeyMissGap
	accessKeyMissGap = 0
	t.Cleanup(func() { accessKeyMissGap = oldGap })
	dir := t.TempDir()
	const window = 2 * time.Hour
	instance := func() *Gate {
		k, err := newAccessKeyring(context.Background(), storageKeys{s: &certmagic.FileStorage{Path: dir}}, zap.NewNop())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { k.Destruct() })
		return gateOf(window, k)
	}
	a, b := instance(), instance()
	now := time.Now()
	g := &store.Grant{Route: strings.Repeat("ab", 16), Payer: "0x94e3f6ec28a2d73543e60b9442c3ebeeeb63c70c", End: now.Add(window)}
	before := a.cookieValue(g)
	if b.parseCookie(before, g.Route, now) == nil {
		t.Fatal("B refuses A's cookie before any rotation")
	}
	ch := a.siwxChallenge("https://shop.example/a", now)

	var out strings.Builder
	// The config's routes have access 30m and 2h (caddymodule's
	// TestRotateKeyConfig reads them from a Caddyfile).
	rotate := func() error {
		return RotateKey(context.Background(), StorageKeys(&certmagic.FileStorage{Path: dir}), window, 2, &out)
	}
	if err := rotate(); err != nil {
		t.Fatal(err)
	}
	if want := "x402: the access server key is now generation 2 in Caddy's storage"; !strings.HasPrefix(out.String(), want) ||
		!strings.Contains(out.String(), "the longest access window, 2h0m0s, after its last signature") {
		t.Fatalf("rotate-key said:\n%s", out.String())
	}
	c := instance() // started after the rotation
	after := c.cookieValue(g)
	if after == before {
		t.Fatal("the instance started after the rotation signs with the old key")
	}
	for name, h := range map[string]*Gate{"A": a, "B": b, "C": c} {
		if h.parseCookie(before, g.Route, now) == nil {
			t.Errorf("%s refuses the cookie made before the rotation", name)
		}
		if h.parseCookie(after, g.Route, now) == nil {
			t.Errorf("%s refuses the new key's cookie", name)
		}
		if !h.issuedHere(ch.Info.Nonce, ch.Info.IssuedAt, ch.Info.Domain, ch.Info.URI, now) {
			t.Errorf("%s does not know the challenge made before the rotation", name)
		}
		if got := h.cookieValue(g); got != after { // A and B read the keys on the miss
			t.Errorf("%s signs %s, want the new key's %s", name, got, after)
		}
	}

	// The old key's horizon: a cookie it signed claiming a later end is
	// refused everywhere once retirement + slack + the window has passed.
	vs, err := storageKeys{s: &certmagic.FileStorage{Path: dir}}.Versions(context.Background())
	if err != nil || len(vs) != 2 {
		t.Fatalf("versions %v, %v", vs, err)
	}
	late := &store.Grant{Route: g.Route, Payer: g.Payer, End: vs[1].Created.Add(window * 3)}
	forged := forgeCookie(vs[0].Value, late)
	horizon := vs[1].Created.Add(accessKeySlack() + window)
	for name, h := range map[string]*Gate{"A": a, "B": b, "C": c} {
		if h.parseCookie(forged, g.Route, horizon.Add(-time.Second)) == nil {
			t.Errorf("%s refuses an old-key cookie before the horizon", name)
		}
		if got := h.parseCookie(forged, g.Route, horizon); got != nil {
			t.Errorf("%s honours an old-key cookie after the horizon: %+v", name, got)
		}
	}

	// Pruning: with generation 1 retired 3 h ago (longer than the longest
	// window, 2 h, and the slack), the next rotation removes it; 2, which
	// that rotation retires, stays.
	b2, _ := os.ReadFile(filepath.Join(dir, accessKeysPath))
	var sk storedKeys
	if err := json.Unmarshal(b2, &sk); err != nil || len(sk.Keys) != 2 {
		t.Fatalf("%s: %s %v", accessKeysPath, b2, err)
	}
	sk.Keys[0].Created = now.Add(-5 * time.Hour).UTC()
	sk.Keys[1].Created = now.Add(-3 * time.Hour).UTC()
	b2, _ = json.Marshal(sk)
	if err := os.WriteFile(filepath.Join(dir, accessKeysPath), b2, 0o600); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if err := rotate(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "now generation 3") || !strings.Contains(out.String(), "Removed generation 1: nothing it signed is honoured any more.") ||
		strings.Contains(out.String(), "Removed generation 2") {
		t.Fatalf("the second rotation said:\n%s", out.String())
	}
	if vs, err = (storageKeys{s: &certmagic.FileStorage{Path: dir}}).Versions(context.Background()); err != nil || len(vs) != 2 || vs[0].Gen != 2 || vs[1].Gen != 3 {
		t.Fatalf("after pruning: %+v, %v", vs, err)
	}
	plain, _ := os.ReadFile(filepath.Join(dir, accessSecretPath))
	if string(plain) != hex.EncodeToString(vs[1].Value) {
		t.Errorf("%s holds %s, want the newest key", accessSecretPath, plain)
	}
}
