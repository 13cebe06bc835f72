package paywall

import (
	"context"
	"net/http"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/caddy-x402/caddy-x402/facilitator/store"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// An upto answer settled after it streams goes out before its money
// moves, and one cheap transaction of the payer (approve(Permit2, 0),
// moving its tokens away, invalidating its Permit2 nonce) makes every
// such settle of its fail. So what one payer can take unpaid is bounded:
//
//   - at most one settle-after answer per payer and network streams at a
//     time, across routes and, on a PostgreSQL store, across instances
//     (a claim row per payer, lost with the lease of an instance that
//     dies); the payer's other requests meanwhile are served settle
//     before: their answers are held until the charge is settled;
//   - a payer whose settle after was refused (its allowance, funds or
//     nonce gone while the answer streamed) is served settle before for
//     a cooling-off (uptoAfterCoolOff, doubling with each refusal up to
//     uptoAfterCoolOffMax), kept beside the redemption records.
//
// When the store cannot say, the answer is settled before: never more
// unpaid answers than the bound.

// The cooling-off of a payer whose settle after was refused.
const (
	uptoAfterCoolOff    = 15 * time.Minute
	uptoAfterCoolOffMax = 24 * time.Hour
)

// uptoAfterPrefix starts the claim and cooling-off keys of the bound.
const uptoAfterPrefix = "settle-after:"

// uptoAfterKey is a payer's key of the bound: network and payer, in lower
// case.
func uptoAfterKey(network string, payment *x402.Payment) string {
	return uptoAfterPrefix + strings.ToLower(network) + "/" + strings.ToLower(payment.Authorization.From.Hex())
}

// afterTurn is a payer's turn to be served settle after: held by one
// request, given back when its settle is done.
type afterTurn struct {
	u   *uptoSeller // its deliveries (the claim, the cooling-offs) and logger
	key string
	id  string // the authorization, counted once in a strike
}

// afterTurn decides whether an upto payment of a settle-after route
// is settled after its answer: it takes the payer's turn, unless the payer
// cools off or another request of the payer holds the turn (here or at
// another instance), in which case the answer is settled before (nil).
func (u *uptoSeller) afterTurn(r *http.Request, payment *x402.Payment, id string) *afterTurn {
	if !u.settleAfter {
		return nil
	}
	key := uptoAfterKey(u.pricing.saleOf(r).network(), payment)
	log := u.logger.With(zap.String("payer", payment.Authorization.From.Hex()), zap.String("id", id))
	switch c, err := u.redeem.CoolOffs().CoolingOff(r.Context(), []string{key}, time.Now()); {
	case err != nil:
		log.Warn("the cooling-offs could not be read; this upto answer is settled before it goes out (held), not after",
			zap.Error(err))
		return nil
	case c != nil:
		log.Info("this payer's settle after was refused recently; its upto answers are settled before they go out (held) until the cooling-off ends",
			zap.Time("until", c.Until), zap.Int("strikes", c.Strikes))
		return nil
	}
	switch held, err := u.redeem.Acquire(r.Context(), key); {
	case err != nil:
		log.Warn("the shared store could not say whether another answer of this payer is being settled after; this upto answer is settled before it goes out (held), not after",
			zap.Error(err))
		return nil
	case held != store.Claimed:
		log.Info("another upto answer of this payer streams unpaid (settle after) here or at another instance; this one is settled before it goes out (held)")
		return nil
	}
	return &afterTurn{u: u, key: key, id: id}
}

// end gives the turn back once the answer's settle is done, and starts
// the payer's cooling-off when the facilitator refused that settle
// (sr, nil when no settle was answered).
func (t *afterTurn) end(sr *x402.SettleResponse) {
	if t == nil {
		return
	}
	defer t.u.redeem.Release(t.key)
	if sr == nil || sr.Settled() || sr.Error == x402.ErrTextPending || sr.Error == x402.ReasonWalletBusy {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cs, err := t.u.redeem.CoolOffs().Strike(ctx, []string{t.key}, t.id, time.Now(), uptoAfterCoolOff, uptoAfterCoolOffMax)
	if err != nil {
		t.u.logger.Error("recording the cooling-off of a payer whose settle after was refused failed; its next upto answers may stream unpaid again",
			zap.String("key", t.key), zap.Error(err))
		return
	}
	t.u.logger.Warn("an upto answer went out and its settle was refused; the payer's upto answers are settled before they go out until the cooling-off ends",
		zap.String("key", t.key), zap.String("error", sr.Error), zap.Time("until", cs[0].Until), zap.Int("strikes", cs[0].Strikes))
}

// settledAfter is the facilitator's answer to the settle of an answer
// that streamed before it (settle after), nil when there was none.
func (mw *meterWriter) settledAfter() *x402.SettleResponse {
	mw.mu.Lock()
	defer mw.mu.Unlock()
	if !mw.after || mw.state != meterStreaming {
		return nil
	}
	return mw.settled
}
