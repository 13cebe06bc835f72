package x402

import (
	"crypto/ecdsa"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/ethereum/go-ethereum/accounts"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
)

// The sign-in-with-x extension (x402 version 2, CAIP-122): a seller
// declares it in PaymentRequired.extensions with a challenge (domain, URI,
// nonce, issuedAt, ...) and the chains it accepts; a buyer that paid
// before signs the challenge as a Sign-In-With-Ethereum (EIP-4361) message
// with the paying wallet (EIP-191 personal_sign) and sends it, Base64
// JSON, in the SIGN-IN-WITH-X request header. The wire format is the one
// of the published @x402/extensions package (2.27.0):
//
//	seller: "sign-in-with-x": {"info": {"domain", "uri", "version": "1", "nonce", "issuedAt",
//	        "resources": [uri], "expirationTime", "statement"}, "supportedChains":
//	        [{"chainId": "eip155:338", "type": "eip191"}], "schema": {...}}
//	buyer:  SIGN-IN-WITH-X: Base64({"domain", "address", "statement", "uri", "version",
//	        "chainId", "type", "nonce", "issuedAt", "expirationTime", "resources", "signature"})

// ExtSignInWithX is the extension's key in extensions.
const ExtSignInWithX = "sign-in-with-x"

// HeaderSignInWithX is the request header that carries a signed sign-in.
const HeaderSignInWithX = "SIGN-IN-WITH-X"

// SIWxTypeEIP191 is the signature type of EVM wallets (personal_sign).
const SIWxTypeEIP191 = "eip191"

// SIWxInfo is the seller's challenge, the declaration's info, with the
// fields in the order the reference server writes them.
type SIWxInfo struct {
	Domain         string   `json:"domain"`
	URI            string   `json:"uri"`
	Version        string   `json:"version"`
	Nonce          string   `json:"nonce"`
	IssuedAt       string   `json:"issuedAt"`
	Resources      []string `json:"resources,omitempty"`
	ExpirationTime string   `json:"expirationTime,omitempty"`
	Statement      string   `json:"statement,omitempty"`
}

// SIWxChain is a chain a seller accepts sign-ins on, and its signature
// type.
type SIWxChain struct {
	ChainID string `json:"chainId"`
	Type    string `json:"type"`
}

// SIWxDeclaration is the extension as a seller declares it in a 402.
type SIWxDeclaration struct {
	Info            SIWxInfo        `json:"info"`
	SupportedChains []SIWxChain     `json:"supportedChains"`
	Schema          json.RawMessage `json:"schema"`
}

// siwxSchema is the JSON schema of the buyer's payload, as the reference
// packages declare it (buildSIWxSchema).
const siwxSchema = `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{"domain":{"type":"string"},"address":{"type":"string"},"statement":{"type":"string"},"uri":{"type":"string","format":"uri"},"version":{"type":"string"},"chainId":{"type":"string"},"type":{"type":"string"},"nonce":{"type":"string"},"issuedAt":{"type":"string","format":"date-time"},"expirationTime":{"type":"string","format":"date-time"},"notBefore":{"type":"string","format":"date-time"},"requestId":{"type":"string"},"resources":{"type":"array","items":{"type":"string","format":"uri"}},"signature":{"type":"string"}},"required":["domain","address","uri","version","chainId","type","nonce","issuedAt","signature"]}`

// DeclareSIWx is the extension's declaration of a challenge on chains.
func DeclareSIWx(info SIWxInfo, chains []SIWxChain) SIWxDeclaration {
	return SIWxDeclaration{Info: info, SupportedChains: chains, Schema: json.RawMessage(siwxSchema)}
}

