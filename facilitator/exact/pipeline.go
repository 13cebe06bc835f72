package exact

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/rpc"
	"go.uber.org/zap"

	"github.com/caddy-x402/caddy-x402/facilitator/engine"
	"github.com/caddy-x402/caddy-x402/facilitator/evm"
	"github.com/caddy-x402/caddy-x402/facilitator/network"
	"github.com/caddy-x402/caddy-x402/facilitator/scheme"
	"github.com/caddy-x402/caddy-x402/facilitator/store"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
	"github.com/caddy-x402/caddy-x402/internal/paytrace"
)

// The pipeline of an exact payment, from the core's Bound calls to the
// chain: Check (off-chain) -> claim (engine Claim) -> read and decide
// (prepare: one shared batch; checkOnchain for a verify) -> reserve
// (engine Reserve) -> submit (engine Submit, from another signer on NoGas)
// -> await (settleClaimed).

// Check runs every check that needs no RPC, in the order of the reference
// facilitators, after the core's scheme and network checks: asset,
// payload, recipient, amount, window, signature. A non-empty reason is the
// verify invalidReason.
func (b *bound) Check(req *x402.Request, p *x402.Payment) (scheme.Payment, string) {
	r := &req.PaymentRequirements
	if !sameAddress(r.Asset, b.Token) {
		return nil, x402.ReasonUnsupportedAsset(r.Asset)
	}
	if err := p.ParsePayload(); err != nil {
		return nil, x402.ReasonOf(err)
	}
	if p.Asset != "" && !sameAddress(p.Asset, b.Token) {
		return nil, x402.ReasonUnsupportedAsset(p.Asset)
	}
	a := &p.Authorization
	if !sameAddress(r.PayTo, a.To) {
		return nil, x402.ReasonRecipient
	}
	want, err := x402.ParseAmount(r.MaxAmountRequired)
	if err != nil {
		return nil, x402.ReasonInvalidAmount(r.MaxAmountRequired)
	}
	if a.Value.Cmp(want) != 0 {
		return nil, x402.ReasonInvalidAmount(p.Value)
	}
	if reason := b.checkWindow(a); reason != "" {
		return nil, reason
	}
	smart, reason := b.checkSignature(a, p.Signature)
	if reason != "" {
		return nil, reason
	}
	return &payment{b: b, p: p, smart: smart}, ""
}

// Verify runs the on-chain checks (unless the network skips them):
// authorizationState, the payer's balance and a simulated transfer in one
// RPC round trip, plus the wallet's verdict for a smart-contract wallet.
func (b *bound) Verify(ctx context.Context, sp scheme.Payment) (string, error) {
	c := sp.(*payment)
	if b.Cfg.SkipOnchainVerify {
		if c.smart != nil {
			// Only the chain can tell a smart-contract wallet's signature.
			return x402.ReasonInvalidSignature, nil
		}
		return "", nil
	}
	reason, _, err := b.checkOnchain(ctx, c)
	return reason, err
}

// Settle claims a checked payment and settles it.
func (b *bound) Settle(ctx context.Context, sp scheme.Payment, requested string, deadline time.Time) (*x402.SettleResponse, error) {
	c := sp.(*payment)
	reason, err := b.claim(ctx, c)
	if err != nil {
		return nil, err
	}
	if reason != "" {
		return x402.Failed(requested, reason), nil
	}
	return b.settleClaimed(ctx, c, requested, deadline)
}

// Claim claims a checked payment's authorization and, unless the network
// skips on-chain checks, verifies it on chain and reserves its value
// against the payer's balance, for a settle that comes later.
func (b *bound) Claim(ctx context.Context, sp scheme.Payment, requested string) (scheme.Claim, string, error) {
	c := sp.(*payment)
	reason, err := b.claim(ctx, c)
	if err != nil || reason != "" {
		return nil, reason, err
	}
	cl := &claimed{b: b, c: c, requested: requested}
	if !b.Cfg.SkipOnchainVerify {
		reason, st, err := b.checkOnchain(ctx, c)
		if err == nil && reason == "" {
			reason, err = b.reserve(ctx, c, st)
		}
		if err != nil || reason != "" {
			cl.Release()
			return nil, reason, err
		}
	}
	return cl, "", nil
}

