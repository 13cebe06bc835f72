package facilitator

import "github.com/caddy-x402/caddy-x402/facilitator/evm"

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
