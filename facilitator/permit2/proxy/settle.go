package proxy

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"go.uber.org/zap"

	"github.com/caddy-x402/caddy-x402/facilitator/engine"
	"github.com/caddy-x402/caddy-x402/facilitator/scheme"
	"github.com/caddy-x402/caddy-x402/facilitator/store"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
	"github.com/caddy-x402/caddy-x402/internal/paytrace"
)

// Settle settles the requirements' amount of a checked payment (the
// charge, at most the maximum): 0 moves nothing and answers
// payment.settled without a transaction once the payment is verified (as
// @x402/evm does); more holds the authorization (engine Claim), reads and
// decides, reserves the charge against the payer's balance and sends the
// proxy's settle from witness.facilitator through the engine.
func (b *bound) Settle(ctx context.Context, sp scheme.Payment, requested string, deadline time.Time) (*x402.SettleResponse, error) {
	c := sp.(*payment)
	if c.amount.Sign() == 0 && b.upto() {
		return b.settleNothing(ctx, c, requested)
	}
	if reason, err := b.claim(ctx, c); reason != "" || err != nil {
		if err != nil {
			return nil, err
		}
		return x402.Failed(requested, reason), nil
	}
	return b.settleClaimed(ctx, c, c.amount, requested, deadline)
}

// settleNothing answers a charge of 0: verified (unless the network skips
// on-chain checks), nothing sent, the authorization left to expire.
func (b *bound) settleNothing(ctx context.Context, c *payment, requested string) (*x402.SettleResponse, error) {
	if !b.Cfg.SkipOnchainVerify {
		reason, _, err := b.check(ctx, c, c.a.Amount)
		if err != nil {
			return nil, err
		}
		if reason != "" {
			return x402.Failed(requested, reason), nil
		}
	}
	return nothingSettled(c, requested), nil
}

// nothingSettled is the answer of a charge of 0: payment.settled, value
// "0", no transaction.
func nothingSettled(c *payment, requested string) *x402.SettleResponse {
	return &x402.SettleResponse{X402Version: x402.X402Version, Event: x402.EventSettled, From: c.a.From.Hex(), To: c.a.To.Hex(), Value: "0",
		Network: requested, Timestamp: x402.Timestamp(time.Now())}
}

// claim holds the authorization for a settle: x402.ErrTextAlreadyUsed
// when another settle holds it.
func (b *bound) claim(ctx context.Context, c *payment) (string, error) {
	if len(b.Engine.Signers()) == 0 {
		return "", scheme.Unavailable(fmt.Sprintf("network %s has no signer key, so this facilitator cannot settle on it; configure a signer key", b.Cfg.Name), nil)
	}
	held, err := b.Engine.ClaimScheme(ctx, b.name(), c.a.From, c.nonce)
	if err != nil {
		b.env.Logger.Error("the shared settlement store cannot be reached; nothing was broadcast", zap.String("network", b.Cfg.Name), zap.Error(err))
		return "", scheme.Unavailable(scheme.TextStoreUnreachable, err)
	}
	if !held {
		return x402.ErrTextAlreadyUsed, nil
	}
	return "", nil
}

// reserve reserves value against the payer's balance read in st.
func (b *bound) reserve(ctx context.Context, c *payment, value *big.Int, st *state) (string, error) {
	ok, err := b.Engine.ReserveScheme(ctx, b.name(), c.a.From, c.nonce, value, st.balance, st.block)
	if err != nil {
		b.env.Logger.Error("reserving the payment against the payer's balance failed; nothing was broadcast", zap.String("network", b.Cfg.Name), zap.Error(err))
		return "", scheme.ReserveFailed(b.Cfg.Name, err)
	}
	if !ok {
		return x402.ErrTextInsufficientFunds, nil
	}
	return "", nil
}