// claimed is a verified payment held for a settle that comes later
// (scheme.Claim).
type claimed struct {
	b         *bound
	c         *payment
	requested string
	mu        sync.Mutex
	used      bool
}

// Settle settles the claimed payment within the settle timeout from now.
func (r *claimed) Settle(ctx context.Context) (*x402.SettleResponse, error) {
	r.mu.Lock()
	used := r.used
	r.used = true
	r.mu.Unlock()
	if used {
		return x402.Failed(r.requested, x402.ErrTextAlreadyUsed), nil
	}
	deadline := time.Now().Add(r.b.env.SettleTimeout)
	ctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	return r.b.settleClaimed(ctx, r.c, r.requested, deadline)
}

// Release gives the claim back unsettled; after Settle it does nothing.
func (r *claimed) Release() {
	r.mu.Lock()
	used := r.used
	r.used = true
	r.mu.Unlock()
	if !used {
		a := &r.c.p.Authorization
		r.b.Engine.Release(a.From, a.Nonce)
		r.c.releasePayer()
	}
}

// checkOnchain reads the authorization state and balance and simulates the
// transfer, in one batched round trip shared with the other verifies and
// settles of the moment (Pool.BatchShared).
func (b *bound) checkOnchain(ctx context.Context, c *payment) (reason string, st *ChainState, err error) {
	if c.smart != nil {
		return b.checkSmartOnchain(ctx, c)
	}
	bc := NewBatchChecks(c.b.Token, c.b.SimulationSender(), &c.p.Authorization, c.transferCalldata())
	if err := c.b.Pool.BatchShared(ctx, bc.Elems); err != nil {
		b.env.Logger.Warn("on-chain checks failed: RPC unreachable", zap.String("network", c.b.Cfg.Name), zap.Error(err))
		return "", nil, scheme.Unavailable("cannot reach the chain of network "+c.b.Cfg.Name+" to check the payment; try again shortly", err)
	}
	st, err = bc.State()
	if err != nil {
		return "", nil, scheme.Unavailable("the chain of network "+c.b.Cfg.Name+" gave an unreadable answer; try again shortly", err)
	}
	if err := simulationError(c.b, st); err != nil {
		return "", nil, err
	}
	return onchainReason(st, c.p.Authorization.Value), st, nil
}

// claim holds a checked payment's authorization for a settle (engine Claim)
// and, for a smart-contract wallet's payment, its payer (one settlement
// at a time: holdPayer). A reason refuses it: x402.ErrTextAlreadyUsed when
// another settle holds the authorization, x402.ReasonWalletBusy when another
// settlement holds the wallet.
func (b *bound) claim(ctx context.Context, c *payment) (string, error) {
	n := c.b
	if len(n.Engine.Signers()) == 0 {
		return "", scheme.Unavailable(fmt.Sprintf("network %s has no signer key, so this facilitator cannot settle on it; configure a signer key", n.Cfg.Name), nil)
	}
	a := &c.p.Authorization
	held, err := n.Engine.Claim(ctx, a.From, a.Nonce)
	if err != nil {
		b.env.Logger.Error("the shared settlement store cannot be reached; nothing was broadcast", zap.String("network", n.Cfg.Name), zap.Error(err))
		return "", scheme.Unavailable(scheme.TextStoreUnreachable, err)
	}
	if !held {
		return x402.ErrTextAlreadyUsed, nil
	}
	if c.smart != nil {
		if reason, err := b.holdPayer(ctx, c); reason != "" || err != nil {
			n.Engine.Release(a.From, a.Nonce)
			return reason, err
		}
	}
	return "", nil
}

