package paywall

import (
	"github.com/caddy-x402/caddy-x402/facilitator/permit2"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// parsePermit2Payment reads a Permit2 payload (upto's, or exact's through
// the exact proxy) into the payment's authorization fields: payer,
// witness.to, the permitted amount (upto: the maximum), validAfter, the
// deadline as validBefore, the nonce as 32 bytes. Shared by exact's
// parse (exact.go) and upto's (upto.go).
func parsePermit2Payment(payment *x402.Payment, upto bool) error {
	raw, err := payment.PayloadJSON()
	if err != nil {
		return err
	}
	p, sig, err := permit2.ParsePayload(raw, upto)
	if err != nil {
		return err
	}
	a := &payment.Authorization
	a.From, a.To, a.Value, a.ValidAfter, a.ValidBefore, a.Nonce = p.From, p.To, p.Amount, p.ValidAfter, p.Deadline, permit2.NonceBytes(p.Nonce)
	payment.Signature, payment.Asset, payment.Value = sig, p.Token.Hex(), p.Amount.String()
	return nil
}
