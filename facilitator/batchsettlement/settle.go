package batchsettlement

import (
	"context"
	"time"

	"github.com/caddy-x402/caddy-x402/facilitator/scheme"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// Claim is not offered: a channel payment is not held for a later settle
// (the paywall side of channels charges vouchers in its store).
func (b *bound) Claim(ctx context.Context, sp scheme.Payment, requested string) (scheme.Claim, string, error) {
	return nil, ErrInvalidPayloadType, nil
}

// Settle sends what a payload asks, as the published facilitator: a
// deposit, a claim, a settle or an enriched refund. A voucher or a plain
// refund is not settled (ErrInvalidPayloadType).
func (b *bound) Settle(ctx context.Context, sp scheme.Payment, requested string, deadline time.Time) (*x402.SettleResponse, error) {
	c := sp.(*payment)
	switch {
	case c.kind == "deposit":
		return b.settleDeposit(ctx, c, requested, deadline)
	case c.kind == "claim":
		return b.settleClaim(ctx, c, requested, deadline)
	case c.kind == "settle":
		return b.settleReceiver(ctx, c, requested, deadline)
	case c.kind == "refund" && c.refund != nil:
		return b.settleRefund(ctx, c, requested, deadline)
	}
	return x402.Failed(requested, ErrInvalidPayloadType), nil
}

// settleDeposit sends a deposit: its EIP-3009 authorization is the hold,
// its amount is reserved against the payer's balance beside the payer's
// other settlements in flight, and a settled answer carries the channel's
// state after it.
func (b *bound) settleDeposit(ctx context.Context, c *payment, requested string, deadline time.Time) (*x402.SettleResponse, error) {
	data, err := b.depositCalldata(c)
	if err != nil {
		return x402.Failed(requested, ErrInvalidPayloadType), nil
	}
	rd, _ := b.newReads(&payment{kind: "voucher", cfg: c.cfg, id: c.id, permit2: c.permit2, permit: c.permit}, b.authorizer, false)
	o := &op{from: c.cfg.Payer, nonce: c.nonce, value: c.amount, validAfter: c.validAfter, validBefore: c.validBefore, signature: c.depositSig,
		calldata: data, reads: rd.elems, simFail: ErrDepositSimulationFailed, txFail: ErrDepositTransactionFailed, scheme: b.name()}
	o.decide = func(block uint64) (string, error) {
		rd.elems = o.reads
		st, payerBalance, err := rd.state()
		if err != nil {
			return ErrRPCReadFailed, nil
		}
		if reason := allowanceReason(c, rd.allowance()); reason != "" {
			return reason, nil
		}
		if reason := decide(c, st, payerBalance); reason != "" {
			return reason, nil
		}
		ok, err := b.Engine.ReserveScheme(ctx, b.name(), c.cfg.Payer, c.nonce, c.amount, payerBalance, block)
		if err != nil {
			return "", scheme.ReserveFailed(b.Cfg.Name, err)
		}
		if !ok {
			return ErrInsufficientBalance, nil
		}
		return "", nil
	}
	o.after = func(ctx context.Context, res *x402.SettleResponse) {
		res.From = c.cfg.Payer.Hex()
		b.addState(ctx, c.cfg, c.id, res)
	}
	return b.send(ctx, o, requested, deadline)
}
