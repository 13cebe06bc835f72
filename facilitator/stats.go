package facilitator

import (
	"github.com/caddy-x402/caddy-x402/facilitator/evm"
	"github.com/caddy-x402/caddy-x402/facilitator/exact"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
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

// RevertStats are a network's settlements that were mined and reverted,
// and the smart-contract wallet payments refused for it (exact.RevertStats).
type RevertStats = exact.RevertStats

// RevertStats returns every network's revert counts, for metrics.
func (f *Facilitator) RevertStats() []RevertStats {
	return exact.RevertCounts(f.boundsOf(x402.SchemeExact))
}

// SmartWalletStats are a network's smart-contract wallet settlements
// since the facilitator started (exact.SmartWalletStats).
type SmartWalletStats = exact.SmartWalletStats

// SmartWalletStats returns every network's smart-wallet counts, for metrics.
func (f *Facilitator) SmartWalletStats() []SmartWalletStats {
	return exact.WalletStats(f.boundsOf(x402.SchemeExact))
}
