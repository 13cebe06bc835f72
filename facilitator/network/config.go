// Package network is the facilitator's per-network runtime: a network's
// configuration (Config, the built-in networks), its RPC pool, token facts
// and EIP-712 domain check (Open), its settlement engine (StartEngine) and
// the gas prices shared by the settles of every scheme on it (FeeQuotes).
package network

import (
	"crypto/ecdsa"
	"fmt"
	"math/big"
	"strings"

	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// Built-in network names (networks.md).
const (
	CronosTestnet = "cronos-testnet"
	CronosMainnet = "cronos-mainnet"
)

// Config describes one EVM network with its EIP-3009 token. Any EVM
// chain with such a token can be added by configuration alone.
type Config struct {
	// Name is the network string buyers and sellers use, for example "cronos-testnet".
	Name string `json:"name"`
	// Aliases are other spellings of Name (for example "cronos" for "cronos-mainnet").
	Aliases []string `json:"aliases,omitempty"`
	// ChainID is the EVM chain ID; every RPC endpoint must report it.
	ChainID int64 `json:"chainId"`
	// RPCURLs are the JSON-RPC endpoints, tried in order.
	RPCURLs []string `json:"rpcUrls"`
	// Token is the EIP-3009 token contract address (the requirements' asset).
	Token string `json:"token"`
	// Decimals is the token's number of decimals (6 for USDC.e). Zero
	// means unknown: it is read from the token's decimals() at start.
	Decimals uint8 `json:"decimals"`
	// EIP712Name is the token's EIP-712 domain name. When empty it is read
	// from the token's name() once, at start.
	EIP712Name string `json:"eip712Name,omitempty"`
	// EIP712Version is the token's EIP-712 domain version. When empty it is
	// read from the token's version() once, at start.
	EIP712Version string `json:"eip712Version,omitempty"`
	// SkipOnchainVerify makes verify answer from the signature and the
	// window alone, without any RPC call (settle still checks on chain).
	SkipOnchainVerify bool `json:"skipOnchainVerify,omitempty"`
	// SmartWalletFactories are the ERC-6492 wallet factories (0x
	// addresses) through which the facilitator deploys a smart-contract
	// wallet that signed before it existed, paying the gas, and then
	// settles its payment (in one transaction). Empty (the default):
	// payments from wallets that are not deployed yet are refused.
	SmartWalletFactories []string `json:"smartWalletFactories,omitempty"`
	// SmartWalletMinAmount is the smallest payment, in the token's
	// smallest unit, for which the facilitator pays a wallet's deployment
	// (ERC-6492). Nil means 0.01 token (10^(decimals-2)); zero means any
	// amount.
	SmartWalletMinAmount *big.Int `json:"smartWalletMinAmount,omitempty"`
	// SignerKeys pay the gas of settlements on this network. Without one the
	// network can verify but not settle. Never serialised.
	SignerKeys []*ecdsa.PrivateKey `json:"-"`
}

// builtinNetworks are the networks of networks.md, without RPC URLs
// overridden or signer keys.
var builtinNetworks = []Config{
	{
		Name:          CronosTestnet,
		ChainID:       338,
		RPCURLs:       []string{"https://evm-t3.cronos.org"},
		Token:         "0xc01efAaF7C5C61bEbFAeb358E1161b537b8bC0e0",
		Decimals:      6,
		EIP712Name:    "Bridged USDC (Stargate)",
		EIP712Version: "1",
	},
	{
		Name:       CronosMainnet,
		Aliases:    []string{"cronos"},
		ChainID:    25,
		RPCURLs:    []string{"https://evm.cronos.org"},
		Token:      "0xf951eC28187D9E5Ca673Da8FE6757E6f0Be5F77C",
		Decimals:   6,
		EIP712Name: "Bridged USDC (Stargate)",
		// The documentation says "1", the published SDK says "2": the
		// version is read from the token on chain unless configured.
		EIP712Version: "",
	},
}

// Builtin returns the built-in configuration of a network by name or
// alias (case-insensitive): cronos-testnet, cronos-mainnet, cronos.
func Builtin(name string) (Config, bool) {
	for _, n := range builtinNetworks {
		if n.matches(name) {
			n.Aliases = append([]string(nil), n.Aliases...)
			n.RPCURLs = append([]string(nil), n.RPCURLs...)
			return n, true
		}
	}
	return Config{}, false
}

// BuiltinNames lists the names of the built-in networks.
func BuiltinNames() []string {
	names := make([]string, len(builtinNetworks))
	for i, n := range builtinNetworks {
		names[i] = n.Name
	}
	return names
}

func (n *Config) matches(name string) bool {
	if strings.EqualFold(n.Name, name) {
		return true
	}
	if id, ok := x402.ParseCAIP2(name); ok && id == n.ChainID {
		return true
	}
	for _, a := range n.Aliases {
		if strings.EqualFold(a, name) {
			return true
		}
	}
	return false
}

// Validate checks a configuration before anything is dialled.
func (n *Config) Validate() error {
	if n.Name == "" {
		return fmt.Errorf("network without a name: give every network a name such as %q", CronosTestnet)
	}
	if n.ChainID <= 0 {
		return fmt.Errorf("network %s: chain ID must be positive, got %d", n.Name, n.ChainID)
	}
	if len(n.RPCURLs) == 0 {
		return fmt.Errorf("network %s: no RPC URL configured", n.Name)
	}
	if !x402.IsAddress(n.Token) {
		return fmt.Errorf("network %s: token %q is not a 0x-prefixed 20-byte hex address", n.Name, n.Token)
	}
	for _, a := range n.SmartWalletFactories {
		if !x402.IsAddress(a) {
			return fmt.Errorf("network %s: smart wallet factory %q is not a 0x-prefixed 20-byte hex address", n.Name, a)
		}
	}
	if n.SmartWalletMinAmount != nil && n.SmartWalletMinAmount.Sign() < 0 {
		return fmt.Errorf("network %s: smart wallet minimum amount must not be negative, got %s", n.Name, n.SmartWalletMinAmount)
	}
	for i, k := range n.SignerKeys {
		if k == nil {
			return fmt.Errorf("network %s: signer key %d is empty", n.Name, i+1)
		}
	}
	return nil
}
