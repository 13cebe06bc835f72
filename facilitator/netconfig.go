package facilitator

import (
	"time"

	"github.com/caddy-x402/caddy-x402/facilitator/network"
)

// The network configuration lives in package network; these names are the
// library's face for it.

// Built-in network names (networks.md).
const (
	NetworkCronosTestnet = network.CronosTestnet
	NetworkCronosMainnet = network.CronosMainnet
)

// NetworkConfig describes one EVM network with its EIP-3009 token
// (network.Config).
type NetworkConfig = network.Config

// BuiltinNetwork returns the built-in configuration of a network by name or
// alias (case-insensitive): cronos-testnet, cronos-mainnet, cronos.
func BuiltinNetwork(name string) (NetworkConfig, bool) { return network.Builtin(name) }

// BuiltinNetworkNames lists the names of the built-in networks.
func BuiltinNetworkNames() []string { return network.BuiltinNames() }

// orDefault is d, or def when d is not positive.
func orDefault(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}
