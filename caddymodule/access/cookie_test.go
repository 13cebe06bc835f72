package access

import (
	"context"
	"crypto/tls"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/caddyserver/certmagic"

	"github.com/caddy-x402/caddy-x402/facilitator/store"
)

// TestAccessCookieValue: a cookie is honoured for its route until its end;
// another route, another key, an edit or the end make it nothing.
func TestAccessCookieValue(t *testing.T) {
	h := &Gate{keys: fixedKeyring(t, []byte("k"))}
	now := time.Unix(1_800_000_000, 0)
	g := &store.Grant{Route: strings.Repeat("ab", 16), Payer: "0x94E3F6Ec28A2D73543E60b9442c3ebEEEB63c70c", End: now.Add(time.Hour)}
	v := h.cookieValue(g)
	if got := h.parseCookie(v, g.Route, now); got == nil || got.Payer != strings.ToLower(g.Payer) || !got.End.Equal(g.End) {
		t.Fatalf("parseCookie = %+v", got)
	}
	other := &Gate{keys: fixedKeyring(t, []byte("another key"))}
	for name, c := range map[string]struct {
		h     *Gate
		value string
		route string
		now   time.Time
	}{
		"another route":   {h, v, strings.Repeat("cd", 16), now},
		"another key":     {other, v, g.Route, now},
		"ended":           {h, v, g.Route, now.Add(time.Hour)},
		"edited end":      {h, strings.Replace(v, ".1800003600.", ".1900003600.", 1), g.Route, now},
		"edited payer":    {h, strings.Replace(v, "0x94e3", "0x94e4", 1), g.Route, now},
		"no signature":    {h, v[:strings.LastIndexByte(v, '.')], g.Route, now},
		"garbage":         {h, "x", g.Route, now},
		"version 2":       {h, "2" + v[1:], g.Route, now},
		"empty signature": {h, v[:strings.LastIndexByte(v, '.')+1], g.Route, now},
	} {
		if got := c.h.parseCookie(c.value, c.route, c.now); got != nil {
			t.Errorf("%s: parseCookie = %+v, want nil", name, got)
		}
	}
	// Set: the flags, and nothing once the grant has ended.
	h.path = "/api/"
	for _, secure := range []bool{false, true} {
		w := &headerRecorder{h: http.Header{}}
		r, _ := http.NewRequest(http.MethodGet, "http://x/api/a", nil)
		if secure {
			r, _ = http.NewRequest(http.MethodGet, "https://x/api/a", nil)
			r.TLS = &tls.ConnectionState{}
		}
		h.setAccessCookie(w, r, g, now.Add(time.Minute))
		want := cookieName(g.Route) + "=" + v + "; Path=/api/; Max-Age=3540; HttpOnly; SameSite=Lax"
		if secure {
			want = cookieName(g.Route) + "=" + v + "; Path=/api/; Max-Age=3540; HttpOnly; Secure; SameSite=Lax"
		}
		if got := w.h.Get("Set-Cookie"); got != want {
			t.Errorf("TLS %v: Set-Cookie %q\nwant %q", secure, got, want)
		}
	}
	w := &headerRecorder{h: http.Header{}}
	r, _ := http.NewRequest(http.MethodGet, "http://x/api/a", nil)
	h.setAccessCookie(w, r, g, now.Add(time.Hour-time.Millisecond))
	if got := w.h.Get("Set-Cookie"); got != "" {
		t.Errorf("a grant with under a second left set %q", got)
	}
}

// TestStorageSecret: the key is made once in Caddy's storage, whoever asks
// at once, and read back after; a damaged one is an error that says what
// to do.
func TestStorageSecret(t *testing.T) {
	dir := t.TempDir()
	s := &certmagic.FileStorage{Path: dir}
	var wg sync.WaitGroup
	got := make([][]byte, 8)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Each caller its own storage value, as instances sharing a
			// directory would have.
			k, err := storageSecret(context.Background(), &certmagic.FileStorage{Path: dir}, accessSecretPath, func() ([]byte, error) {
				k := make([]byte, 32)
				k[0] = byte(i + 1)
				return k, nil
			})
			if err != nil {
				t.Error(err)
			}
			got[i] = k
		}()
	}
	wg.Wait()
	for i := range got {
		if len(got[i]) != 32 || string(got[i]) != string(got[0]) {
			t.Fatalf("caller %d got %x, caller 0 %x", i, got[i], got[0])
		}
	}
	again, err := storageSecret(context.Background(), s, accessSecretPath, func() ([]byte, error) { panic("made again") })
	if err != nil || string(again) != string(got[0]) {
		t.Fatalf("read back: %x, %v", again, err)
	}
	if err := os.WriteFile(filepath.Join(dir, accessSecretPath), []byte("zz"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = storageSecret(context.Background(), s, accessSecretPath, nil)
	if want := "the key x402/access.key in Caddy's storage is damaged: remove it and a new one is made (every access cookie given so far then stops working)"; err == nil || err.Error() != want {
		t.Fatalf("damaged key: %v, want %q", err, want)
	}
}

// headerRecorder is a ResponseWriter that keeps the header.
type headerRecorder struct{ h http.Header }

func (w *headerRecorder) Header() http.Header         { return w.h }
func (w *headerRecorder) Write(b []byte) (int, error) { return len(b), nil }
func (w *headerRecorder) WriteHeader(int)             {}
