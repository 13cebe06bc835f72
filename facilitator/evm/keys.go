package evm

import (
	"crypto/ecdsa"
	"errors"
	"fmt"
	"math/big"
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

// RecoverDigest recovers the signer of a digest from a 65-byte r‖s‖v
// signature (v 27/28 or 0/1), refusing malleable (high-s) and malformed
// signatures.
func RecoverDigest(d common.Hash, sig []byte) (common.Address, error) {
	if len(sig) != crypto.SignatureLength {
		return common.Address{}, errors.New("signature is not 65 bytes")
	}
	var rsv [crypto.SignatureLength]byte
	copy(rsv[:], sig)
	if rsv[64] >= 27 {
		rsv[64] -= 27
	}
	r, s := new(big.Int).SetBytes(rsv[:32]), new(big.Int).SetBytes(rsv[32:64])
	if !crypto.ValidateSignatureValues(rsv[64], r, s, true) {
		return common.Address{}, errors.New("signature values out of range")
	}
	pub, err := crypto.Ecrecover(d[:], rsv[:])
	if err != nil {
		return common.Address{}, err
	}
	return common.BytesToAddress(crypto.Keccak256(pub[1:])[12:]), nil
}
