package offerreceipt

import (
	"errors"
	"fmt"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/signer/core/apitypes"
)

// Receipt is what a seller signs when a payment succeeded (§5.2), and, as
// this package's addition, what it charged.
type Receipt struct {
	Version     int    `json:"version"`
	Network     string `json:"network"`
	ResourceURL string `json:"resourceUrl"`
	Payer       string `json:"payer"`
	// IssuedAt is the Unix second the receipt was signed.
	IssuedAt int64 `json:"issuedAt"`
	// Transaction is the settlement's transaction hash; "" when there is
	// none (a channel voucher) or the route leaves it out.
	Transaction string `json:"transaction,omitempty"`
	// Charge is what was charged; nil when the receipt says nothing of it.
	Charge *Charge `json:"charge,omitempty"`
}

// Charge is what a payment was charged: amounts in the token's smallest
// units, as decimal strings; "" for what does not apply.
type Charge struct {
	Scheme string `json:"scheme"`
	Asset  string `json:"asset"`
	PayTo  string `json:"payTo"`
	// Amount is what this request was charged: the price of an exact
	// payment, the metered amount of an upto payment or a metered voucher.
	Amount string `json:"amount"`
	// MaxAmount is the most the payer authorized for this request (upto's
	// maximum, a voucher's increment); "" when it is the amount.
	MaxAmount string `json:"maxAmount,omitempty"`
	// Usage is the meter's reading the amount was computed from (e.g.
	// "tokens=1234"); "" when the amount was not metered.
	Usage string `json:"usage,omitempty"`
	// Channel is the payment channel's id (0x-hex) of a voucher.
	Channel string `json:"channel,omitempty"`
	// ChargedCumulative is the channel's charged total after this request.
	ChargedCumulative string `json:"chargedCumulative,omitempty"`
}

// ReceiptPayload is the spec's EIP-712 receipt payload: its six fields,
// transaction "" when there is none.
type ReceiptPayload struct {
	Version     int    `json:"version"`
	Network     string `json:"network"`
	ResourceURL string `json:"resourceUrl"`
	Payer       string `json:"payer"`
	IssuedAt    int64  `json:"issuedAt"`
	Transaction string `json:"transaction"`
}

// SignedReceipt is a receipt as a settlement response carries it: a JWS
// (payload inside), or an EIP-712 payload and its signature.
type SignedReceipt struct {
	Format    Format          `json:"format"`
	Payload   *ReceiptPayload `json:"payload,omitempty"`
	Signature string          `json:"signature"`
}

// ChargePayload is the EIP-712 Charge signed beside an EIP-712 receipt:
// the receipt's fields and the charge's.
type ChargePayload struct {
	ReceiptPayload
	Charge
}

// SignedCharge is the EIP-712 Charge and its signature.
type SignedCharge struct {
	Format    Format        `json:"format"`
	Payload   ChargePayload `json:"payload"`
	Signature string        `json:"signature"`
}

// ReceiptInfo is the extension's info object in a settlement response:
// the receipt and, for an EIP-712 receipt with a charge, the signed charge.
type ReceiptInfo struct {
	Receipt SignedReceipt `json:"receipt"`
	Charge  *SignedCharge `json:"charge,omitempty"`
}

// SignReceipt signs r in format f. A JWS receipt carries r.Charge as a
// claim; an EIP-712 receipt signs the spec's six fields and, when r has a
// Charge, a Charge object beside it.
func (k *Key) SignReceipt(f Format, r Receipt) (ReceiptInfo, error) {
	r.Version = Version
	switch f {
	case JWS:
		sig, err := k.signJWS(r)
		if err != nil {
			return ReceiptInfo{}, err
		}
		return ReceiptInfo{Receipt: SignedReceipt{Format: JWS, Signature: sig}}, nil
	case EIP712:
		p := r.payload()
		hash, err := receiptHash(p)
		if err != nil {
			return ReceiptInfo{}, err
		}
		sig, err := k.signTyped(hash)
		if err != nil {
			return ReceiptInfo{}, err
		}
		info := ReceiptInfo{Receipt: SignedReceipt{Format: EIP712, Payload: &p, Signature: sig}}
		if r.Charge != nil {
			cp := ChargePayload{ReceiptPayload: p, Charge: *r.Charge}
			hash, err := chargeHash(cp)
			if err != nil {
				return ReceiptInfo{}, err
			}
			sig, err := k.signTyped(hash)
			if err != nil {
				return ReceiptInfo{}, err
			}
			info.Charge = &SignedCharge{Format: EIP712, Payload: cp, Signature: sig}
		}
		return info, nil
	}
	return ReceiptInfo{}, fmt.Errorf("receipt format %q is neither %q nor %q", f, EIP712, JWS)
}

func (r Receipt) payload() ReceiptPayload {
	return ReceiptPayload{Version: r.Version, Network: r.Network, ResourceURL: r.ResourceURL,
		Payer: r.Payer, IssuedAt: r.IssuedAt, Transaction: r.Transaction}
}

func receiptMessage(p ReceiptPayload) apitypes.TypedDataMessage {
	return apitypes.TypedDataMessage{
		"version":     big.NewInt(int64(p.Version)),
		"network":     p.Network,
		"resourceUrl": p.ResourceURL,
		"payer":       p.Payer,
		"issuedAt":    big.NewInt(p.IssuedAt),
		"transaction": p.Transaction,
	}
}

