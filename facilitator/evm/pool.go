// Package evm is the facilitator's access to EVM chains: the JSON-RPC
// endpoint pool with failover and lag checks, EIP-712 domains, a token's
// generic ERC-20 reads (a scheme's own methods, such as EIP-3009's, live
// with the scheme), contract-wallet checks (EIP-1271, ERC-6492), and
// signer keys and signatures. It knows nothing of HTTP, of settlements or
// of Permit2 (facilitator/permit2).
package evm

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/rpc"
	"go.uber.org/zap"
)

// Pool holds a network's JSON-RPC endpoints. Calls go to the first
// healthy endpoint; one whose transport fails is skipped for a cool-down
// and the call moves on to the next.
type Pool struct {
	network   string
	chainID   *big.Int
	endpoints []*endpoint
	logger    *zap.Logger
	coolDown  time.Duration
	gather    gatherer        // calls of BatchShared waiting to share a batch
	transport *http.Transport // the endpoints' HTTP connections
}

type endpoint struct {
	url    string
	client *rpc.Client

	requests atomic.Uint64 // JSON-RPC round trips (a batch is one)
	failures atomic.Uint64 // round trips that failed (transport or JSON-RPC error)

	mu        sync.Mutex
	verified  bool      // eth_chainId was checked
	disabled  error     // permanent: wrong chain
	failUntil time.Time // skipped until then after a transport failure or lag
	head      uint64    // head at the last lag check
	problem   string    // why it was last skipped, for health
}

// CallTimeout bounds one JSON-RPC round trip.
const CallTimeout = 10 * time.Second

// NewPool dials the endpoints of a network (nothing is sent yet).
func NewPool(network string, chainID *big.Int, urls []string, logger *zap.Logger) (*Pool, error) {
	p := &Pool{network: network, chainID: chainID, logger: logger, coolDown: 5 * time.Second}
	// Settles come in bursts of concurrent calls: keep enough idle
	// connections to each node that a burst does not open (and close)
	// hundreds of them.
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConns = 512
	tr.MaxIdleConnsPerHost = 256
	// Answers come uncompressed: gzip costs more CPU (and a decompressor
	// per connection) than it saves on a node's short JSON answers.
	tr.DisableCompression = true
	p.transport = tr
	httpClient := &http.Client{Timeout: CallTimeout, Transport: tr}
	for _, u := range urls {
		c, err := rpc.DialOptions(context.Background(), u, rpc.WithHTTPClient(httpClient))
		if err != nil {
			p.Close()
			return nil, fmt.Errorf("network %s: RPC URL %s: %w", network, RedactURL(u), RedactError(err, u))
		}
		p.endpoints = append(p.endpoints, &endpoint{url: u, client: c})
	}
	return p, nil
}

// Close closes the endpoints' connections: the clients, and the idle HTTP
// connections (rpc.Client.Close leaves those of an HTTP endpoint open
// until the transport's idle timeout, so every replaced pool, one per
// config reload, would keep its sockets for 90 s). A call still running is
// not cut; its connection times out idle as before.
func (p *Pool) Close() {
	for _, e := range p.endpoints {
		e.client.Close()
	}
	p.transport.CloseIdleConnections()
}

// CheckChainIDs asks every endpoint for eth_chainId. A wrong chain ID is an
// error; so is no endpoint answering at all. An endpoint that does not
// answer is checked again before its first use.
func (p *Pool) CheckChainIDs(ctx context.Context) error {
	var reachable int
	var errs []error
	for _, e := range p.endpoints {
		err := p.verify(ctx, e)
		if err == nil {
			reachable++
			continue
		}
		if e.disabled != nil {
			return e.disabled
		}
		errs = append(errs, err)
		p.logger.Warn("RPC endpoint did not answer eth_chainId; it will be checked again before use",
			zap.String("network", p.network), zap.String("rpc", RedactURL(e.url)), zap.Error(err))
	}
	if reachable == 0 {
		return fmt.Errorf("network %s: no RPC endpoint answered eth_chainId (%w); check the rpc URLs and that the node is up: %w",
			p.network, errors.Join(errs...), ErrNoEndpoint)
	}
	return nil
}