// SIWxPayload is a buyer's signed sign-in, the SIGN-IN-WITH-X header's
// JSON. Statement and RequestID are pointers, and Resources nil or not,
// because the signed message tells an absent field from an empty one.
type SIWxPayload struct {
	Domain          string   `json:"domain"`
	Address         string   `json:"address"`
	Statement       *string  `json:"statement,omitempty"`
	URI             string   `json:"uri"`
	Version         string   `json:"version"`
	ChainID         string   `json:"chainId"`
	Type            string   `json:"type"`
	Nonce           string   `json:"nonce"`
	IssuedAt        string   `json:"issuedAt"`
	ExpirationTime  string   `json:"expirationTime,omitempty"`
	NotBefore       string   `json:"notBefore,omitempty"`
	RequestID       *string  `json:"requestId,omitempty"`
	Resources       []string `json:"resources,omitempty"`
	SignatureScheme string   `json:"signatureScheme,omitempty"`
	Signature       string   `json:"signature"`
}

// Texts of a SIGN-IN-WITH-X header that cannot be read, as the reference
// packages word them (parseSIWxHeader).
const (
	ReasonSIWxNotBase64 = "Invalid SIWX header: not valid base64"
	ReasonSIWxNotJSON   = "Invalid SIWX header: not valid JSON"
)

// ParseSIWxHeader decodes a SIGN-IN-WITH-X header (Base64, standard or
// URL-safe, padded or not) and checks that the required fields are there.
// Its errors are texts for the buyer.
func ParseSIWxHeader(h string) (*SIWxPayload, error) {
	b, err := DecodeBase64(strings.TrimSpace(h))
	if err != nil {
		return nil, errors.New(ReasonSIWxNotBase64)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(b, &fields); err != nil {
		return nil, errors.New(ReasonSIWxNotJSON)
	}
	p := new(SIWxPayload)
	if err := json.Unmarshal(b, p); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return nil, fmt.Errorf("Invalid SIWX header: %s: expected %s", te.Field, te.Type)
		}
		return nil, errors.New(ReasonSIWxNotJSON)
	}
	var missing []string
	for _, f := range [...]struct {
		name, v string
	}{{"domain", p.Domain}, {"address", p.Address}, {"uri", p.URI}, {"version", p.Version}, {"chainId", p.ChainID},
		{"type", p.Type}, {"nonce", p.Nonce}, {"issuedAt", p.IssuedAt}, {"signature", p.Signature}} {
		if f.v == "" {
			missing = append(missing, f.name)
		}
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		return nil, fmt.Errorf("Invalid SIWX header: missing %s", strings.Join(missing, ", "))
	}
	return p, nil
}

// ErrSIWxAddress is the error of an address that is not one, or whose
// mixed case is not its EIP-55 checksum.
var ErrSIWxAddress = errors.New("Invalid SIWX header: address is not an EIP-55 address")

// SIWxAddress is the payload's address, checked: 0x and 40 hex digits,
// all in one case or in its EIP-55 checksum (as the SIWE library takes it).
func (p *SIWxPayload) SIWxAddress() (common.Address, error) {
	if !common.IsHexAddress(p.Address) || !strings.HasPrefix(p.Address, "0x") {
		return common.Address{}, ErrSIWxAddress
	}
	a := common.HexToAddress(p.Address)
	body := p.Address[2:]
	if body != strings.ToLower(body) && body != strings.ToUpper(body) && a.Hex() != p.Address {
		return common.Address{}, ErrSIWxAddress
	}
	return a, nil
}

// Message is the EIP-4361 text the wallet signed, exactly as the SIWE
// library (@signinwithethereum/siwe 4.x, which the reference packages use)
// writes it: the address in its EIP-55 checksum, the numeric chain id.
func (p *SIWxPayload) Message() (string, error) {
	addr, err := p.SIWxAddress()
	if err != nil {
		return "", err
	}
	chainID, ok := ParseCAIP2(p.ChainID)
	if !ok {
		return "", fmt.Errorf("Invalid EVM chainId format: %s. Expected eip155:<number>", p.ChainID)
	}
	var b strings.Builder
	b.WriteString(p.Domain + " wants you to sign in with your Ethereum account:\n" + addr.Hex())
	if p.Statement == nil {
		b.WriteString("\n\n")
	} else {
		b.WriteString("\n\n" + *p.Statement + "\n")
	}
	lines := []string{
		"URI: " + p.URI,
		"Version: " + p.Version,
		"Chain ID: " + strconv.FormatInt(chainID, 10),
		"Nonce: " + p.Nonce,
	}
	if p.IssuedAt != "" {
		lines = append(lines, "Issued At: "+p.IssuedAt)
	}
	if p.ExpirationTime != "" {
		lines = append(lines, "Expiration Time: "+p.ExpirationTime)
	}
	if p.NotBefore != "" {
		lines = append(lines, "Not Before: "+p.NotBefore)
	}
	if p.RequestID != nil {
		lines = append(lines, "Request ID: "+*p.RequestID)
	}
	if p.Resources != nil {
		r := "Resources:"
		for _, u := range p.Resources {
			r += "\n- " + u
		}
		lines = append(lines, r)
	}
	b.WriteString("\n" + strings.Join(lines, "\n"))
	return b.String(), nil
}