// settleClaimed settles amount of a held payment: one batch reads the
// chain, estimates the settle (its simulation) and, when due, the gas
// prices; the charge is reserved, the settle journaled and sent from
// witness.facilitator, and its outcome awaited until deadline. The hold
// is released when nothing is submitted.
func (b *bound) settleClaimed(ctx context.Context, c *payment, amount *big.Int, requested string, deadline time.Time) (*x402.SettleResponse, error) {
	submitted := false
	defer func() {
		if !submitted {
			b.Engine.ReleaseScheme(b.name(), c.a.From, c.nonce)
		}
	}()
	signer := b.sender(c)
	if !b.upto() {
		signer = b.Engine.PickSigner()
	}
	r, err := b.newReads(c, amount, true, signer)
	if err != nil {
		return nil, scheme.BadRequest("the payment cannot be encoded as a settle: %v", err)
	}
	fees, elems := b.JoinFees(r.elems)
	err = b.Pool.BatchShared(ctx, elems)
	fees.Answered(elems, err)
	if err != nil {
		b.env.Logger.Warn("upto settle: RPC unreachable before broadcast", zap.String("network", b.Cfg.Name), zap.Error(err))
		return nil, scheme.Unavailable(fmt.Sprintf("cannot reach the chain of network %s; nothing was broadcast, try again shortly", b.Cfg.Name), err)
	}
	st, err := r.state(elems, c.nonce)
	if err != nil {
		return nil, scheme.Unavailable(fmt.Sprintf("the chain of network %s gave an unreadable answer; nothing was broadcast, try again shortly", b.Cfg.Name), err)
	}
	// The allowance and balance need only cover the charge.
	reason, err := b.reason(st, c, amount)
	if err == nil && reason == "" {
		reason, err = b.reserve(ctx, c, amount, st)
	}
	if err != nil {
		return nil, err
	}
	if reason != "" {
		return x402.Failed(requested, reason), nil
	}
	fe, err := fees.Fees(ctx, uint64(r.gas))
	if err != nil {
		return nil, scheme.Unavailable(fmt.Sprintf("cannot read gas prices on network %s; nothing was broadcast, try again shortly", b.Cfg.Name), err)
	}
	job := &engine.Job{Requested: requested, Via: scheme.Via(ctx), Trace: paytrace.FromContext(ctx).Carry(), Scheme: b.name(), To: b.proxy.Address(),
		Auth: c.auth(amount), Signature: c.sig, Calldata: r.calldata, Fees: fe, Signer: signer, Deadline: deadline}
	t, err := b.Engine.Submit(job)
	if err != nil {
		return nil, b.notSent(err, signer)
	}
	submitted = true // the engine releases the hold with the outcome
	return b.await(ctx, t, requested, deadline), nil
}

// notSent is the 503 of a settle the engine did not broadcast. The
// witness names the signer, so another one cannot take it.
func (b *bound) notSent(err error, signer common.Address) error {
	log := b.env.Logger.With(zap.String("network", b.Cfg.Name), zap.String("signer", signer.Hex()), zap.Error(err))
	var ns *engine.NotSentError
	switch {
	case errors.As(err, &ns) && ns.NoGas:
		log.Error("signer cannot pay gas; fund it (an upto payment settles only from the signer its witness names)")
		return scheme.Unavailable(fmt.Sprintf("the facilitator's signer %s has too little gas money on network %s; nothing was sent, try again after the operator funds it", signer.Hex(), b.Cfg.Name), err)
	case errors.Is(err, store.ErrFenced), errors.Is(err, store.ErrUnavailable):
		log.Error("the shared settlement store cannot be reached or this instance's lease does not hold; nothing was broadcast")
		return scheme.Unavailable(scheme.TextStoreUnreachable, err)
	}
	log.Error("sending the upto settlement failed; nothing was broadcast")
	return scheme.Unavailable(fmt.Sprintf("cannot send the transaction on network %s; nothing was broadcast, try again shortly", b.Cfg.Name), err)
}