func (p *Pool) verify(ctx context.Context, e *endpoint) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.disabled != nil {
		return e.disabled
	}
	if e.verified {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, CallTimeout)
	defer cancel()
	var id hexutil.Big
	if err := e.do(ctx, func(ctx context.Context, c *rpc.Client) error {
		return c.CallContext(ctx, &id, "eth_chainId")
	}); err != nil {
		return err
	}
	if (*big.Int)(&id).Cmp(p.chainID) != 0 {
		e.disabled = fmt.Errorf("network %s: RPC %s reports chain ID %s, but the network is configured with chain ID %s; point the network at the right node or fix its chain ID",
			p.network, RedactURL(e.url), (*big.Int)(&id), p.chainID)
		return e.disabled
	}
	e.verified = true
	return nil
}

// ErrNoEndpoint is returned when every endpoint is failing.
var ErrNoEndpoint = errors.New("no RPC endpoint is reachable")

// Do runs fn on an endpoint, moving to the next endpoint when the transport
// fails. A JSON-RPC error answer is returned as it is: the node was reached.
func (p *Pool) Do(ctx context.Context, fn func(ctx context.Context, c *rpc.Client) error) error {
	var lastErr error
	now := time.Now()
	for pass := 0; pass < 2; pass++ {
		for _, e := range p.endpoints {
			e.mu.Lock()
			skip := e.disabled != nil || (pass == 0 && now.Before(e.failUntil))
			e.mu.Unlock()
			if skip {
				continue
			}
			if err := p.verify(ctx, e); err != nil {
				lastErr = err
				p.markFailed(e, err)
				continue
			}
			cctx, cancel := context.WithTimeout(ctx, CallTimeout)
			err := e.do(cctx, fn)
			cancel()
			if err == nil || !IsTransportError(err) {
				return err
			}
			if ctx.Err() != nil {
				return ctx.Err()
			}
			lastErr = err
			p.markFailed(e, err)
		}
	}
	if lastErr == nil {
		lastErr = ErrNoEndpoint
	}
	return fmt.Errorf("network %s: %w", p.network, lastErr)
}

func (p *Pool) markFailed(e *endpoint, err error) {
	e.mu.Lock()
	e.failUntil = time.Now().Add(p.coolDown)
	e.problem = err.Error()
	e.mu.Unlock()
	p.logger.Warn("RPC endpoint failed; trying the next one",
		zap.String("network", p.network), zap.String("rpc", RedactURL(e.url)), zap.Error(err))
}

// Batch sends the elements in one JSON-RPC batch. Per-element errors are
// left in each element's Error.
func (p *Pool) Batch(ctx context.Context, elems []rpc.BatchElem) error {
	return p.Do(ctx, func(ctx context.Context, c *rpc.Client) error {
		for i := range elems {
			elems[i].Error = nil
		}
		if err := c.BatchCallContext(ctx, elems); err != nil {
			return err
		}
		// A node that answers every element with a transport-level
		// failure is treated as unreachable.
		for _, el := range elems {
			if el.Error != nil && IsTransportError(el.Error) {
				return el.Error
			}
		}
		return nil
	})
}

// Call is a single JSON-RPC call with failover.
func (p *Pool) Call(ctx context.Context, result any, method string, args ...any) error {
	return p.Do(ctx, func(ctx context.Context, c *rpc.Client) error {
		return c.CallContext(ctx, result, method, args...)
	})
}

// IsTransportError tells a failure to reach the node from an answer of the
// node (a JSON-RPC error, such as a revert).
func IsTransportError(err error) bool {
	var rpcErr rpc.Error
	if errors.As(err, &rpcErr) {
		return false
	}
	var httpErr rpc.HTTPError
	if errors.As(err, &httpErr) {
		return true
	}
	return !errors.Is(err, context.Canceled)
}

