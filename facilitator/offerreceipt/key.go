package offerreceipt

import (
	"crypto/ecdsa"
	"encoding/hex"
	"fmt"
	"net/url"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
)

// Key signs offers and receipts: a secp256k1 private key and the DID URL
// that names it (the JWS kid, e.g. did:web:api.example.com#receipt-1a2b...).
type Key struct {
	priv *ecdsa.PrivateKey
	kid  string
	addr common.Address
}

// NewKey is a signing key with its full DID URL.
func NewKey(priv *ecdsa.PrivateKey, kid string) *Key {
	return &Key{priv: priv, kid: kid, addr: crypto.PubkeyToAddress(priv.PublicKey)}
}

// KID is the key's full DID URL.
func (k *Key) KID() string { return k.kid }

// Address is the key's Ethereum address: the signer an EIP-712 verifier
// recovers.
func (k *Key) Address() common.Address { return k.addr }

// PublicKey is the key's public half.
func (k *Key) PublicKey() *ecdsa.PublicKey { return &k.priv.PublicKey }

// WithKID is the same private key under another DID URL (a site's own
// did:web, learned from the request).
func (k *Key) WithKID(kid string) *Key {
	return &Key{priv: k.priv, kid: kid, addr: k.addr}
}

// Fragment is the DID URL fragment of the key with address addr:
// "receipt-" and the address's first 8 bytes in hex. It depends on the key
// alone, so a key keeps its id across rotations and hosts.
func Fragment(addr common.Address) string {
	return "receipt-" + hex.EncodeToString(addr[:8])
}

// DIDWeb is the did:web identifier of a host (a port is written %3A, as
// did:web requires), e.g. DIDWeb("127.0.0.1:8443") is
// "did:web:127.0.0.1%3A8443".
func DIDWeb(host string) string {
	return "did:web:" + strings.ReplaceAll(strings.ToLower(host), ":", "%3A")
}

// KIDFor is the full DID URL of the key with address addr in the DID did.
func KIDFor(did string, addr common.Address) string {
	return did + "#" + Fragment(addr)
}

// didWebURL is where the document of a did:web identifier is served:
// https://host/.well-known/did.json, or host/path/did.json when the DID
// has a path; http for localhost and 127.0.0.1, as the published resolver
// does.
func didWebURL(did string) (string, error) {
	rest, ok := strings.CutPrefix(did, "did:web:")
	if !ok || rest == "" {
		return "", fmt.Errorf("%q is not a did:web identifier", did)
	}
	parts := strings.Split(rest, ":")
	domain, err := url.PathUnescape(parts[0])
	if err != nil || domain == "" || strings.ContainsAny(domain, "/?#@") {
		return "", fmt.Errorf("did:web identifier %q has no valid host", did)
	}
	path := make([]string, 0, len(parts)-1)
	for _, p := range parts[1:] {
		seg, err := url.PathUnescape(p)
		if err != nil || seg == "" || strings.ContainsAny(seg, "/?#") {
			return "", fmt.Errorf("did:web identifier %q has an invalid path segment", did)
		}
		path = append(path, seg)
	}
	host := domain
	if i := strings.LastIndexByte(host, ':'); i >= 0 {
		host = host[:i]
	}
	scheme := "https"
	if host == "localhost" || host == "127.0.0.1" {
		scheme = "http"
	}
	if len(path) == 0 {
		return scheme + "://" + domain + "/.well-known/did.json", nil
	}
	return scheme + "://" + domain + "/" + strings.Join(path, "/") + "/did.json", nil
}
