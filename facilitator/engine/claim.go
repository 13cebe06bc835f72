package engine

import (
	"context"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/caddy-x402/caddy-x402/facilitator/store"
)

// payerHoldNonce is the authorization nonce under which a payer's one
// settlement in flight is held (HoldPayer): a hold like an
// authorization's, in this process and in the shared journal, so that it
// holds across instances and goes with a dead instance's lease. A buyer
// who signs an authorization with this very nonce can only delay its own
// payments.
var payerHoldNonce = [32]byte(crypto.Keccak256([]byte("caddy-x402: one settlement in flight per payer")))

// HoldPayer holds the payer for one settlement: false when another
// settlement of the payer holds it (in this process or, with a shared
// journal, at another instance). An error means the shared journal could
// not be asked; nothing is held then. A payer held for a Job that is
// submitted (Job.PayerHeld) is given back with the settlement's outcome
// (for a revert, by Revert.Release); otherwise the caller gives it back
// with ReleasePayer.
func (e *Engine) HoldPayer(ctx context.Context, from common.Address) (bool, error) {
	return e.Claim(ctx, from, payerHoldNonce)
}

// ReleasePayer gives back a payer held with HoldPayer whose settlement
// was not submitted.
func (e *Engine) ReleasePayer(from common.Address) {
	e.Release(from, payerHoldNonce)
}

// Claim reserves an authorization (from, nonce) for a settle; false means
// another settle holds it: of this process, or with a shared journal, of
// another instance (which may also be following a pending settlement of
// it). An error means that the shared journal could not be asked; nothing
// is held then. The engine releases the hold when the outcome is final; a
// caller that does not Submit after Claim must Release.
func (e *Engine) Claim(ctx context.Context, from common.Address, nonce [32]byte) (bool, error) {
	return e.ClaimScheme(ctx, "", from, nonce)
}

// ClaimScheme is Claim for an authorization of a scheme (its nonce space:
// a Permit2 nonce is held apart from the same EIP-3009 nonce).
func (e *Engine) ClaimScheme(ctx context.Context, scheme string, from common.Address, nonce [32]byte) (bool, error) {
	k := authKey{from, nonce, e.spaceOf(scheme)}
	if !e.core.settling.acquire(k) {
		return false, nil
	}
	if e.shared == nil {
		return true, nil
	}
	ok, err := e.shared.HoldSettlement(ctx, RecordIDIn(e.cfg.Network, k.space, from, nonce))
	if !ok || err != nil {
		e.core.settling.release(k)
	}
	return ok, err
}

// Release gives back a claim taken with Claim that was not submitted, and
// its reservation (Reserve): nothing moved.
func (e *Engine) Release(from common.Address, nonce [32]byte) {
	e.ReleaseScheme("", from, nonce)
}

// ReleaseScheme is Release for an authorization of a scheme (ClaimScheme).
func (e *Engine) ReleaseScheme(scheme string, from common.Address, nonce [32]byte) {
	k := authKey{from, nonce, e.spaceOf(scheme)}
	if e.shared != nil {
		e.shared.ReleaseSettlements(store.Release{ID: RecordIDIn(e.cfg.Network, k.space, from, nonce)})
	}
	e.core.payers.release(k, false, e.now())
	e.core.settling.release(k)
}

// release gives back the holds and reservations of finished settlements:
// in the shared journal, in one round trip, those taken there, then in
// this process. A settled one keeps its reservation as spent at its block
// (reserve.go).
func (e *Engine) release(sts []*settlement) {
	if e.shared != nil {
		e.shared.ReleaseSettlements(e.sharedReleases(sts)...)
	}
	e.releaseHere(sts)
}

// sharedReleases are the holds of sts taken in the shared journal, to give
// back there.
func (e *Engine) sharedReleases(sts []*settlement) []store.Release {
	var rels []store.Release
	for _, st := range sts {
		if st.sharedHold {
			rels = append(rels, store.Release{ID: st.rec.ID, MinedAt: st.movedAt()})
		}
	}
	return rels
}

// releaseHere gives back the holds and reservations of finished
// settlements in this process (release, once the shared journal's are).
func (e *Engine) releaseHere(sts []*settlement) {
	now := e.now()
	for _, st := range sts {
		e.core.payers.release(st.key, st.movedAt() != 0, now)
		e.core.settling.release(st.key)
		if st.payerHold && st.revert == nil {
			// A revert hands the payer's hold to its Revert (revert.go).
			e.ReleasePayer(st.key.from)
		}
	}
}