// await answers the settlement's outcome, or pending with its hash when
// it is not known by deadline (or ctx ends, or the engine stops).
func (b *bound) await(ctx context.Context, t *engine.Ticket, requested string, deadline time.Time) *x402.SettleResponse {
	timer := time.NewTimer(time.Until(deadline))
	defer timer.Stop()
	select {
	case <-t.Done():
		return engine.ResponseOf(t.Record())
	case <-timer.C:
	case <-ctx.Done():
	case <-t.Stopped():
	}
	res := x402.Failed(requested, x402.ErrTextPending)
	res.TxHash = t.TxHash().Hex()
	b.env.Logger.Warn("upto settlement not confirmed in time; answered pending", zap.String("tx", res.TxHash))
	return res
}

// Claim verifies a checked payment at its maximum, holds its authorization
// and reserves the maximum against the payer's balance, for a settle that
// comes later (Claim.Settle for the maximum, SettleAmount for the charge).
func (b *bound) Claim(ctx context.Context, sp scheme.Payment, requested string) (scheme.Claim, string, error) {
	c := sp.(*payment)
	if reason := atMaximum(c); reason != "" {
		return nil, reason, nil
	}
	if reason, err := b.claim(ctx, c); reason != "" || err != nil {
		return nil, reason, err
	}
	cl := &claimed{b: b, c: c, requested: requested}
	if !b.Cfg.SkipOnchainVerify {
		reason, st, err := b.check(ctx, c, c.a.Amount)
		if err == nil && reason == "" {
			reason, err = b.reserve(ctx, c, c.a.Amount, st)
		}
		if err != nil || reason != "" {
			cl.Release()
			return nil, reason, err
		}
	}
	return cl, "", nil
}

// claimed is a verified upto payment held for a settle that comes later
// (scheme.Claim, and scheme.MeteredClaim).
type claimed struct {
	b         *bound
	c         *payment
	requested string
	mu        sync.Mutex
	used      bool
}

var _ scheme.MeteredClaim = (*claimed)(nil)

// take marks the claim used; false when it was already.
func (r *claimed) take() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	was := r.used
	r.used = true
	return !was
}

// Settle settles the maximum within the settle timeout from now.
func (r *claimed) Settle(ctx context.Context) (*x402.SettleResponse, error) {
	return r.SettleAmount(ctx, r.c.a.Amount)
}

// SettleAmount settles amount (the charge), at most the maximum, within
// the settle timeout from now: 0 releases the hold and moves nothing.
func (r *claimed) SettleAmount(ctx context.Context, amount *big.Int) (*x402.SettleResponse, error) {
	if amount == nil || amount.Sign() < 0 {
		return nil, scheme.BadRequest("the charge must be an amount of at least 0")
	}
	if !r.b.upto() && amount.Cmp(r.c.a.Amount) != 0 {
		return nil, scheme.BadRequest("an exact payment settles its whole amount; it cannot settle a metered charge")
	}
	if amount.Cmp(r.c.a.Amount) > 0 {
		// Refused before anything: the claim stays held for a charge
		// within the maximum, or Release.
		return x402.Failed(r.requested, x402.ReasonUptoExceedsMaximum+amount.String()+" > "+r.c.a.Amount.String()), nil
	}
	if !r.take() {
		return x402.Failed(r.requested, x402.ErrTextAlreadyUsed), nil
	}
	if amount.Sign() == 0 {
		r.b.Engine.ReleaseScheme(r.b.name(), r.c.a.From, r.c.nonce)
		return nothingSettled(r.c, r.requested), nil
	}
	deadline := time.Now().Add(r.b.env.SettleTimeout)
	ctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	return r.b.settleClaimed(ctx, r.c, amount, r.requested, deadline)
}

// Release gives the claim back unsettled; after a settle it does nothing.
func (r *claimed) Release() {
	if r.take() {
		r.b.Engine.ReleaseScheme(r.b.name(), r.c.a.From, r.c.nonce)
	}
}
