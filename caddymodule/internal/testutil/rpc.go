package testutil

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/caddy-x402/caddy-x402/facilitator/devnet"
)

// RPCCounter is a reverse proxy in front of the devnet's JSON-RPC that
// counts the calls going through it by method (batches count each call).
type RPCCounter struct {
	*httptest.Server
	mu    sync.Mutex
	calls map[string]int
	Down  atomic.Bool // connections are cut without an answer
}

// NewRPCCounter starts an RPCCounter in front of target.
func NewRPCCounter(t testing.TB, target string) *RPCCounter {
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	c := &RPCCounter{calls: map[string]int{}}
	proxy := httputil.NewSingleHostReverseProxy(u)
	c.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if c.Down.Load() {
			if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
				conn.Close()
			}
			return
		}
		// Credentials a provider would want in the URL go no further.
		r.URL.Path, r.URL.RawQuery = "/", ""
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		var one struct{ Method string }
		var batch []struct{ Method string }
		c.mu.Lock()
		if json.Unmarshal(body, &batch) == nil {
			for _, m := range batch {
				c.calls[m.Method]++
			}
		} else if json.Unmarshal(body, &one) == nil {
			c.calls[one.Method]++
		}
		c.mu.Unlock()
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(c.Close)
	return c
}

// Count returns the calls of method so far.
func (c *RPCCounter) Count(method string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.calls[method]
}

// MeteredNetwork is an x402 app network option for the devnet reached
// through rpc (a counting proxy), named metered.
func MeteredNetwork(rpc *RPCCounter) string {
	return fmt.Sprintf(`network metered {
			chain_id %d
			rpc %s
			token %s
			eip712_name "%s"
			eip712_version %s
		}`, devnet.ChainID, rpc.URL, devnet.TokenAddress.Hex(), devnet.TokenName, devnet.TokenVersion)
}
