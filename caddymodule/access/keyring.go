package access

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/certmagic"
	"go.uber.org/zap"

	"github.com/caddy-x402/caddy-x402/facilitator/store"
)

// The server key behind access cookies and sign-in challenges, rotated
// across running instances. The storage (Caddy's, or PostgreSQL with
// storage postgres) keeps its generations; "caddy x402 rotate-key" adds
// one. Every instance reads them at start, again every accessKeyPoll, and
// at once (at most every accessKeyMissGap) when a cookie or a nonce
// verifies under none of the keys it knows: so a cookie that an instance
// signed with a newer key is honoured everywhere at once, and every
// instance signs with the newest key within accessKeyPoll. An older key
// stopped signing when the next one was stored (retired), give or take
// accessKeySlack (the poll and the clock skew between instances), so a
// route honours it for cookies until retired + slack + the route's access
// window (no cookie it signed ends later), and for challenges until
// retired + slack + their 5 minutes; after that the route forgets it. The
// rotation removes from the storage the generations that the config's
// longest window no longer needs.

// Intervals of the key refresh. Variables for tests.
var (
	// accessKeyPoll is how often an instance reads the keys.
	accessKeyPoll = 10 * time.Second
	// accessKeyMissGap is the least time between two reads caused by a
	// cookie or a nonce that no known key verifies (anyone can send one).
	accessKeyMissGap = time.Second
)

// accessKeySlack is how long after its retirement an old key may still
// have signed: an instance learns of the new one within accessKeyPoll, and
// instances' clocks may differ by siwxSkew.
func accessKeySlack() time.Duration { return accessKeyPoll + siwxSkew }

// accessKey is one generation of the server key, with the keys derived
// from it.
type accessKey struct {
	gen           int
	cookie, nonce []byte
	// retired is when the next generation was stored; zero for the
	// newest, which signs.
	retired time.Time
}

// honoured reports whether a route honours k at now for what lives up
// to life after it was signed (a cookie: the access window; a challenge:
// its 5 minutes and the skew).
func (k *accessKey) honoured(now time.Time, life time.Duration) bool {
	return k.retired.IsZero() || now.Before(k.retired.Add(accessKeySlack()+life))
}

// KeySource is where the generations of the server key live:
// PostgresKeys or StorageKeys.
type KeySource interface {
	// Versions lists them, oldest first, making the first when there is
	// none.
	Versions(ctx context.Context) ([]store.SecretVersion, error)
	// Rotate adds a new generation and removes the old ones keep refuses.
	Rotate(ctx context.Context, keep func(v store.SecretVersion, retired time.Time) bool) (store.SecretVersion, []store.SecretVersion, error)
	// Where names the storage for logs and the command's output.
	Where() string
}

// newKey is 32 random bytes.
func newKey() ([]byte, error) {
	k := make([]byte, 32)
	_, err := rand.Read(k)
	return k, err
}

// PostgresKeys is the server key in PostgreSQL (x402_secrets) at place
// (the store's Where, for logs).
func PostgresKeys(s store.RotatingSecrets, place string) KeySource { return pgKeys{s: s, place: place} }

// StorageKeys is the server key in Caddy's storage s.
func StorageKeys(s certmagic.Storage) KeySource { return storageKeys{s: s} }

// keyrings holds the keyrings of the storages in use, one per storage in
// the process, kept across config reloads.
var keyrings = caddy.NewUsagePool()

// pgKeys is the server key in PostgreSQL (x402_secrets).
type pgKeys struct {
	s     store.RotatingSecrets
	place string
}

func (p pgKeys) Versions(ctx context.Context) ([]store.SecretVersion, error) {
	vs, err := p.s.SecretVersions(ctx, accessSecretName)
	if err != nil || len(vs) > 0 {
		return vs, err
	}
	// None yet: the first instance to store one wins.
	if _, err := p.s.Secret(ctx, accessSecretName, newKey); err != nil {
		return nil, err
	}
	return p.s.SecretVersions(ctx, accessSecretName)
}

func (p pgKeys) Rotate(ctx context.Context, keep func(store.SecretVersion, time.Time) bool) (store.SecretVersion, []store.SecretVersion, error) {
	return p.s.RotateSecret(ctx, accessSecretName, newKey, keep)
}

func (p pgKeys) Where() string {
	return "PostgreSQL " + p.place + " (x402_secrets " + accessSecretName + ")"
}

// Caddy's storage keeps the key in accessSecretPath (hex: the newest, as
// builds that know no rotation read it) and, once rotated, every
// generation in accessKeysPath.
const accessKeysPath = "x402/access-keys.json"

