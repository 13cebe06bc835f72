package facilitator

import (
	"crypto/ecdsa"

	"github.com/caddy-x402/caddy-x402/facilitator/evm"
)

// Chain access lives in package evm; these names keep the facilitator's
// callers compiling, and the texts below turn chain facts into the
// spec's reasons.

// Domain is a token's EIP-712 domain (evm.Domain).
type Domain = evm.Domain

// EndpointHealth is one RPC endpoint's state (evm.EndpointHealth).
type EndpointHealth = evm.EndpointHealth

// ParseKey parses a secp256k1 private key written as 64 hex digits, with or
// without 0x. The error never repeats the key.
func ParseKey(hexKey string) (*ecdsa.PrivateKey, error) { return evm.ParseKey(hexKey) }

// KeyFromEnv reads a private key from an environment variable.
func KeyFromEnv(name string) (*ecdsa.PrivateKey, error) { return evm.KeyFromEnv(name) }

// KeyFromFile reads a private key (hex, surrounding white space ignored)
// from a file.
func KeyFromFile(path string) (*ecdsa.PrivateKey, error) { return evm.KeyFromFile(path) }
