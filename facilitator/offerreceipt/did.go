package offerreceipt

import (
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
)

// Document is a did:web document that publishes receipt keys: each key a
// JsonWebKey2020 verification method (the JWS kid is its id) that also
// names the key's Ethereum address (blockchainAccountId, for EIP-712
// verifiers, which recover an address), listed in assertionMethod.
type Document struct {
	Context            []string             `json:"@context"`
	ID                 string               `json:"id"`
	VerificationMethod []VerificationMethod `json:"verificationMethod"`
	AssertionMethod    []string             `json:"assertionMethod"`
}

// VerificationMethod is one key of a Document.
type VerificationMethod struct {
	ID           string `json:"id"`
	Type         string `json:"type"`
	Controller   string `json:"controller"`
	PublicKeyJwk *JWK   `json:"publicKeyJwk,omitempty"`
	// BlockchainAccountID is the key's address as a CAIP-10 account on
	// chain 1, the chainId of the spec's EIP-712 domains.
	BlockchainAccountID string `json:"blockchainAccountId,omitempty"`
}

// JWK is a secp256k1 public key as a JSON Web Key.
type JWK struct {
	Kty string `json:"kty"`
	Crv string `json:"crv"`
	X   string `json:"x"`
	Y   string `json:"y"`
}

// DIDDocument is the document of did publishing keys (the first is the one
// that signs; the others, retired, stay listed so that what they signed
// still verifies). Each key's id is KIDFor(did, its address).
func DIDDocument(did string, keys []*Key) Document {
	doc := Document{
		Context: []string{"https://www.w3.org/ns/did/v1", "https://w3id.org/security/suites/jws-2020/v1"},
		ID:      did,
	}
	for _, k := range keys {
		id := KIDFor(did, k.Address())
		doc.VerificationMethod = append(doc.VerificationMethod, VerificationMethod{
			ID:                  id,
			Type:                "JsonWebKey2020",
			Controller:          did,
			PublicKeyJwk:        jwkOf(k.PublicKey()),
			BlockchainAccountID: "eip155:1:" + k.Address().Hex(),
		})
		doc.AssertionMethod = append(doc.AssertionMethod, id)
	}
	return doc
}

func jwkOf(pub *ecdsa.PublicKey) *JWK {
	raw := crypto.FromECDSAPub(pub) // 0x04 || X (32) || Y (32)
	return &JWK{Kty: "EC", Crv: "secp256k1", X: b64.EncodeToString(raw[1:33]), Y: b64.EncodeToString(raw[33:65])}
}

func (j *JWK) publicKey() (*ecdsa.PublicKey, error) {
	if j.Kty != "EC" || j.Crv != "secp256k1" {
		return nil, fmt.Errorf("key type %s/%s is not EC secp256k1", j.Kty, j.Crv)
	}
	x, errX := b64.DecodeString(j.X)
	y, errY := b64.DecodeString(j.Y)
	if errX != nil || errY != nil || len(x) != 32 || len(y) != 32 {
		return nil, errors.New("the key's x and y are not 32 bytes of base64url")
	}
	pub, err := crypto.UnmarshalPubkey(append(append([]byte{4}, x...), y...))
	if err != nil {
		return nil, fmt.Errorf("the key is not a point of secp256k1: %w", err)
	}
	return pub, nil
}

// Keys are a seller's verification keys, read from its DID document: by
// full DID URL for JWS, by address for EIP-712.
type Keys struct {
	byID  map[string]*ecdsa.PublicKey
	addrs []common.Address
}

// KeysOf are the verification keys of a Document. Methods that are not
// secp256k1 JWKs are skipped; an address listed without a JWK still counts
// for EIP-712.
func KeysOf(doc Document) (*Keys, error) {
	ks := &Keys{byID: map[string]*ecdsa.PublicKey{}}
	for _, m := range doc.VerificationMethod {
		if m.PublicKeyJwk != nil {
			if pub, err := m.PublicKeyJwk.publicKey(); err == nil {
				ks.byID[m.ID] = pub
				ks.addrs = append(ks.addrs, crypto.PubkeyToAddress(*pub))
			}
		}
		if a, ok := strings.CutPrefix(m.BlockchainAccountID, "eip155:1:"); ok && common.IsHexAddress(a) {
			ks.addrs = append(ks.addrs, common.HexToAddress(a))
		}
	}
	if len(ks.addrs) == 0 {
		return nil, fmt.Errorf("DID document %s lists no secp256k1 key", doc.ID)
	}
	return ks, nil
}

// KeysFor are verification keys given directly: each key under its KID and
// address.
func KeysFor(keys ...*Key) *Keys {
	ks := &Keys{byID: map[string]*ecdsa.PublicKey{}}
	for _, k := range keys {
		ks.byID[k.KID()] = k.PublicKey()
		ks.addrs = append(ks.addrs, k.Address())
	}
	return ks
}

func (ks *Keys) byKID(kid string) (*ecdsa.PublicKey, error) {
	if kid == "" {
		return nil, errors.New("JWS header has no kid")
	}
	if pub, ok := ks.byID[kid]; ok {
		return pub, nil
	}
	return nil, fmt.Errorf("kid %s is not a key of the seller's DID document", kid)
}

func (ks *Keys) hasAddress(a common.Address) bool {
	for _, k := range ks.addrs {
		if k == a {
			return true
		}
	}
	return false
}

func (ks *Keys) checkTyped(hash []byte, sig string) error {
	signer, err := recoverTyped(hash, sig)
	if err != nil {
		return err
	}
	if !ks.hasAddress(signer) {
		return fmt.Errorf("signed by %s, which is not a key of the seller's DID document", signer.Hex())
	}
	return nil
}

// maxDocument bounds the DID document FetchDocument reads.
const maxDocument = 256 << 10

// FetchDocument GETs the DID document at u with client, at most
// maxDocument bytes of it, without checking whose it is.
func FetchDocument(ctx context.Context, client *http.Client, u string) (Document, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return Document{}, err
	}
	req.Header.Set("Accept", "application/did+json, application/json")
	resp, err := client.Do(req)
	if err != nil {
		return Document{}, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return Document{}, fmt.Errorf("GET %s answered %s", u, resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxDocument+1))
	if err != nil {
		return Document{}, fmt.Errorf("reading %s: %w", u, err)
	}
	if len(body) > maxDocument {
		return Document{}, fmt.Errorf("%s is over %d bytes", u, maxDocument)
	}
	var doc Document
	if err := json.Unmarshal(body, &doc); err != nil {
		return Document{}, fmt.Errorf("%s is not a DID document: %w", u, err)
	}
	return doc, nil
}

// ResolveDIDWeb fetches the document of a did:web identifier (a DID URL's
// fragment is ignored) with client and returns its keys. The document's id
// must be the DID.
func ResolveDIDWeb(ctx context.Context, client *http.Client, did string) (*Keys, error) {
	did, _, _ = strings.Cut(did, "#")
	u, err := didWebURL(did)
	if err != nil {
		return nil, err
	}
	doc, err := FetchDocument(ctx, client, u)
	if err != nil {
		return nil, fmt.Errorf("resolving %s: %w", did, err)
	}
	if doc.ID != did {
		return nil, fmt.Errorf("resolving %s: the document at %s is of %q", did, u, doc.ID)
	}
	return KeysOf(doc)
}
