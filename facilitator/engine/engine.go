// Package engine is the settlement state machine of the facilitator: per
// signer-key send loops with local nonce counters, the receipt watcher with
// fee replacement, the journal that records every settlement before its
// transaction is broadcast (bbolt by default, behind an interface), recovery
// at start and the in-flight reservations that keep one authorization in
// one transaction. It knows transactions and records, not HTTP or the x402
// answers: the facilitator hands it a Job (what to settle) and reads the
// Record (what came of it).
package engine

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"math/big"
	"slices"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"go.uber.org/zap"

	"github.com/caddy-x402/caddy-x402/facilitator/evm"
	"github.com/caddy-x402/caddy-x402/facilitator/store"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
	"github.com/caddy-x402/caddy-x402/internal/paytrace"
)

// Config configures the engine of one network.
type Config struct {
	// Network is the network's primary name, part of every record ID.
	Network string
	// ChainID is the chain's ID, for signing.
	ChainID *big.Int
	// Token is the token the transactions pay in: the engine reads
	// payers' balanceOf on it, and one core serves one journal, chain
	// and token.
	Token common.Address
	// Spent says how the payment scheme's authorizations are read on
	// chain (used or not, and the log of their use). Required to settle.
	// It serves the records and jobs that name no scheme (the first
	// scheme's, exact).
	Spent Spent
	// Spents are the Spent of the other schemes that settle through this
	// engine, by scheme name (Job.Scheme, store.Record.Scheme).
	Spents map[string]Spent
	// Spaces are the nonce spaces of the schemes' authorizations, by
	// scheme name as Spents ("" for Spent's); a scheme absent, or "",
	// is EIP-3009's. A space's authorizations are held, reserved and
	// journaled apart from another's of the same payer and nonce
	// (RecordIDIn), so that a buyer who signs one nonce in both never has
	// one taken for the other.
	Spaces map[string]string
	// Pool is the network's RPC pool.
	Pool *evm.Pool
	// Keys are the signer keys that pay the gas.
	Keys []*ecdsa.PrivateKey
	// Journal records the settlements; it is shared by the networks and
	// not closed by the engine.
	Journal store.Journal
	// PollInterval is how often the head is polled while settlements
	// wait. Zero means 50 ms.
	PollInterval time.Duration
	// ReplaceAfter is how many blocks a transaction may stay unmined
	// before a fee-bumped replacement. Zero means 5.
	ReplaceAfter uint64
	// MaxFeeMultiple is the fee ceiling of replacements, as a multiple of
	// the first transaction's fees. Zero means 3.
	MaxFeeMultiple uint64
	// SendTimeout bounds one broadcast, failover included. Zero means 5 s.
	SendTimeout time.Duration
	// Serial holds each signer to one settlement at a time (a baseline).
	Serial bool
	// UseLogWindow is how far back, in chain time, UsedBy looks for the
	// transaction that used an authorization: the journal retention, so
	// that what the journal forgot the chain answers. Zero means
	// DefaultUseLogWindow.
	UseLogWindow time.Duration
	// Logger receives the engine's logs; nil means none.
	Logger *zap.Logger
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Reverted, when set, is told of every settlement whose transaction
	// was mined and reverted, once its outcome is journaled (revert.go).
	// It runs on the watcher's loop: it must not block (it hands slow work
	// to a goroutine), and it calls the Revert's Release when done.
	Reverted func(*Revert)
}

// Engine settles the jobs of one network. It is safe for concurrent use.
// Its settlement state is shared with the other engines of the process on
// the same journal, chain and token (see core.go): Start attaches it,
// Close detaches it.
type Engine struct {
	cfg     Config
	logger  *zap.Logger
	now     func() time.Time
	addrs   []common.Address // the configured signers' addresses
	signers []*signer        // the same signers, shared with the core (Start)
	core    *core            // set by Start
	joined  bool             // Start found the core running
	closed  bool
	// shared is the journal when several instances use it at once: the
	// signers' nonces and the holds are then taken from it too.
	shared store.Shared

	mu   sync.Mutex
	next uint32 // round-robin over signers
}