// RecoverSIWxSigner returns the account whose key made the payload's
// EIP-191 signature of its message (v 27/28 or 0/1). A contract wallet's
// signature recovers to some other account (or none): it is checked by
// EIP-1271 instead.
func (p *SIWxPayload) RecoverSIWxSigner() (common.Address, error) {
	msg, err := p.Message()
	if err != nil {
		return common.Address{}, err
	}
	sig, err := hexutil.Decode(p.Signature)
	if err != nil || len(sig) != crypto.SignatureLength {
		return common.Address{}, errors.New("the signature is not 65 bytes of 0x hex")
	}
	if sig[64] >= 27 {
		sig[64] -= 27
	}
	pub, err := crypto.SigToPub(accounts.TextHash([]byte(msg)), sig)
	if err != nil {
		return common.Address{}, err
	}
	return crypto.PubkeyToAddress(*pub), nil
}

// SignSIWx signs a seller's challenge on chain with key, as the reference
// client does (createSIWxPayload): the payload and its header value.
func SignSIWx(info SIWxInfo, chain SIWxChain, key *ecdsa.PrivateKey) (*SIWxPayload, string, error) {
	return SignSIWxAs(info, chain, key, crypto.PubkeyToAddress(key.PublicKey), nil)
}

// SignSIWxAs signs a seller's challenge on chain for address with key:
// the key's own address, or a contract wallet whose owner key is (EIP-1271:
// the wallet takes its owner's EIP-191 signature of the message as its
// own). wrap, when not nil, wraps the signature (ERC-6492, for a wallet not
// deployed on that chain).
func SignSIWxAs(info SIWxInfo, chain SIWxChain, key *ecdsa.PrivateKey, address common.Address, wrap func(sig []byte) []byte) (*SIWxPayload, string, error) {
	p := &SIWxPayload{
		Domain: info.Domain, Address: address.Hex(), URI: info.URI,
		Version: info.Version, ChainID: chain.ChainID, Type: chain.Type, Nonce: info.Nonce,
		IssuedAt: info.IssuedAt, ExpirationTime: info.ExpirationTime, Resources: info.Resources,
	}
	if info.Statement != "" {
		s := info.Statement
		p.Statement = &s
	}
	msg, err := p.Message()
	if err != nil {
		return nil, "", err
	}
	sig, err := crypto.Sign(accounts.TextHash([]byte(msg)), key)
	if err != nil {
		return nil, "", err
	}
	sig[64] += 27
	if wrap != nil {
		sig = wrap(sig)
	}
	p.Signature = hexutil.Encode(sig)
	h, err := EncodeBase64JSON(p)
	return p, h, err
}

// SIWxDeclared reads a seller's sign-in-with-x declaration from a 402's
// extensions; ok is false when there is none (or it cannot be read).
func SIWxDeclared(extensions map[string]any) (decl SIWxDeclaration, ok bool) {
	raw, found := extensions[ExtSignInWithX]
	if !found {
		return decl, false
	}
	b, err := json.Marshal(raw)
	if err != nil || json.Unmarshal(b, &decl) != nil || decl.Info.Nonce == "" || len(decl.SupportedChains) == 0 {
		return SIWxDeclaration{}, false
	}
	return decl, true
}