func receiptHash(p ReceiptPayload) ([]byte, error) {
	if p.IssuedAt < 0 {
		return nil, errors.New("receipt issuedAt is negative")
	}
	return typedHash(receiptDomain, "Receipt", receiptTypes, receiptMessage(p))
}

func chargeHash(cp ChargePayload) ([]byte, error) {
	if cp.IssuedAt < 0 {
		return nil, errors.New("charge issuedAt is negative")
	}
	msg := receiptMessage(cp.ReceiptPayload)
	msg["scheme"] = cp.Scheme
	msg["asset"] = cp.Asset
	msg["payTo"] = cp.PayTo
	msg["amount"] = cp.Amount
	msg["maxAmount"] = cp.MaxAmount
	msg["usage"] = cp.Usage
	msg["channel"] = cp.Channel
	msg["chargedCumulative"] = cp.ChargedCumulative
	return typedHash(chargeDomain, "Charge", chargeTypes, msg)
}

// VerifyReceipt checks a settlement response's receipt (and its charge)
// against the seller's keys and returns what it says. A charge that does
// not verify, or names another receipt, fails the whole.
func VerifyReceipt(info ReceiptInfo, keys *Keys) (Receipt, error) {
	sr := info.Receipt
	switch sr.Format {
	case JWS:
		if info.Charge != nil {
			return Receipt{}, errors.New("receipt: a jws receipt carries its charge inside, not beside it")
		}
		p, err := parseJWS(sr.Signature)
		if err != nil {
			return Receipt{}, fmt.Errorf("receipt: %w", err)
		}
		pub, err := keys.byKID(p.header.Kid)
		if err != nil {
			return Receipt{}, fmt.Errorf("receipt: %w", err)
		}
		if err := p.verify(pub); err != nil {
			return Receipt{}, fmt.Errorf("receipt: %w", err)
		}
		var r Receipt
		if err := p.decodePayload(&r); err != nil {
			return Receipt{}, fmt.Errorf("receipt: %w", err)
		}
		return r, nil
	case EIP712:
		if sr.Payload == nil {
			return Receipt{}, errors.New("receipt: an eip712 receipt without its payload")
		}
		hash, err := receiptHash(*sr.Payload)
		if err != nil {
			return Receipt{}, fmt.Errorf("receipt: %w", err)
		}
		if err := keys.checkTyped(hash, sr.Signature); err != nil {
			return Receipt{}, fmt.Errorf("receipt: %w", err)
		}
		p := *sr.Payload
		r := Receipt{Version: p.Version, Network: p.Network, ResourceURL: p.ResourceURL,
			Payer: p.Payer, IssuedAt: p.IssuedAt, Transaction: p.Transaction}
		if info.Charge != nil {
			c := info.Charge
			if c.Format != EIP712 {
				return Receipt{}, fmt.Errorf("receipt: charge format %q beside an eip712 receipt", c.Format)
			}
			if c.Payload.ReceiptPayload != p {
				return Receipt{}, errors.New("receipt: the charge names another receipt (its receipt fields differ)")
			}
			hash, err := chargeHash(c.Payload)
			if err != nil {
				return Receipt{}, fmt.Errorf("receipt: %w", err)
			}
			if err := keys.checkTyped(hash, c.Signature); err != nil {
				return Receipt{}, fmt.Errorf("receipt charge: %w", err)
			}
			charge := c.Payload.Charge
			r.Charge = &charge
		}
		return r, nil
	}
	return Receipt{}, fmt.Errorf("receipt: format %q is neither %q nor %q", sr.Format, EIP712, JWS)
}

// Transaction is the transaction a receipt names ("" for none), read
// without checking its signature: for its signer, which knows what it
// signed (the receipt look-up), not for a verifier (VerifyReceipt).
func (info ReceiptInfo) Transaction() (string, error) {
	switch info.Receipt.Format {
	case JWS:
		p, err := parseJWS(info.Receipt.Signature)
		if err != nil {
			return "", fmt.Errorf("receipt: %w", err)
		}
		var r Receipt
		if err := p.decodePayload(&r); err != nil {
			return "", fmt.Errorf("receipt: %w", err)
		}
		return r.Transaction, nil
	case EIP712:
		if info.Receipt.Payload == nil {
			return "", errors.New("receipt: an eip712 receipt without its payload")
		}
		return info.Receipt.Payload.Transaction, nil
	}
	return "", fmt.Errorf("receipt: format %q is neither %q nor %q", info.Receipt.Format, EIP712, JWS)
}

// MatchesOffer says why receipt r is not for offer o paid by payer, or ""
// when it is: the resource URL and network equal, the payer the same
// address (case-insensitively), as the published verifyReceiptMatchesOffer
// checks (its age check is the caller's).
func (r Receipt) MatchesOffer(o Offer, payer string) string {
	switch {
	case r.ResourceURL != o.ResourceURL:
		return "resourceUrl"
	case r.Network != o.Network:
		return "network"
	case !strings.EqualFold(r.Payer, payer):
		return "payer"
	}
	return ""
}
