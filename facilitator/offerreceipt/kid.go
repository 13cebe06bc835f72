package offerreceipt

import (
	"errors"
	"strings"
)

// SignerDID is the DID whose document must hold the key of a JWS offer or
// receipt: the DID of its kid (a full DID URL), read before the signature
// is checked, so that a buyer knows which document to resolve. An EIP-712
// signature names no key; its verifier resolves the seller's DID itself
// (the did:web of the resource's host).
func SignerDID(jws string) (string, error) {
	p, err := parseJWS(jws)
	if err != nil {
		return "", err
	}
	if p.header.Kid == "" {
		return "", errors.New("JWS header has no kid")
	}
	did, _, _ := strings.Cut(p.header.Kid, "#")
	return did, nil
}