// settleClaimed settles a held payment: it reserves the payment's value
// against its payer (unless reserved already), broadcasts and waits for the
// outcome until deadline. The hold is released when nothing is submitted.
func (b *bound) settleClaimed(ctx context.Context, c *payment, requested string, deadline time.Time) (*x402.SettleResponse, error) {
	n, a := c.b, &c.p.Authorization
	submitted := false
	defer func() {
		if !submitted {
			n.Engine.Release(a.From, a.Nonce)
			c.releasePayer()
		}
	}()

	signer := n.Engine.PickSigner()
	fee, reason, err := b.prepare(ctx, c, signer)
	if err != nil {
		return nil, err
	}
	if reason != "" {
		return x402.Failed(requested, x402.SettleText(reason)), nil
	}
	job := &engine.Job{Requested: requested, Via: scheme.Via(ctx), Trace: paytrace.FromContext(ctx).Carry(), Auth: *a, Signature: c.p.Signature, Calldata: c.transferCalldata(), Fees: fee, Signer: signer, Deadline: deadline,
		PayerHeld: c.payerHeld}
	if c.deploy {
		job.Calldata, job.Create = c.deployCode(), true
	}
	t, err := n.Engine.Submit(job)
	var ns *engine.NotSentError
	if errors.As(err, &ns) && ns.NoGas {
		// Nothing was sent: another signer with gas money takes it.
		if other, ok := n.Engine.PickOtherSigner(signer); ok {
			b.env.Logger.Warn("signer cannot pay gas; settling from another signer", zap.String("network", n.Cfg.Name), zap.String("signer", signer.Hex()), zap.String("other", other.Hex()))
			signer, job.Signer = other, other
			t, err = n.Engine.Submit(job)
		}
	}
	if err != nil {
		log := b.env.Logger.With(zap.String("network", n.Cfg.Name), zap.String("signer", signer.Hex()), zap.Error(err))
		if errors.As(err, &ns) && ns.NoGas {
			log.Error("signer cannot pay gas; fund it")
			return nil, scheme.Unavailable(fmt.Sprintf("the facilitator's signer %s has too little gas money on network %s; nothing was sent, try again after the operator funds it", signer.Hex(), n.Cfg.Name), err)
		}
		if errors.Is(err, store.ErrFenced) {
			log.Error("this instance's lease in the shared store does not hold (the database was out of reach); nothing was broadcast")
			return nil, scheme.Unavailable(scheme.TextStoreUnreachable, err)
		}
		if errors.Is(err, store.ErrUnavailable) {
			log.Error("the shared settlement store cannot be reached; nothing was broadcast")
			return nil, scheme.Unavailable(scheme.TextStoreUnreachable, err)
		}
		log.Error("sending the settlement failed; nothing was broadcast")
		return nil, scheme.Unavailable(fmt.Sprintf("cannot send the transaction on network %s; nothing was broadcast, try again shortly", n.Cfg.Name), err)
	}
	submitted = true // the engine releases the authorization when its outcome is known

	timer := time.NewTimer(time.Until(deadline))
	defer timer.Stop()
	select {
	case <-t.Done():
		rec := t.Record()
		if c.smart != nil {
			b.countWalletSettled(c, rec)
			if rec.Status == store.StatusFailed && rec.TxHash != "" {
				b.strikeDone(ctx, rec.ID, deadline)
			}
		}
		return engine.ResponseOf(rec), nil
	case <-timer.C:
	case <-ctx.Done():
	case <-t.Stopped():
		// A facilitator closing (a reload replacing it) goes on waiting
		// while the settlement engine, shared with the new one, follows
		// the transaction; only an engine that stops answers pending.
	}
	res := x402.Failed(requested, x402.ErrTextPending)
	res.TxHash = t.TxHash().Hex()
	b.env.Logger.Warn("settlement not confirmed in time; answered pending", zap.String("tx", res.TxHash), zap.Duration("timeout", b.env.SettleTimeout))
	return res, nil
}

