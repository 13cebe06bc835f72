package facilitator

import (
	"github.com/caddy-x402/caddy-x402/facilitator/evm"
	"github.com/caddy-x402/caddy-x402/facilitator/scheme"
)

// NetworkRPCStats is one network's JSON-RPC endpoints with their counts.
type NetworkRPCStats struct {
	// Network is the network's name.
	Network string
	// Endpoints are its endpoints (credentials redacted) with their
	// request and error counts since the facilitator started.
	Endpoints []evm.EndpointStats
}

// RPCStats returns every network's RPC endpoint counts, for metrics.
func (f *Facilitator) RPCStats() []NetworkRPCStats {
	out := make([]NetworkRPCStats, len(f.networks))
	for i, n := range f.networks {
		out[i] = NetworkRPCStats{Network: n.Cfg.Name, Endpoints: n.Pool.Stats()}
	}
	return out
}

// NetworkCounts is one network's counts of its schemes (scheme.Counted).
type NetworkCounts struct {
	// Network is the network's name.
	Network string
	// Counts are the counts of every scheme bound to it that keeps some,
	// in registration order.
	Counts []scheme.Count
}

// Counts returns every network's scheme counts, for metrics.
func (f *Facilitator) Counts() []NetworkCounts {
	var out []NetworkCounts
	for _, n := range f.networks {
		nc := NetworkCounts{Network: n.Cfg.Name}
		for _, m := range scheme.All() {
			if c, ok := f.bound[boundKey{n, m.Name()}].(scheme.Counted); ok {
				nc.Counts = append(nc.Counts, c.Counts()...)
			}
		}
		out = append(out, nc)
	}
	return out
}
