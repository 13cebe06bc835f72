package evm

import (
	"crypto/ecdsa"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
)

// ParseKey parses a secp256k1 private key written as 64 hex digits, with or
// without 0x. The error never repeats the key.
func ParseKey(hexKey string) (*ecdsa.PrivateKey, error) {
	s := strings.TrimSpace(hexKey)
	s = strings.TrimPrefix(strings.TrimPrefix(s, "0x"), "0X")
	if s == "" {
		return nil, errors.New("private key is empty")
	}
	if len(s) != 64 {
		return nil, fmt.Errorf("private key must be 32 bytes as 64 hex digits, got %d characters", len(s))
	}
	k, err := crypto.HexToECDSA(s)
	if err != nil {
		return nil, errors.New("private key is not a valid secp256k1 private key in hex")
	}
	return k, nil
}

// KeyFromEnv reads a private key from an environment variable.
func KeyFromEnv(name string) (*ecdsa.PrivateKey, error) {
	v, ok := os.LookupEnv(name)
	if !ok || strings.TrimSpace(v) == "" {
		return nil, fmt.Errorf("environment variable %s is not set; put the private key (hex) in it", name)
	}
	k, err := ParseKey(v)
	if err != nil {
		return nil, fmt.Errorf("environment variable %s: %w", name, err)
	}
	return k, nil
}

// KeyFromFile reads a private key (hex, surrounding white space ignored)
// from a file.
func KeyFromFile(path string) (*ecdsa.PrivateKey, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading the key file: %w", err)
	}
	k, err := ParseKey(string(b))
	if err != nil {
		return nil, fmt.Errorf("key file %s: %w", path, err)
	}
	return k, nil
}

// SignDigest signs a 32-byte digest with key and returns the 65-byte
// r||s||v signature with v as 27 or 28, as wallets produce it.
func SignDigest(key *ecdsa.PrivateKey, digest common.Hash) ([]byte, error) {
	sig, err := crypto.Sign(digest[:], key)
	if err != nil {
		return nil, err
	}
	sig[64] += 27
	return sig, nil
}