// prepare runs the on-chain checks and reads what the transaction needs
// (gas estimate, fees), all in one batched round trip, shared with the
// other settles and verifies of the moment (Pool.BatchShared).
func (b *bound) prepare(ctx context.Context, c *payment, signer common.Address) (*engine.Fees, string, error) {
	n := c.b
	// The gas estimate runs the transfer as the signer would send it, so it
	// is the simulation too: a revert fails it with the token's reason.
	bc := NewBatchChecks(n.Token, signer, &c.p.Authorization, nil)
	var gas hexutil.Uint64
	elems := append(bc.Elems,
		rpc.BatchElem{Method: "eth_estimateGas", Args: []any{evm.CallArgs{From: signer, To: n.Token, Data: c.transferCalldata()}}, Result: &gas})
	// The gas prices are shared by the settles of a moment: read with one
	// of them, at most every feeQuoteTTL; the settles that come while that
	// read is on its way wait for it (below) rather than read their own.
	q, fetch, wait := n.Fees.Get()
	var fr *network.FeeRead
	if fetch {
		fr = network.NewFeeRead()
		elems = append(elems, fr.Elems...)
	}
	var sp *walletReads
	if c.smart != nil {
		sp, elems = c.smartElems(signer, elems)
	}
	err := n.Pool.BatchShared(ctx, elems)
	bc.Elems = elems[:ChecksElems] // the answered elements (appends may have moved them)
	if fetch {
		if err == nil {
			q = fr.Quote(elems[ChecksElems+1:])
		}
		n.Fees.Put(q)
	}
	if err != nil {
		b.env.Logger.Warn("settle: RPC unreachable before broadcast", zap.String("network", n.Cfg.Name), zap.Error(err))
		return nil, "", scheme.Unavailable(fmt.Sprintf("cannot reach the chain of network %s; nothing was broadcast, try again shortly", n.Cfg.Name), err)
	}
	st, err := bc.State()
	if err != nil {
		return nil, "", scheme.Unavailable(fmt.Sprintf("the chain of network %s gave an unreadable answer; nothing was broadcast, try again shortly", n.Cfg.Name), err)
	}
	if sp != nil {
		if reason, err := b.smartTx(ctx, c, st, sp, elems, &elems[ChecksElems], &gas); reason != "" || err != nil {
			return nil, reason, err
		}
	} else {
		if err := simulationError(n, st); err != nil {
			return nil, "", err
		}
		if reason := onchainReason(st, c.p.Authorization.Value); reason != "" {
			return nil, reason, nil
		}
	}
	if reason, err := b.reserve(ctx, c, st); reason != "" || err != nil {
		return nil, reason, err
	}
	if err := elems[ChecksElems].Error; err != nil && !c.deploy {
		if r, ok := evm.RevertReason(err); ok {
			return nil, verifyTextForRevert(r), nil
		}
		return nil, "", scheme.Unavailable(fmt.Sprintf("gas estimation failed on network %s; nothing was broadcast, try again shortly", n.Cfg.Name), err)
	}
	if wait != nil {
		q = n.Fees.Await(ctx, wait, n.Pool)
	}
	if q == nil || q.Err != nil {
		var qerr error
		if q != nil {
			qerr = q.Err
		}
		return nil, "", scheme.Unavailable(fmt.Sprintf("cannot read gas prices on network %s; nothing was broadcast, try again shortly", n.Cfg.Name), qerr)
	}
	fe := &engine.Fees{GasLimit: uint64(gas) * (100 + gasMarginPercent) / 100}
	if q.BaseFee != nil {
		fe.TipCap = new(big.Int).Set(q.Tip)
		// Twice the base fee leaves room for six full blocks of rises.
		fe.FeeCap = new(big.Int).Add(new(big.Int).Mul(q.BaseFee, big.NewInt(2)), fe.TipCap)
	} else {
		fe.GasPrice = new(big.Int).Set(q.GasPrice)
	}
	return fe, "", nil
}

// reserve reserves a held payment's value against its payer's balance as
// read in st (engine Reserve): the token's own "exceeds balance" reason
// when it does not fit beside the payer's other settlements in flight.
func (b *bound) reserve(ctx context.Context, c *payment, st *ChainState) (reason string, err error) {
	a := &c.p.Authorization
	ok, err := c.b.Engine.Reserve(ctx, a.From, a.Nonce, a.Value, st.Balance, st.Block)
	if err != nil {
		b.env.Logger.Error("reserving the payment against the payer's balance failed; nothing was broadcast", zap.String("network", c.b.Cfg.Name), zap.Error(err))
		return "", scheme.ReserveFailed(c.b.Cfg.Name, err)
	}
	if !ok {
		b.env.Logger.Info("payment refused: the payer's settlements in flight already take its balance",
			zap.String("network", c.b.Cfg.Name), zap.String("from", a.From.Hex()), zap.String("value", a.Value.String()),
			zap.String("balance", st.Balance.String()))
		return x402.ErrTextInsufficientFunds, nil
	}
	return "", nil
}