// New builds the engine of a network; Start runs it.
func New(cfg Config) (*Engine, error) {
	if cfg.PollInterval <= 0 {
		cfg.PollInterval = 50 * time.Millisecond
	}
	if cfg.SendTimeout <= 0 {
		cfg.SendTimeout = 5 * time.Second
	}
	if cfg.ReplaceAfter == 0 {
		cfg.ReplaceAfter = 5
	}
	if cfg.Journal == nil {
		return nil, errors.New("network " + cfg.Network + ": the engine needs a journal")
	}
	e := &Engine{cfg: cfg, logger: cfg.Logger, now: cfg.Now}
	e.shared, _ = cfg.Journal.(store.Shared)
	if e.logger == nil {
		e.logger = zap.NewNop()
	}
	if e.now == nil {
		e.now = time.Now
	}
	for _, k := range cfg.Keys {
		a := crypto.PubkeyToAddress(k.PublicKey)
		if slices.Contains(e.addrs, a) {
			return nil, errors.New("network " + cfg.Network + ": signer " + a.Hex() + " is configured twice")
		}
		e.addrs = append(e.addrs, a)
	}
	return e, nil
}

// Start attaches the engine to the running settlement state of its
// journal, chain and token, or starts it: the signers' send loops and the
// watcher. An engine that joins a running one takes over from the engine
// it replaces with nothing lost: the same nonce counters, the same
// settlements followed to their end. Close detaches it.
func (e *Engine) Start() {
	e.core, e.joined = attach(e)
	if e.joined {
		e.logger.Info("joined the running settlement engine of this journal, chain and token: settlements in flight carry on",
			zap.String("network", e.cfg.Network), zap.Int("pending", e.core.watch.count()))
	}
}

// Close detaches the engine. The last engine of a journal, chain and token
// to close stops their loops: settlements still waiting for their blocks
// stay pending in the journal and are reconciled at the next start.
func (e *Engine) Close() {
	e.mu.Lock()
	c, closed := e.core, e.closed
	e.closed = true
	e.mu.Unlock()
	if c != nil && !closed {
		c.detach(e)
	}
}

// Signers lists the signer addresses, in configuration order.
func (e *Engine) Signers() []common.Address {
	return slices.Clone(e.addrs)
}

// Pending is the number of settlements waiting for their block.
func (e *Engine) Pending() int { return e.core.watch.count() }

// PickSigner spreads settlements over the signers, round-robin, skipping
// signers known to lack gas money while another one has it. It panics
// without signers; check Signers first.
func (e *Engine) PickSigner() common.Address {
	return e.pickSigner(common.Address{})
}

// PickOtherSigner picks a signer other than not that is not known to lack
// gas money; ok is false when there is none.
func (e *Engine) PickOtherSigner(not common.Address) (common.Address, bool) {
	a := e.pickSigner(not)
	return a, a != not && !e.signerByAddress(a).noGas.Load()
}

func (e *Engine) pickSigner(not common.Address) common.Address {
	e.mu.Lock()
	defer e.mu.Unlock()
	n := uint32(len(e.signers))
	for i := range n {
		s := e.signers[(e.next+i)%n]
		if !s.noGas.Load() && s.addr != not {
			e.next += i + 1
			return s.addr
		}
	}
	s := e.signers[e.next%n]
	e.next++
	return s.addr
}

// Reserve reserves the value of an authorization held with Claim against
// its payer's balance on the token (read at block atBlock or later): true
// when it fits beside the payer's other settlements in flight, of this
// process and, with a shared journal, of every instance. One that does not
// fit at first sight is checked again exactly at block atBlock (see the
// package comment above) before the answer is false. The reservation ends
// with the hold (the engine's outcome, or Release). An authorization
// reserved already stays reserved (true). An error means the chain or the
// shared journal could not be asked; nothing is reserved then.
func (e *Engine) Reserve(ctx context.Context, from common.Address, nonce [32]byte, value, balance *big.Int, atBlock uint64) (bool, error) {
	return e.ReserveScheme(ctx, "", from, nonce, value, balance, atBlock)
}

// ReserveScheme is Reserve for an authorization of a scheme (ClaimScheme).
func (e *Engine) ReserveScheme(ctx context.Context, scheme string, from common.Address, nonce [32]byte, value, balance *big.Int, atBlock uint64) (bool, error) {
	k := authKey{from, nonce, e.spaceOf(scheme)}
	if ok, err := e.reserveIn(ctx, k, value, balance, nil); ok || err != nil {
		return ok, err
	}
	var keys []authKey
	if e.shared != nil {
		ids, err := e.shared.Reservations(ctx, e.payerKey(from))
		if err != nil {
			return false, err
		}
		for _, id := range ids {
			if r, ok := recordIDAuthorization(id); ok && r.from == from {
				keys = append(keys, r)
			}
		}
	} else {
		keys = e.core.payers.keys(from)
	}
	exact, inBalance, err := e.balanceAt(ctx, from, keys, atBlock)
	if err != nil {
		return false, err
	}
	return e.reserveIn(ctx, k, value, exact, inBalance)
}

