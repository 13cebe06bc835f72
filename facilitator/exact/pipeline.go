package exact

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/big"
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
)

// payment is a payment that passed the off-chain checks (scheme.Payment).
type payment struct {
	b        *bound
	p        *x402.Payment
	calldata []byte // transferWithAuthorization call, built on first use
	// smart is set when the signature is not the payer's ECDSA one: a
	// smart-contract wallet's, to be checked on chain (wallet.go).
	smart *walletSig
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
func (c *payment) transferCalldata() []byte {
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

// sameAddress compares two hex addresses case-insensitively.
func sameAddress(a string, b common.Address) bool {
	addr, ok := x402.ParseAddress(a)
	return ok && addr == b
}

// checkWindow applies validAfter and validBefore (Unix seconds) to the
// current time as the token does (strictly: valid when validAfter < now <
// validBefore), with the expiry margin before validBefore.
func (b *bound) checkWindow(a *x402.Authorization) string {
	now := b.env.Now()
	if cmpInt64(a.ValidBefore, now.Add(b.env.ExpiryMargin).Unix()) <= 0 {
		return x402.ErrTextExpired
	}
	if cmpInt64(a.ValidAfter, now.Unix()) >= 0 {
		return x402.ErrTextNotYetValid
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

// checkOnchain reads the authorization state and balance and simulates the
// transfer, in one batched round trip shared with the other verifies and
// settles of the moment (Pool.Gather).
func (b *bound) checkOnchain(ctx context.Context, c *payment) (reason string, st *evm.ChainState, err error) {
	if c.smart != nil {
		return b.checkSmartOnchain(ctx, c)
	}
	bc := evm.NewBatchChecks(c.b.Token, c.b.SimulationSender(), &c.p.Authorization, c.transferCalldata())
	if err := c.b.Pool.Gather(ctx, bc.Elems); err != nil {
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

// simulationError is a StatusError 503 when the simulated transfer failed
// for another reason than a revert (the node could not run it): that is
// no verdict on the payment.
func simulationError(n *bound, st *evm.ChainState) error {
	if st.Simulation == nil || st.Used {
		return nil
	}
	if _, ok := evm.RevertReason(st.Simulation); ok {
		return nil
	}
	return scheme.Unavailable("the node of network "+n.Cfg.Name+" could not simulate the transfer; try again shortly", st.Simulation)
}

// onchainReason turns on-chain facts into a verify reason ("" when all is well).
func onchainReason(st *evm.ChainState, value *big.Int) string {
	if st.Used {
		return x402.ErrTextAlreadyUsed
	}
	if st.Balance.Cmp(value) < 0 {
		return x402.ErrTextInsufficientFunds
	}
	if st.Simulation != nil {
		if r, ok := evm.RevertReason(st.Simulation); ok {
			return verifyTextForRevert(r)
		}
		return x402.ReasonSimulationFailed(st.Simulation.Error())
	}
	return ""
}

// gasMarginPercent is added to eth_estimateGas's figure.
const gasMarginPercent = 25

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
	job := &engine.Job{Requested: requested, Via: scheme.Via(ctx), Auth: *a, Signature: c.p.Signature, Calldata: c.transferCalldata(), Fees: fee, Signer: signer, Deadline: deadline,
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
// other settles and verifies of the moment (Pool.Gather).
func (b *bound) prepare(ctx context.Context, c *payment, signer common.Address) (*engine.Fees, string, error) {
	n := c.b
	// The gas estimate runs the transfer as the signer would send it, so it
	// is the simulation too: a revert fails it with the token's reason.
	bc := evm.NewBatchChecks(n.Token, signer, &c.p.Authorization, nil)
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
	err := n.Pool.Gather(ctx, elems)
	bc.Elems = elems[:evm.ChecksElems] // the answered elements (appends may have moved them)
	if fetch {
		if err == nil {
			q = fr.Quote(elems[evm.ChecksElems+1:])
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
		if reason, err := b.smartTx(ctx, c, st, sp, elems, &elems[evm.ChecksElems], &gas); reason != "" || err != nil {
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
	if err := elems[evm.ChecksElems].Error; err != nil && !c.deploy {
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
func (b *bound) reserve(ctx context.Context, c *payment, st *evm.ChainState) (reason string, err error) {
	a := &c.p.Authorization
	ok, err := c.b.Engine.Reserve(ctx, a.From, a.Nonce, a.Value, st.Balance, st.Block)
	if err != nil {
		b.env.Logger.Error("the shared settlement store cannot be reached; nothing was broadcast", zap.String("network", c.b.Cfg.Name), zap.Error(err))
		return "", scheme.Unavailable(scheme.TextStoreUnreachable, err)
	}
	if !ok {
		b.env.Logger.Info("payment refused: the payer's settlements in flight already take its balance",
			zap.String("network", c.b.Cfg.Name), zap.String("from", a.From.Hex()), zap.String("value", a.Value.String()),
			zap.String("balance", st.Balance.String()))
		return x402.ErrTextInsufficientFunds, nil
	}
	return "", nil
}
