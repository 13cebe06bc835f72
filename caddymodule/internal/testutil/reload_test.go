package testutil

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"sync"
	"testing"
)

func TestMain(m *testing.M) { Main(m) }

// TestRequestsAfterReload loads one configuration after another into the
// test Caddy, through NewTester and LoadConfig, and sends requests right
// after each load on fresh connections and on a client kept across loads:
// each must be answered by the configuration just loaded, with no transport
// error (issue 37: a request on a fresh connection that reached the
// previous configuration's listener was dropped, "EOF"). RELOADS sets the
// number of loads (default 40).
func TestRequestsAfterReload(t *testing.T) {
	n := 40
	if s := os.Getenv("RELOADS"); s != "" {
		if _, err := fmt.Sscan(s, &n); err != nil {
			t.Fatalf("RELOADS=%q: %v", s, err)
		}
	}
	site := func(gen int) string {
		return fmt.Sprintf(`{
	admin localhost:%d
	http_port %d
	https_port %d
	grace_period 1s
	skip_install_trust
}
:%d {
	respond "gen %d"
}
`, AdminPort, SitePort, HTTPSPort, SitePort, gen)
	}
	kept := NewTester(t, site(0)).Client
	var errs, wrong int
	for gen := 1; gen <= n; gen++ {
		if gen%2 == 0 {
			NewTester(t, site(gen))
		} else {
			LoadConfig(t, site(gen))
		}
		want := fmt.Sprintf("gen %d", gen)
		var wg sync.WaitGroup
		var mu sync.Mutex
		for i := 0; i < 8; i++ {
			c := kept
			if i%2 == 0 { // a fresh connection
				c = &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
			}
			wg.Go(func() {
				resp, err := c.Get(SiteURL + "/")
				mu.Lock()
				defer mu.Unlock()
				if err != nil {
					errs++
					t.Logf("load %d: %v", gen, err)
					return
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if string(b) != want {
					wrong++
					t.Logf("load %d: answered %q", gen, b)
				}
			})
		}
		wg.Wait()
	}
	if errs+wrong > 0 {
		t.Errorf("%d loads: %d requests failed, %d answered by an earlier configuration", n, errs, wrong)
	}
}
