package offerreceipt

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/ethereum/go-ethereum/crypto"
)

// jwsAlg is the JWS algorithm of secp256k1 keys (RFC 8812).
const jwsAlg = "ES256K"

// jwsHeader is the protected header of the JWS this package signs.
type jwsHeader struct {
	Alg string `json:"alg"`
	Kid string `json:"kid,omitempty"`
}

var b64 = base64.RawURLEncoding

// signJWS is payload's JWS compact serialization under k: the header
// {"alg":"ES256K","kid":...}, the payload in canonical JSON, and the
// signature r||s (64 bytes) over SHA-256 of the signing input.
func (k *Key) signJWS(payload any) (string, error) {
	header, err := json.Marshal(jwsHeader{Alg: jwsAlg, Kid: k.kid})
	if err != nil {
		return "", err
	}
	body, err := canonicalJSON(payload)
	if err != nil {
		return "", err
	}
	input := b64.EncodeToString(header) + "." + b64.EncodeToString(body)
	digest := sha256.Sum256([]byte(input))
	sig, err := crypto.Sign(digest[:], k.priv)
	if err != nil {
		return "", fmt.Errorf("signing the JWS: %w", err)
	}
	return input + "." + b64.EncodeToString(sig[:64]), nil
}

// parsedJWS is a compact JWS split into its parts, not yet verified.
type parsedJWS struct {
	header  jwsHeader
	payload []byte // the decoded payload
	input   string // header.payload, as signed
	sig     []byte // r||s
}

// maxJWS bounds a JWS this package reads: offers and receipts are a few
// hundred bytes.
const maxJWS = 16 << 10

func parseJWS(s string) (*parsedJWS, error) {
	if len(s) > maxJWS {
		return nil, fmt.Errorf("JWS of %d bytes is over the %d this reads", len(s), maxJWS)
	}
	parts := strings.Split(s, ".")
	if len(parts) != 3 {
		return nil, errors.New("JWS is not header.payload.signature")
	}
	rawHeader, err := b64.DecodeString(parts[0])
	if err != nil {
		return nil, fmt.Errorf("JWS header is not base64url: %w", err)
	}
	var h jwsHeader
	if err := json.Unmarshal(rawHeader, &h); err != nil {
		return nil, fmt.Errorf("JWS header is not JSON: %w", err)
	}
	payload, err := b64.DecodeString(parts[1])
	if err != nil {
		return nil, fmt.Errorf("JWS payload is not base64url: %w", err)
	}
	sig, err := b64.DecodeString(parts[2])
	if err != nil {
		return nil, fmt.Errorf("JWS signature is not base64url: %w", err)
	}
	return &parsedJWS{header: h, payload: payload, input: parts[0] + "." + parts[1], sig: sig}, nil
}

// verify checks the JWS signature with pub.
func (p *parsedJWS) verify(pub *ecdsa.PublicKey) error {
	if p.header.Alg != jwsAlg {
		return fmt.Errorf("JWS algorithm %q is not %s", p.header.Alg, jwsAlg)
	}
	if len(p.sig) != 64 {
		return fmt.Errorf("JWS signature is %d bytes, %s signs 64", len(p.sig), jwsAlg)
	}
	digest := sha256.Sum256([]byte(p.input))
	if !crypto.VerifySignature(crypto.CompressPubkey(pub), digest[:], p.sig) {
		return errors.New("JWS signature does not verify with the key its kid names")
	}
	return nil
}

// decodePayload unmarshals the JWS payload into v, refusing unknown
// trailing data.
func (p *parsedJWS) decodePayload(v any) error {
	dec := json.NewDecoder(bytes.NewReader(p.payload))
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("JWS payload: %w", err)
	}
	return nil
}