// Job is what to settle: a signed authorization, the transaction's
// calldata, the fees and the signer to send it from.
type Job struct {
	// Requested is the network string the seller sent, kept in the record.
	Requested string
	// Scheme is the payment scheme, kept in the record (Record.Scheme):
	// its Spent (Config.Spents) reads the authorization on chain. ""
	// is Config.Spent's.
	Scheme string
	// To is the contract the transaction calls (an x402 Permit2 proxy);
	// the zero address means the token.
	To common.Address
	// Via is kept in the record (Record.Via).
	Via string
	// Auth is the authorization and Signature its signature (65 bytes
	// from an EOA; any length from a smart-contract wallet).
	Auth      x402.Authorization
	Signature []byte
	// Calldata is the transferWithAuthorization call, or with Create the
	// creation code of a contract-creation transaction that makes it (an
	// ERC-6492 wallet deployed and its transfer, in one transaction).
	Calldata []byte
	// Create makes the transaction a contract creation (no recipient)
	// with Calldata as its code, rather than a call of the token.
	Create bool
	// Fees are the first transaction's gas parameters.
	Fees *Fees
	// Signer is the key to send from (PickSigner).
	Signer common.Address
	// Deadline, when set, is when the caller stops waiting: a job not yet
	// signed by then is refused, and its broadcast is cut there (a cut
	// broadcast may have been sent, and is followed as such).
	Deadline time.Time
	// PayerHeld says that the caller holds the payer (HoldPayer) for this
	// job: once it is submitted, the engine gives the hold back with the
	// outcome.
	PayerHeld bool
	// Trace is the caller's settle span, carried to the send loop and the
	// watcher, whose spans are its children (trace.go); zero: none.
	Trace paytrace.Carried
}

// NotSentError is Submit's error: the settlement was not broadcast, and
// never will be.
type NotSentError struct {
	Err error
	// NoGas is true when the signer cannot pay the gas.
	NoGas bool
}

func (e *NotSentError) Error() string { return e.Err.Error() }
func (e *NotSentError) Unwrap() error { return e.Err }

// Ticket follows a submitted settlement.
type Ticket struct {
	st      *settlement
	stopped <-chan struct{}
}

// Done is closed when the outcome is final and journaled.
func (t *Ticket) Done() <-chan struct{} { return t.st.done }

// Stopped is closed when the engine stops following the settlement before
// its outcome is known: the last engine of its journal, chain and token
// closed. The record stays pending in the journal. While another engine
// (a reload's) carries the settlement on, Stopped stays open.
func (t *Ticket) Stopped() <-chan struct{} { return t.stopped }

// Record is a copy of the settlement's record as it stands.
func (t *Ticket) Record() *store.Record { return t.st.snapshot() }

// TxHash is the newest transaction's hash.
func (t *Ticket) TxHash() common.Hash { return t.st.current().Hash() }

// Submit journals and broadcasts a held job from its signer and returns
// its ticket, or a *NotSentError when nothing was broadcast.
func (e *Engine) Submit(job *Job) (*Ticket, error) {
	s := e.signerByAddress(job.Signer)
	if s == nil {
		return nil, &NotSentError{Err: errors.New("unknown signer " + job.Signer.Hex())}
	}
	if e.cfg.Serial {
		s.serial.Lock()
	}
	st := newSettlement(e, job, s)
	st.deadline = job.Deadline
	st.sharedHold = e.shared != nil
	st.payerHold = job.PayerHeld
	if err := s.submit(st); err != nil {
		if st.serial {
			s.serial.Unlock()
		}
		return nil, err
	}
	e.core.watch.add(st)
	e.logger.Debug("settlement broadcast", zap.String("id", st.rec.ID), zap.String("tx", st.current().Hash().Hex()), zap.Uint64("tx_nonce", st.rec.TxNonce))
	return &Ticket{st: st, stopped: e.core.ctx.Done()}, nil
}
