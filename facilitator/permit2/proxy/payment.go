package proxy

import (
	"math/big"
	"slices"

	"github.com/ethereum/go-ethereum/common"

	"github.com/caddy-x402/caddy-x402/facilitator/permit2"
	"github.com/caddy-x402/caddy-x402/facilitator/scheme"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// payment is an upto payment that passed the off-chain checks
// (scheme.Payment): the buyer's Permit2 authorization (its Amount the
// maximum) and the amount the requirements name (at verify the maximum, at
// settle the charge).
type payment struct {
	a      *permit2.Authorization
	sig    []byte
	nonce  [32]byte
	amount *big.Int
	// permit is the buyer's EIP-2612 permit to Permit2 from an
	// eip2612GasSponsoring extension, submitted with the settle.
	permit *permit2.EIP2612Permit
}

// Payer, Nonce and Value are the payer, the Permit2 nonce as 32 bytes and
// the requirements' amount (scheme.Payment).
func (c *payment) Payer() common.Address { return c.a.From }
func (c *payment) Nonce() [32]byte       { return c.nonce }
func (c *payment) Value() *big.Int       { return c.amount }

// auth is the settlement as the engine journals it: witness.to the payee,
// amount the value, witness.validAfter and the deadline the window.
func (c *payment) auth(amount *big.Int) x402.Authorization {
	return x402.Authorization{From: c.a.From, To: c.a.To, Value: amount, ValidAfter: c.a.ValidAfter, ValidBefore: c.a.Deadline, Nonce: c.nonce}
}

// Check runs every check that needs no RPC, in the order of the reference
// facilitator (@x402/evm 2.27's verifyUptoPermit2) after the asset and the
// payload: spender, recipient, facilitator, deadline, validAfter, amount,
// token, signature. The amount may be at most the permitted maximum here
// (a settle's charge); Verify and Claim ask it to equal the maximum.
func (b *bound) Check(req *x402.Request, p *x402.Payment) (scheme.Payment, string) {
	r := &req.PaymentRequirements
	if addr, ok := x402.ParseAddress(r.Asset); !ok || addr != b.Token {
		return nil, x402.ReasonUnsupportedAsset(r.Asset)
	}
	raw, err := p.PayloadJSON()
	if err != nil {
		return nil, x402.ReasonOf(err)
	}
	a, sig, err := permit2.ParsePayload(raw, b.upto())
	if err != nil {
		return nil, x402.ReasonOf(err)
	}
	if a.Spender != b.proxy.Address() {
		return nil, x402.ReasonPermit2Spender
	}
	if addr, ok := x402.ParseAddress(r.PayTo); !ok || addr != a.To {
		return nil, x402.ReasonPermit2Recipient
	}
	if b.upto() && !slices.Contains(b.Engine.Signers(), a.Facilitator) {
		return nil, x402.ReasonUptoFacilitator
	}
	now := b.env.Now()
	if a.Deadline.Cmp(big.NewInt(now.Add(b.env.ExpiryMargin).Unix())) < 0 {
		return nil, x402.ReasonPermit2Expired
	}
	if a.ValidAfter.Cmp(big.NewInt(now.Unix())) > 0 {
		return nil, x402.ReasonPermit2NotYetValid
	}
	amount, err := x402.ParseAmount(r.MaxAmountRequired)
	if err != nil && r.MaxAmountRequired != "0" {
		return nil, x402.ReasonInvalidAmount(r.MaxAmountRequired)
	}
	if amount == nil {
		amount = new(big.Int)
	}
	if !b.upto() && amount.Cmp(a.Amount) != 0 {
		// exact moves the whole permitted amount: it is the price.
		return nil, x402.ReasonPermit2AmountMismatch + amount.String() + " != " + a.Amount.String()
	}
	if amount.Cmp(a.Amount) > 0 {
		return nil, x402.ReasonUptoExceedsMaximum + amount.String() + " > " + a.Amount.String()
	}
	if a.Token != b.Token {
		return nil, x402.ReasonPermit2Token
	}
	if who, err := b.hasher.Recover(a, sig); err != nil || who != a.From {
		return nil, x402.ReasonPermit2Signature
	}
	c := &payment{a: a, sig: sig, nonce: permit2.NonceBytes(a.Nonce), amount: amount}
	if info := p.ExtensionInfo(x402.ExtEIP2612GasSponsoring); info != nil {
		if reason := b.checkPermit(c, info); reason != "" {
			return nil, reason
		}
	}
	return c, ""
}

// checkPermit reads an eip2612GasSponsoring extension into c, with the
// reference facilitator's checks: its owner the payer, its token the asset,
// its spender Permit2, its deadline at least the expiry margin ahead.
func (b *bound) checkPermit(c *payment, info []byte) string {
	permit, reason := permit2.CheckEIP2612Info(info, c.a.From, b.Token, b.env.Now().Add(b.env.ExpiryMargin).Unix())
	if reason != "" {
		return reason
	}
	c.permit = permit
	return ""
}

// atMaximum is the verify reason of a payment whose requirements' amount
// is not the permitted maximum (verify and claim are asked at the maximum).
func atMaximum(c *payment) string {
	if c.amount.Cmp(c.a.Amount) != 0 {
		return x402.ReasonPermit2AmountMismatch + c.amount.String() + " != " + c.a.Amount.String()
	}
	return ""
}
