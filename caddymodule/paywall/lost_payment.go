package paywall

import (
	"context"
	"encoding/hex"
	"errors"
	"math/big"
	"net/http"
	"strings"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"github.com/ethereum/go-ethereum/common"
	"go.uber.org/zap"

	"github.com/caddy-x402/caddy-x402/caddymodule/internal/httpx"
	"github.com/caddy-x402/caddy-x402/facilitator"
	"github.com/caddy-x402/caddy-x402/facilitator/store"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// A payment whose records were lost: a store that lost acknowledged
// writes (PostgreSQL with synchronous_commit=off, or a failover to an
// asynchronous replica, killed right after a settlement) can forget both
// the journal row and the redemption row of a payment that settled on
// chain. Its retry then finds no record here, and verify refuses it as
// "Authorization already used". Before refusing, the paywall asks the
// chain which transaction used the authorization and delivers the payment
// when it paid this route:
//
//   - the embedded facilitator's own signer keys sent that transaction,
//     and not for a caller of its HTTP routes, which its journal marks
//     (OwnSettlementByAuthorization): so the money moved through this
//     paywall, not through someone else's settlement of an authorization
//     anyone can copy from the chain, nor for a paywall elsewhere on the
//     same pay_to that delivered it;
//   - it moved the route's asset on the route's network from the payer to
//     the route's pay_to, at least the price of this request.
//
// It is then recorded paid for this route before the upstream runs, and
// delivered once: the request holds the authorization's claim (across
// instances with the shared store), so no other request resolves it
// meanwhile, and a later one finds the record (refused once delivered, as
// any other). The record is written only where there is none, with the
// authorization's fingerprint, as servePaid's are: should a record have
// appeared anyway, it is answered from, never overwritten. A payment that paid someone else, another pay_to, another
// asset or less than this request's price is refused as before, truly:
// its authorization is used. Two routes with the same terms cannot be told
// apart this way (an authorization does not name its resource): the buyer
// gets the route it retries at, once. A remote facilitator cannot say who
// sent a transaction, so with one the refusal stands.

// Texts of the answer when the chain cannot be asked about a lost payment.
const (
	textLostUnknown  = "this payment was used on chain and no record of it is kept here; the chain could not be asked which transaction used it, so nothing is served yet"
	retryLostUnknown = "send the same request again with the same payment header shortly: if the payment paid for this resource, you get it without paying again"
)

// ownLookup is an outcome lookup that answers only settlements its own
// facilitator made (the embedded one).
type ownLookup interface {
	ownByAuthorization(ctx context.Context, network, scheme, from, nonce string) (*x402.SettleResponse, error)
}

func (l localLookup) ownByAuthorization(ctx context.Context, network, scheme, from, nonce string) (*x402.SettleResponse, error) {
	return l.f.OwnSettlementByAuthorizationOf(ctx, network, scheme, from, nonce)
}

// lostPayment is what deliverLost needs of a request that servePaid found
// no record of, holding its claim.
type lostPayment struct {
	next    caddyhttp.Handler
	id      string
	payment *x402.Payment
	pid     *paymentID
}

// deliverLost answers a payment verify refused as "Authorization already
// used" while this paywall holds no record of it (see the top of this
// file): delivered when it paid this route, pending while its settlement
// waits for its block, 503 with Retry-After when the chain cannot be
// asked. It reports handled false when the refusal stands.
func (h *core) deliverLost(w http.ResponseWriter, r *http.Request, lp *lostPayment) (bool, error) {
	own, ok := h.outcomes.(ownLookup)
	if lp == nil || !ok {
		return false, nil
	}
	a, sl := &lp.payment.Authorization, h.pricing.saleOf(r)
	// The payment's scheme: a Permit2 payment with the nonce of an
	// EIP-3009 one (or the other way round) is another authorization,
	// never delivered against that one's settlement (noncespace.go).
	sr, err := own.ownByAuthorization(r.Context(), sl.network(), sl.scheme(), a.From.Hex(), "0x"+hex.EncodeToString(a.Nonce[:]))
	switch {
	case errors.Is(err, store.ErrNotFound), errors.Is(err, facilitator.ErrSettledElsewhere):
		h.logger.Debug("a payment used on chain, with no record here, was not settled by this facilitator; refused as used",
			zap.String("id", lp.id), zap.Error(err))
		return false, nil
	case err != nil:
		h.metrics.payment(h.pricing.saleOf(r), OutcomeFailed, "")
		h.logger.Error("a payment used on chain has no record here, and the chain could not be asked which transaction used it; the buyer may retry",
			zap.String("id", lp.id), zap.Error(err))
		return true, httpx.WriteRetryJSON(w, http.StatusServiceUnavailable, textLostUnknown, retryLostUnknown)
	case sr.Error == x402.ErrTextPending:
		return true, h.reply.pending(w, r, sr.TxHash)
	case !sr.Settled():
		return false, nil
	}
	if why := h.paidElsewhere(r, lp.payment, sr); why != "" {
		h.logger.Info("a payment used on chain, with no record here, did not pay this route; refused as used",
			zap.String("id", lp.id), zap.String("tx_hash", sr.TxHash), zap.String("why", why))
		return false, nil
	}
	rec := lp.pid.bindTo(&redemption{Route: h.routeKey(r), Authorization: authFingerprint(lp.payment), ValidBefore: a.ValidBefore.String()})
	rec.Receipt = h.signReceipt(r, sr, nil)
	setSettled(rec, redeemPaid, sr)
	switch created, err := h.redeem.Store().Create(lp.id, rec); {
	case err != nil:
		return true, h.reply.paidUnrecorded(w, r, sr.TxHash, err)
	case !created:
		// A record was written since resolve found none (not under this
		// request's claim: a claim lost): it says what the payment is,
		// never overwritten with "paid", which would deliver it again.
		h.logger.Error("a payment recovered from chain already has a record again; answered from that record",
			zap.String("id", lp.id), zap.String("tx_hash", sr.TxHash))
		return h.resumeEarlier(w, r, lp.next, lp.id, lp.payment, nil)
	}
	h.logger.Warn("delivering a payment settled on chain whose records were lost (did the store lose acknowledged writes? see synchronous_commit)",
		zap.String("id", lp.id), zap.String("tx_hash", sr.TxHash), zap.String("value", sr.Value))
	return true, h.deliver(w, r, lp.next, lp.id, rec)
}

// paidElsewhere says why a settlement did not pay this request's route,
// "" when it did: the payer, the route's network and asset, its pay_to,
// and at least this request's price.
func (h *core) paidElsewhere(r *http.Request, p *x402.Payment, sr *x402.SettleResponse) string {
	reqs := &h.pricing.saleOf(r).part().reqs
	switch {
	case !common.IsHexAddress(sr.From) || common.HexToAddress(sr.From) != p.Authorization.From:
		return "another payer: " + sr.From
	case h.pricing.canonNetwork(sr.Network) != h.pricing.canonNetwork(reqs.Network):
		return "another network: " + sr.Network
	case !common.IsHexAddress(sr.To) || !strings.EqualFold(common.HexToAddress(sr.To).Hex(), reqs.PayTo):
		return "another pay_to: " + sr.To
	}
	if h.app == nil || h.app.Facilitator() == nil {
		return "no embedded facilitator to name the network's token"
	}
	if info, ok := h.app.Facilitator().NetworkInfo(reqs.Network); !ok || !strings.EqualFold(info.Token.Hex(), reqs.Asset) {
		return "another asset than the route's " + reqs.Asset
	}
	paid, ok1 := new(big.Int).SetString(sr.Value, 10)
	price, ok2 := new(big.Int).SetString(reqs.MaxAmountRequired, 10)
	if !ok1 || !ok2 || paid.Cmp(price) < 0 {
		return "paid " + sr.Value + ", less than this request's price " + reqs.MaxAmountRequired
	}
	return ""
}
