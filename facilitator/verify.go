package facilitator

import (
	"cmp"
	"context"
	"math/big"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"go.uber.org/zap"

	"github.com/caddy-x402/caddy-x402/facilitator/evm"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// checked is a payment that passed the off-chain checks.
type checked struct {
	n        *exactNetwork
	p        *Payment
	calldata []byte // transferWithAuthorization call, built on first use
	// smart is set when the signature is not the payer's ECDSA one: a
	// smart-contract wallet's, to be checked on chain (smartwallet.go).
	smart *smartPayment
	// deploy is set by settle when the transaction deploys the payer's
	// wallet (ERC-6492) before the transfer.
	deploy bool
	// payerHeld is set while the payment holds its payer, a smart-contract
	// wallet, for its settlement (cooloff.go).
	payerHeld bool
}

// transferCalldata is the transferWithAuthorization call: the (v, r, s)
// form for an EOA's signature, the bytes form with the wallet's own
// signature for a smart-contract wallet.
func (c *checked) transferCalldata() []byte {
	if c.calldata == nil && c.smart != nil {
		c.calldata = evm.TransferCalldataBytes(&c.p.Authorization, c.smart.sig)
	}
	if c.calldata == nil {
		var err error
		if c.calldata, err = evm.TransferCalldata(&c.p.Authorization, c.p.Signature); err != nil {
			panic(err) // every argument was parsed into its ABI type
		}
	}
	return c.calldata
}

// validateRequest rejects requests that are malformed as requests (HTTP
// 400): wrong protocol version, missing fields, a payTo that is no address.
func validateRequest(req *Request) error {
	if req == nil {
		return badRequest("request body is required")
	}
	if req.X402Version != X402Version && (req.Dialect != x402.DialectV2 || req.X402Version != x402.Version2) {
		return badRequest("x402Version must be 1, got %d", req.X402Version)
	}
	if req.PaymentHeader == "" {
		return badRequest("paymentHeader is required")
	}
	r := &req.PaymentRequirements
	for _, f := range []struct{ name, val string }{
		{"scheme", r.Scheme}, {"network", r.Network}, {"payTo", r.PayTo},
		{"asset", r.Asset}, {"maxAmountRequired", r.MaxAmountRequired},
	} {
		if f.val == "" {
			return badRequest("paymentRequirements.%s is required", f.name)
		}
	}
	if !IsAddress(r.PayTo) {
		return badRequest("paymentRequirements.payTo must be a 0x-prefixed 20-byte hex address, got %q", r.PayTo)
	}
	if r.MaxTimeoutSeconds < 0 {
		return badRequest("paymentRequirements.maxTimeoutSeconds must not be negative")
	}
	return nil
}

// sameAddress compares two hex addresses case-insensitively.
func sameAddress(a string, b common.Address) bool {
	addr, ok := x402.ParseAddress(a)
	return ok && addr == b
}

// checkOffchain runs every check that needs no RPC, in the order of the
// reference facilitators. A non-empty reason is the verify invalidReason.
func (f *Facilitator) checkOffchain(req *Request) (c *checked, reason string) {
	r := &req.PaymentRequirements
	p, err := DecodePaymentHeader(req.PaymentHeader)
	if err != nil {
		return nil, reasonOf(err)
	}
	if r.Scheme != SchemeExact {
		return nil, ReasonUnsupportedScheme(r.Scheme)
	}
	if p.Scheme != SchemeExact {
		return nil, ReasonUnsupportedScheme(p.Scheme)
	}
	n := f.network(r.Network)
	if n == nil {
		return nil, ReasonUnsupportedNetwork(r.Network)
	}
	if f.network(p.Network) != n {
		return nil, ReasonUnsupportedNetwork(p.Network)
	}
	if !sameAddress(r.Asset, n.Token) {
		return nil, ReasonUnsupportedAsset(r.Asset)
	}
	if err := p.ParsePayload(); err != nil {
		return nil, reasonOf(err)
	}
	if p.Asset != "" && !sameAddress(p.Asset, n.Token) {
		return nil, ReasonUnsupportedAsset(p.Asset)
	}
	a := &p.Authorization
	if !sameAddress(r.PayTo, a.To) {
		return nil, ReasonRecipient
	}
	want, err := ParseAmount(r.MaxAmountRequired)
	if err != nil {
		return nil, ReasonInvalidAmount(r.MaxAmountRequired)
	}
	if a.Value.Cmp(want) != 0 {
		return nil, ReasonInvalidAmount(p.Value)
	}
	if reason := f.checkWindow(a); reason != "" {
		return nil, reason
	}
	smart, reason := n.checkSignature(a, p.Signature)
	if reason != "" {
		return nil, reason
	}
	return &checked{n: n, p: p, smart: smart}, ""
}

// checkWindow applies validAfter and validBefore (Unix seconds) to the
// current time as the token does (strictly: valid when validAfter < now <
// validBefore), with the expiry margin before validBefore.
func (f *Facilitator) checkWindow(a *Authorization) string {
	now := f.now()
	if cmpInt64(a.ValidBefore, now.Add(f.expiryMargin).Unix()) <= 0 {
		return ErrTextExpired
	}
	if cmpInt64(a.ValidAfter, now.Unix()) >= 0 {
		return ErrTextNotYetValid
	}
	return ""
}

// cmpInt64 is x.Cmp(big.NewInt(y)) without allocating.
func cmpInt64(x *big.Int, y int64) int {
	if !x.IsInt64() {
		return x.Sign()
	}
	return cmp.Compare(x.Int64(), y)
}

func reasonOf(err error) string { return x402.ReasonOf(err) }

// Verify checks a payment against the seller's requirements: the off-chain
// checks, then (unless the network skips them) authorizationState, the
// payer's balance and a simulated transfer in one RPC round trip.
//
// The answer's IsValid and InvalidReason are the verdict. An error is
// returned only when there is no verdict: a malformed request (StatusError
// 400) or an unreachable chain (StatusError 503).
func (f *Facilitator) Verify(ctx context.Context, req *Request) (*VerifyResponse, error) {
	if err := validateRequest(req); err != nil {
		return nil, err
	}
	c, reason := f.checkOffchain(req)
	if reason != "" {
		return Invalid(reason), nil
	}
	if c.n.Cfg.SkipOnchainVerify {
		if c.smart != nil {
			// Only the chain can tell a smart-contract wallet's signature.
			return Invalid(ReasonInvalidSignature), nil
		}
		return Valid(), nil
	}
	reason, _, err := f.checkOnchain(ctx, c)
	if err != nil {
		return nil, err
	}
	if reason != "" {
		return Invalid(reason), nil
	}
	return Valid(), nil
}

// Reservation is a verified payment held for a settle that comes later
// (Reserve). Settle it or Release it; the first of the two counts.
type Reservation struct {
	f         *Facilitator
	c         *checked
	requested string
	mu        sync.Mutex
	used      bool
}

// Reserve verifies a payment as Verify does and, when it is valid, holds it
// for a settle that comes later (a seller that settles after its upstream
// answered): its authorization, so that no other settle takes it, and its
// value against the payer's balance beside the payer's settlements in
// flight, so that a payer's payments accepted at once never exceed what it
// holds. A payment that does not fit is invalid with the token's
// "ERC20: transfer amount exceeds balance". The Reservation comes with a
// valid answer only; a copy of a held authorization is invalid as
// "Authorization already used".
func (f *Facilitator) Reserve(ctx context.Context, req *Request) (*Reservation, *VerifyResponse, error) {
	if err := validateRequest(req); err != nil {
		return nil, nil, err
	}
	c, reason := f.checkOffchain(req)
	if reason != "" {
		return nil, Invalid(reason), nil
	}
	reason, err := f.hold(ctx, c)
	if err != nil {
		return nil, nil, err
	}
	if reason != "" {
		return nil, Invalid(reason), nil
	}
	r := &Reservation{f: f, c: c, requested: req.PaymentRequirements.Network}
	if !c.n.Cfg.SkipOnchainVerify {
		reason, st, err := f.checkOnchain(ctx, c)
		if err == nil && reason == "" {
			reason, err = f.reserve(ctx, c, st)
		}
		if err != nil || reason != "" {
			r.Release()
			if err != nil {
				return nil, nil, err
			}
			return nil, Invalid(reason), nil
		}
	}
	return r, Valid(), nil
}

// Settle settles the reserved payment as Facilitator.Settle does, within
// the settle timeout from now.
func (r *Reservation) Settle(ctx context.Context) (*SettleResponse, error) {
	r.mu.Lock()
	used := r.used
	r.used = true
	r.mu.Unlock()
	if used {
		return failed(r.requested, ErrTextAlreadyUsed), nil
	}
	deadline := time.Now().Add(r.f.settleTimeout)
	ctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	return r.f.settleHeld(ctx, r.c, r.requested, deadline)
}

// Release gives the reservation back unsettled; after Settle it does
// nothing.
func (r *Reservation) Release() {
	r.mu.Lock()
	used := r.used
	r.used = true
	r.mu.Unlock()
	if !used {
		a := &r.c.p.Authorization
		r.c.n.Engine.Release(a.From, a.Nonce)
		r.c.releasePayer()
	}
}

// checkOnchain reads the authorization state and balance and simulates the
// transfer, in one batched round trip shared with the other verifies and
// settles of the moment (Pool.Gather).
func (f *Facilitator) checkOnchain(ctx context.Context, c *checked) (reason string, st *evm.ChainState, err error) {
	if c.smart != nil {
		return f.checkSmartOnchain(ctx, c)
	}
	b := evm.NewBatchChecks(c.n.Token, c.n.SimulationSender(), &c.p.Authorization, c.transferCalldata())
	if err := c.n.Pool.Gather(ctx, b.Elems); err != nil {
		f.logger.Warn("on-chain checks failed: RPC unreachable", zap.String("network", c.n.Cfg.Name), zap.Error(err))
		return "", nil, unavailable("cannot reach the chain of network "+c.n.Cfg.Name+" to check the payment; try again shortly", err)
	}
	st, err = b.State()
	if err != nil {
		return "", nil, unavailable("the chain of network "+c.n.Cfg.Name+" gave an unreadable answer; try again shortly", err)
	}
	if err := simulationError(c.n, st); err != nil {
		return "", nil, err
	}
	return onchainReason(st, c.p.Authorization.Value), st, nil
}

// simulationError is a StatusError 503 when the simulated transfer failed
// for another reason than a revert (the node could not run it): that is
// no verdict on the payment.
func simulationError(n *exactNetwork, st *evm.ChainState) error {
	if st.Simulation == nil || st.Used {
		return nil
	}
	if _, ok := evm.RevertReason(st.Simulation); ok {
		return nil
	}
	return unavailable("the node of network "+n.Cfg.Name+" could not simulate the transfer; try again shortly", st.Simulation)
}

// onchainReason turns on-chain facts into a verify reason ("" when all is well).
func onchainReason(st *evm.ChainState, value *big.Int) string {
	if st.Used {
		return ErrTextAlreadyUsed
	}
	if st.Balance.Cmp(value) < 0 {
		return ErrTextInsufficientFunds
	}
	if st.Simulation != nil {
		if r, ok := evm.RevertReason(st.Simulation); ok {
			return verifyTextForRevert(r)
		}
		return ReasonSimulationFailed(st.Simulation.Error())
	}
	return ""
}
