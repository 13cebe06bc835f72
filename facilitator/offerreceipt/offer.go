package offerreceipt

import (
	"errors"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/signer/core/apitypes"
)

// Offer is what a seller offers for a resource (§4.2): one entry of its
// 402's accepts, with the resource URL and until when the offer holds.
// Each field must be byte-identical to its accepts entry: the published
// matcher compares strings.
type Offer struct {
	Version     int    `json:"version"`
	ResourceURL string `json:"resourceUrl"`
	Scheme      string `json:"scheme"`
	Network     string `json:"network"`
	Asset       string `json:"asset"`
	PayTo       string `json:"payTo"`
	Amount      string `json:"amount"`
	// ValidUntil is the Unix second the offer expires; 0 when unused.
	ValidUntil int64 `json:"validUntil"`
}

// SignedOffer is an offer as the 402 carries it (§3.1.1): in JWS format the
// payload is inside the signature; in EIP-712 format it is beside it.
type SignedOffer struct {
	Format Format `json:"format"`
	// AcceptIndex is the accepts entry the offer is for (unsigned).
	AcceptIndex *int   `json:"acceptIndex,omitempty"`
	Payload     *Offer `json:"payload,omitempty"`
	Signature   string `json:"signature"`
}

// OffersInfo is the extension's info object in a 402.
type OffersInfo struct {
	Offers []SignedOffer `json:"offers"`
}

// SignOffer signs o, the offer of accepts entry acceptIndex, in format f.
// The version is set to this package's.
func (k *Key) SignOffer(f Format, acceptIndex int, o Offer) (SignedOffer, error) {
	o.Version = Version
	idx := acceptIndex
	switch f {
	case JWS:
		sig, err := k.signJWS(o)
		if err != nil {
			return SignedOffer{}, err
		}
		return SignedOffer{Format: JWS, AcceptIndex: &idx, Signature: sig}, nil
	case EIP712:
		hash, err := offerHash(o)
		if err != nil {
			return SignedOffer{}, err
		}
		sig, err := k.signTyped(hash)
		if err != nil {
			return SignedOffer{}, err
		}
		return SignedOffer{Format: EIP712, AcceptIndex: &idx, Payload: &o, Signature: sig}, nil
	}
	return SignedOffer{}, fmt.Errorf("offer format %q is neither %q nor %q", f, EIP712, JWS)
}

func offerHash(o Offer) ([]byte, error) {
	if o.ValidUntil < 0 {
		return nil, errors.New("offer validUntil is negative")
	}
	return typedHash(offerDomain, "Offer", offerTypes, apitypes.TypedDataMessage{
		"version":     big.NewInt(int64(o.Version)),
		"resourceUrl": o.ResourceURL,
		"scheme":      o.Scheme,
		"network":     o.Network,
		"asset":       o.Asset,
		"payTo":       o.PayTo,
		"amount":      o.Amount,
		"validUntil":  big.NewInt(o.ValidUntil),
	})
}

// VerifyOffer checks a signed offer against the seller's keys and returns
// its payload. It does not check validUntil or the accepts entry: see
// Offer.Expired and Offer.Matches.
func VerifyOffer(so SignedOffer, keys *Keys) (Offer, error) {
	switch so.Format {
	case JWS:
		p, err := parseJWS(so.Signature)
		if err != nil {
			return Offer{}, fmt.Errorf("offer: %w", err)
		}
		pub, err := keys.byKID(p.header.Kid)
		if err != nil {
			return Offer{}, fmt.Errorf("offer: %w", err)
		}
		if err := p.verify(pub); err != nil {
			return Offer{}, fmt.Errorf("offer: %w", err)
		}
		var o Offer
		if err := p.decodePayload(&o); err != nil {
			return Offer{}, fmt.Errorf("offer: %w", err)
		}
		return o, nil
	case EIP712:
		if so.Payload == nil {
			return Offer{}, errors.New("offer: an eip712 offer without its payload")
		}
		hash, err := offerHash(*so.Payload)
		if err != nil {
			return Offer{}, fmt.Errorf("offer: %w", err)
		}
		signer, err := recoverTyped(hash, so.Signature)
		if err != nil {
			return Offer{}, fmt.Errorf("offer: %w", err)
		}
		if !keys.hasAddress(signer) {
			return Offer{}, fmt.Errorf("offer: signed by %s, which is not a key of the seller's DID document", signer.Hex())
		}
		return *so.Payload, nil
	}
	return Offer{}, fmt.Errorf("offer: format %q is neither %q nor %q", so.Format, EIP712, JWS)
}

// Expired says whether the offer's validUntil (if set) is before now
// (Unix seconds).
func (o Offer) Expired(now int64) bool {
	return o.ValidUntil != 0 && now > o.ValidUntil
}

// Requirement is what an offer is matched against: the fields of an
// accepts entry, as strings (v1 entries name the amount
// maxAmountRequired: pass it as Amount).
type Requirement struct {
	Scheme, Network, Asset, PayTo, Amount string
}

// Matches says which field of r the offer differs from, or "" when the
// offer is for r. Strings compare exactly, as the published matcher does.
func (o Offer) Matches(r Requirement) string {
	switch {
	case o.Scheme != r.Scheme:
		return "scheme"
	case o.Network != r.Network:
		return "network"
	case o.Asset != r.Asset:
		return "asset"
	case o.PayTo != r.PayTo:
		return "payTo"
	case o.Amount != r.Amount:
		return "amount"
	}
	return ""
}