// storageKeys is the server key in Caddy's storage.
type storageKeys struct{ s certmagic.Storage }

// storedKeys is accessKeysPath's content.
type storedKeys struct {
	Keys []storedKey `json:"keys"`
}

type storedKey struct {
	Gen     int       `json:"gen"`
	Key     string    `json:"key"` // hex
	Created time.Time `json:"created"`
}

func (s storageKeys) Versions(ctx context.Context) ([]store.SecretVersion, error) {
	b, err := s.s.Load(ctx, accessKeysPath)
	switch {
	case err == nil:
		return parseStoredKeys(b)
	case !errors.Is(err, fs.ErrNotExist):
		return nil, err
	}
	k, err := storageSecret(ctx, s.s, accessSecretPath, newKey)
	if err != nil {
		return nil, err
	}
	var created time.Time
	if info, err := s.s.Stat(ctx, accessSecretPath); err == nil {
		created = info.Modified
	}
	return []store.SecretVersion{{Gen: 1, Value: k, Created: created}}, nil
}

func parseStoredKeys(b []byte) ([]store.SecretVersion, error) {
	var sk storedKeys
	if err := json.Unmarshal(b, &sk); err != nil {
		return nil, fmt.Errorf("%s in Caddy's storage is damaged (%v): restore it, or remove it and %s (every access cookie given so far then stops working)", accessKeysPath, err, accessSecretPath)
	}
	var out []store.SecretVersion
	for _, k := range sk.Keys {
		v, err := hex.DecodeString(k.Key)
		if err != nil || len(v) != 32 || k.Gen < 1 {
			return nil, fmt.Errorf("%s in Caddy's storage holds a damaged key (generation %d): restore it, or remove it and %s", accessKeysPath, k.Gen, accessSecretPath)
		}
		out = append(out, store.SecretVersion{Gen: k.Gen, Value: v, Created: k.Created})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s in Caddy's storage holds no key: remove it, and %s is the key", accessKeysPath, accessSecretPath)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Gen < out[j].Gen })
	return out, nil
}

// Rotate writes the generations with a new one under the storage's lock
// (the one under which the first key is made), then the newest as the
// plain key. With no key yet, it makes the first.
func (s storageKeys) Rotate(ctx context.Context, keep func(store.SecretVersion, time.Time) bool) (store.SecretVersion, []store.SecretVersion, error) {
	if err := s.s.Lock(ctx, accessSecretPath); err != nil {
		return store.SecretVersion{}, nil, fmt.Errorf("locking %s in Caddy's storage: %w", accessSecretPath, err)
	}
	defer s.s.Unlock(context.WithoutCancel(ctx), accessSecretPath)
	fresh, err := newKey()
	if err != nil {
		return store.SecretVersion{}, nil, err
	}
	var vs []store.SecretVersion
	b, err := s.s.Load(ctx, accessKeysPath)
	switch {
	case err == nil:
		if vs, err = parseStoredKeys(b); err != nil {
			return store.SecretVersion{}, nil, err
		}
	case !errors.Is(err, fs.ErrNotExist):
		return store.SecretVersion{}, nil, err
	default:
		// Never rotated: the plain key, if any, is generation 1.
		plain, err := s.s.Load(ctx, accessSecretPath)
		if errors.Is(err, fs.ErrNotExist) {
			first := store.SecretVersion{Gen: 1, Value: fresh, Created: time.Now().UTC()}
			if err := s.s.Store(ctx, accessSecretPath, []byte(hex.EncodeToString(fresh))); err != nil {
				return store.SecretVersion{}, nil, fmt.Errorf("storing %s in Caddy's storage: %w", accessSecretPath, err)
			}
			return first, nil, nil
		} else if err != nil {
			return store.SecretVersion{}, nil, err
		}
		k, err := hex.DecodeString(strings.TrimSpace(string(plain)))
		if err != nil || len(k) != 32 {
			return store.SecretVersion{}, nil, fmt.Errorf("the key %s in Caddy's storage is damaged: remove it and a new one is made (every access cookie given so far then stops working)", accessSecretPath)
		}
		v := store.SecretVersion{Gen: 1, Value: k}
		if info, err := s.s.Stat(ctx, accessSecretPath); err == nil {
			v.Created = info.Modified.UTC()
		}
		vs = []store.SecretVersion{v}
	}
	added := store.SecretVersion{Gen: vs[len(vs)-1].Gen + 1, Value: fresh, Created: time.Now().UTC()}
	var kept, dropped []store.SecretVersion
	for i, v := range vs {
		retired := added.Created
		if i+1 < len(vs) {
			retired = vs[i+1].Created
		}
		if keep == nil || keep(v, retired) {
			kept = append(kept, v)
		} else {
			dropped = append(dropped, v)
		}
	}
	var sk storedKeys
	for _, v := range append(kept, added) {
		sk.Keys = append(sk.Keys, storedKey{Gen: v.Gen, Key: hex.EncodeToString(v.Value), Created: v.Created})
	}
	b, _ = json.MarshalIndent(sk, "", "  ")
	if err := s.s.Store(ctx, accessKeysPath, b); err != nil {
		return store.SecretVersion{}, nil, fmt.Errorf("storing %s in Caddy's storage: %w", accessKeysPath, err)
	}
	if err := s.s.Store(ctx, accessSecretPath, []byte(hex.EncodeToString(fresh))); err != nil {
		return store.SecretVersion{}, nil, fmt.Errorf("storing %s in Caddy's storage: %w", accessSecretPath, err)
	}
	return added, dropped, nil
}

func (s storageKeys) Where() string {
	return fmt.Sprintf("Caddy's storage %v (%s)", s.s, accessKeysPath)
}

// accessKeyring is the server key's generations as an instance knows
// them, shared (in the usage pool) by the routes on one storage, read
// again every accessKeyPoll and on a miss.
type accessKeyring struct {
	src    KeySource
	logger *zap.Logger

	mu       sync.RWMutex
	keys     []*accessKey // newest first
	failing  bool         // the last read failed (logged once)
	readMu   sync.Mutex   // one read at a time
	lastRead time.Time

	stop chan struct{}
	done chan struct{}
}

// newAccessKeyring reads the keys and starts polling.
func newAccessKeyring(ctx context.Context, src KeySource, logger *zap.Logger) (*accessKeyring, error) {
	k := &accessKeyring{src: src, logger: logger, stop: make(chan struct{}), done: make(chan struct{})}
	if err := k.read(ctx); err != nil {
		return nil, err
	}
	go k.poll()
	return k, nil
}

// Destruct stops the polling.
func (k *accessKeyring) Destruct() error {
	close(k.stop)
	<-k.done
	return nil
}

func (k *accessKeyring) poll() {
	defer close(k.done)
	t := time.NewTicker(accessKeyPoll)
	defer t.Stop()
	for {
		select {
		case <-k.stop:
			return
		case <-t.C:
			ctx, cancel := context.WithTimeout(context.Background(), accessKeyPoll)
			k.readLogged(ctx)
			cancel()
		}
	}
}

// read loads the generations from the storage.
func (k *accessKeyring) read(ctx context.Context) error {
	k.readMu.Lock()
	defer k.readMu.Unlock()
	return k.readLocked(ctx)
}

func (k *accessKeyring) readLocked(ctx context.Context) error {
	k.lastRead = time.Now()
	vs, err := k.src.Versions(ctx)
	if err != nil {
		return err
	}
	if len(vs) == 0 {
		return errors.New("the storage holds no server key")
	}
	keys := make([]*accessKey, len(vs))
	for i, v := range vs {
		if len(v.Value) != 32 {
			return fmt.Errorf("generation %d of the server key is %d bytes, not 32", v.Gen, len(v.Value))
		}
		ak := &accessKey{gen: v.Gen, cookie: deriveKey(v.Value, "x402 access cookie"), nonce: deriveKey(v.Value, "x402 sign-in-with-x nonce")}
		if i+1 < len(vs) {
			ak.retired = vs[i+1].Created
		}
		keys[len(vs)-1-i] = ak
	}
	k.mu.Lock()
	prev := 0
	if len(k.keys) > 0 {
		prev = k.keys[0].gen
	}
	k.keys = keys
	k.mu.Unlock()
	if prev != 0 && keys[0].gen != prev {
		k.logger.Info("the access server key was rotated: signing with the new generation, honouring the older ones until what they signed expires",
			zap.Int("generation", keys[0].gen), zap.Int("previous", prev), zap.String("storage", k.src.Where()))
	}
	return nil
}

// readLogged reads the keys, logging a failure once per streak: the
// instance keeps the keys it has.
func (k *accessKeyring) readLogged(ctx context.Context) {
	err := k.read(ctx)
	k.mu.Lock()
	first := err != nil && !k.failing
	back := err == nil && k.failing
	k.failing = err != nil
	k.mu.Unlock()
	switch {
	case first:
		k.logger.Warn("reading the access server keys failed; the keys read before stay in use (a rotation reaches this instance once the storage answers)",
			zap.String("storage", k.src.Where()), zap.Error(err))
	case back:
		k.logger.Info("the access server keys can be read again", zap.String("storage", k.src.Where()))
	}
}

// current is the keys, newest first: the first signs.
func (k *accessKeyring) current() []*accessKey {
	k.mu.RLock()
	defer k.mu.RUnlock()
	return k.keys
}

// missed reads the keys again after something verified under none of
// them, unless a read was made within accessKeyMissGap. It reports
// whether a newer generation arrived.
func (k *accessKeyring) missed() bool {
	if !k.readMu.TryLock() {
		return false // a read is under way
	}
	defer k.readMu.Unlock()
	if time.Since(k.lastRead) < accessKeyMissGap {
		return false
	}
	before := k.current()[0].gen
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := k.readLocked(ctx); err != nil {
		k.logger.Debug("reading the access server keys after a miss failed", zap.Error(err))
		return false
	}
	return k.current()[0].gen != before
}

// provisionKeyring gets the keyring of the route's storage from the usage
// pool (one per storage in the process, kept across reloads).
func (a *Gate) provisionKeyring(ctx caddy.Context, st store.Redemptions) (*accessKeyring, error) {
	var src KeySource
	if s, ok := st.(store.Secrets); ok {
		rs, ok := s.(store.RotatingSecrets)
		if !ok {
			return nil, fmt.Errorf("the redemption store's secrets (%T) cannot be rotated", s)
		}
		place := ""
		if w, ok := rs.(interface{ Where() string }); ok {
			place = w.Where()
		}
		src = pgKeys{s: rs, place: place}
	} else {
		src = storageKeys{s: ctx.Storage()}
	}
	sum := sha256.Sum256([]byte(fmt.Sprintf("%T %p %s", src, st, src.Where())))
	key := "access-keys:" + hex.EncodeToString(sum[:])
	val, _, err := keyrings.LoadOrNew(key, func() (caddy.Destructor, error) {
		cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		return newAccessKeyring(cctx, src, a.logger)
	})
	if err != nil {
		return nil, err
	}
	a.poolKey = key
	return val.(*accessKeyring), nil
}

// signingKey is the key that signs now: the newest.
func (a *Gate) signingKey() *accessKey { return a.keys.current()[0] }

// verifyWith runs ok with each key honoured at now for what lives life
// after it was signed, newest first, until one verifies; when none does,
// it reads the keys again (a newer generation may have signed) and tries
// once more.
func (a *Gate) verifyWith(now time.Time, life time.Duration, ok func(*accessKey) bool) bool {
	try := func() bool {
		for _, k := range a.keys.current() {
			if k.honoured(now, life) && ok(k) {
				return true
			}
		}
		return false
	}
	return try() || (a.keys.missed() && try())
}

// KeepKey is the rotation's rule: a generation stays while a
// route's window (the longest, window) may still honour it.
func KeepKey(now time.Time, window time.Duration) func(store.SecretVersion, time.Time) bool {
	life := max(window, siwxMaxAge+siwxSkew)
	return func(_ store.SecretVersion, retired time.Time) bool {
		return now.Before(retired.Add(accessKeySlack() + life))
	}
}

// storageSecret is a secret in Caddy's storage (certmagic.Storage: the
// data directory's files by default, or the storage module configured),
// made by gen the first time: under the storage's lock, so that instances
// sharing the storage and starting at once make one. It is kept as hex.
func storageSecret(ctx context.Context, s certmagic.Storage, key string, gen func() ([]byte, error)) ([]byte, error) {
	read := func() ([]byte, error) {
		v, err := s.Load(ctx, key)
		if err != nil {
			return nil, err
		}
		k, err := hex.DecodeString(strings.TrimSpace(string(v)))
		if err != nil || len(k) != 32 {
			return nil, fmt.Errorf("the key %s in Caddy's storage is damaged: remove it and a new one is made (every access cookie given so far then stops working)", key)
		}
		return k, nil
	}
	if k, err := read(); err == nil || !errors.Is(err, fs.ErrNotExist) {
		return k, err
	}
	if err := s.Lock(ctx, key); err != nil {
		return nil, fmt.Errorf("locking %s in Caddy's storage: %w", key, err)
	}
	defer s.Unlock(context.WithoutCancel(ctx), key)
	if k, err := read(); err == nil || !errors.Is(err, fs.ErrNotExist) {
		return k, err
	}
	k, err := gen()
	if err != nil {
		return nil, err
	}
	if err := s.Store(ctx, key, []byte(hex.EncodeToString(k))); err != nil {
		return nil, fmt.Errorf("storing %s in Caddy's storage: %w", key, err)
	}
	return k, nil
}

// deriveKey is a key of its own for one use of the server key.
func deriveKey(key []byte, use string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(use))
	return m.Sum(nil)
}
