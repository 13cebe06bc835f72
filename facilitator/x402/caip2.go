package x402

import (
	"strconv"
	"strings"
)

// CAIP2Prefix starts every EVM network id of x402 version 2 (eip155:<chainId>).
const CAIP2Prefix = "eip155:"

// CAIP2 is the CAIP-2 id of an EVM chain: "eip155:338" for Cronos testnet.
func CAIP2(chainID int64) string { return CAIP2Prefix + strconv.FormatInt(chainID, 10) }

// ParseCAIP2 returns the chain id of an "eip155:<chainId>" network id.
func ParseCAIP2(network string) (int64, bool) {
	rest, ok := strings.CutPrefix(strings.ToLower(strings.TrimSpace(network)), CAIP2Prefix)
	if !ok || rest == "" || (len(rest) > 1 && rest[0] == '0') {
		return 0, false
	}
	id, err := strconv.ParseInt(rest, 10, 64)
	if err != nil || id <= 0 {
		return 0, false
	}
	return id, true
}

// v1ChainIDs are the chain ids of the version 1 network names the x402
// reference clients know, and the Cronos names, so that a v1 name can be
// turned into its CAIP-2 id.
var v1ChainIDs = map[string]int64{
	"cronos-testnet": 338, "cronos-mainnet": 25, "cronos": 25,
	"base": 8453, "base-sepolia": 84532, "avalanche": 43114, "avalanche-fuji": 43113,
	"polygon": 137, "polygon-amoy": 80002, "sei": 1329, "sei-testnet": 1328,
	"iotex": 4689, "peaq": 3338, "abstract": 2741, "abstract-testnet": 11124,
	"skale-base-sepolia": 324705682, "story": 1514,
}

// ChainIDOf returns the chain id a network id names: an "eip155:<id>" id,
// or a version 1 name the reference clients or Cronos use.
func ChainIDOf(network string) (int64, bool) {
	if id, ok := ParseCAIP2(network); ok {
		return id, true
	}
	id, ok := v1ChainIDs[strings.ToLower(strings.TrimSpace(network))]
	return id, ok
}