// MaxLagBlocks is how far behind the best endpoint's head an endpoint may
// be before it is skipped as lagging.
const MaxLagBlocks = 3

// CheckLag asks every endpoint for its head at once. One that fails, or
// whose head is more than MaxLagBlocks behind the best, is skipped for the
// cool-down; reads from a node that has fallen behind would give stale
// authorization states and balances. With a single endpoint there is
// nothing to compare, and it is not asked.
func (p *Pool) CheckLag(ctx context.Context) {
	if len(p.endpoints) < 2 {
		return
	}
	heads := make([]uint64, len(p.endpoints))
	errs := make([]error, len(p.endpoints))
	var wg sync.WaitGroup
	for i, e := range p.endpoints {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if errs[i] = p.verify(ctx, e); errs[i] != nil {
				return
			}
			cctx, cancel := context.WithTimeout(ctx, LagTimeout)
			defer cancel()
			var h hexutil.Uint64
			errs[i] = e.do(cctx, func(ctx context.Context, c *rpc.Client) error {
				return c.CallContext(ctx, &h, "eth_blockNumber")
			})
			heads[i] = uint64(h)
		}()
	}
	wg.Wait()
	var best uint64
	for i := range heads {
		if errs[i] == nil {
			best = max(best, heads[i])
		}
	}
	for i, e := range p.endpoints {
		switch {
		case errs[i] != nil:
			p.markFailed(e, errs[i])
		case heads[i]+MaxLagBlocks < best:
			p.markFailed(e, fmt.Errorf("lagging: head %d is %d blocks behind %d", heads[i], best-heads[i], best))
		default:
			e.mu.Lock()
			e.head, e.problem = heads[i], ""
			e.failUntil = time.Time{}
			e.mu.Unlock()
		}
	}
}

// LagTimeout bounds the head query of the lag check: an endpoint slower
// than this is lagging too.
const LagTimeout = 3 * time.Second

// EndpointHealth is one RPC endpoint's state.
type EndpointHealth struct {
	// URL is the endpoint, with any query (API keys) cut off.
	URL string `json:"url"`
	// InUse is false while the endpoint is skipped.
	InUse bool `json:"inUse"`
	// Problem is why it was last skipped.
	Problem string `json:"problem,omitempty"`
}

// Health reports every endpoint's state.
func (p *Pool) Health() []EndpointHealth {
	out := make([]EndpointHealth, len(p.endpoints))
	now := time.Now()
	for i, e := range p.endpoints {
		e.mu.Lock()
		out[i] = EndpointHealth{URL: RedactURL(e.url), InUse: e.disabled == nil && !now.Before(e.failUntil), Problem: e.problem}
		if e.disabled != nil {
			out[i].Problem = e.disabled.Error()
		}
		e.mu.Unlock()
	}
	return out
}

// do runs one round trip on the endpoint: it is counted, and an error that
// repeats the endpoint's URL (Go's HTTP errors do) has it redacted.
func (e *endpoint) do(ctx context.Context, fn func(ctx context.Context, c *rpc.Client) error) error {
	e.requests.Add(1)
	err := fn(ctx, e.client)
	if err != nil {
		e.failures.Add(1)
	}
	return RedactError(err, e.url)
}

// EndpointStats counts an endpoint's JSON-RPC round trips.
type EndpointStats struct {
	// URL is the endpoint with its credentials redacted (RedactURL).
	URL string
	// Requests is the number of round trips (a batch counts once).
	Requests uint64
	// Errors is the number of round trips that failed.
	Errors uint64
}

// Stats returns every endpoint's counts since the pool was made.
func (p *Pool) Stats() []EndpointStats {
	out := make([]EndpointStats, len(p.endpoints))
	for i, e := range p.endpoints {
		out[i] = EndpointStats{URL: RedactURL(e.url), Requests: e.requests.Load(), Errors: e.failures.Load()}
	}
	return out
}
