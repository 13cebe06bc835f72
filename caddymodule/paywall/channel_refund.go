package paywall

import (
	"context"
	"encoding/json"
	"errors"
	"math/big"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"go.uber.org/zap"

	"github.com/caddy-x402/caddy-x402/caddymodule/internal/httpx"
	"github.com/caddy-x402/caddy-x402/facilitator/store"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// Cooperative refunds: the unclaimed rest of a channel goes back to its
// payer in one transaction (the facilitator's enriched refund: the
// channel's charged vouchers claimed and refundWithSignature, in one
// multicall), when the buyer asks for it (a `refund` payload, as the
// published client's refund(url) sends it) or when the channel has been
// idle for refund_idle. The channel moves open -> refunding (nothing more
// is charged) -> closed; a partial refund the buyer asked for leaves it
// open. A refund carries the channel's refundNonce as last read from the
// chain, so a refund sent again pays nothing: the contract takes each
// nonce once.

// Reasons of a refund request, as the published server names them.
const (
	reasonRefundNoBalance     = "invalid_batch_settlement_evm_refund_no_balance"
	reasonRefundAmountInvalid = "invalid_batch_settlement_evm_refund_amount_invalid"
	reasonChannelNotFound     = "invalid_batch_settlement_evm_channel_not_found"
)

// maxRefundsPerRound bounds the refunds one round of a route attempts
// (one transaction each); the rest wait for the next round.
const maxRefundsPerRound = 50

// refundListLimit bounds the channels a round lists (the store's lists
// hold every route's channels, which the round then filters).
const refundListLimit = 2000

// closedRetention is how long a closed channel's record is kept after its
// last charge (a late voucher is then refused as closed, not re-read from
// the chain); then it is pruned.
const closedRetention = 7 * 24 * time.Hour

// pruneEvery is how often a route prunes closed channels.
const pruneEvery = time.Hour

// settleDue holds the (network, pay_to, token) of the options whose refunds
// claimed vouchers since their last settle: the next round settles them.
var settleDue sync.Map

// dueKey is an option's key in settleDue.
func (co *chanOption) dueKey(network string) string {
	return network + "|" + co.payTo.Hex() + "|" + co.token.Hex()
}

// settleRefunded settles to pay_to what refunds claimed (claimed funds
// stay in the contract until settled); a settle that fails stays due.
func (rt *chanRoute) settleRefunded(ctx context.Context) {
	for i := range rt.pricing.options {
		co, network := &rt.opts[i], rt.pricing.options[i].reqs.Network
		if _, due := settleDue.LoadAndDelete(co.dueKey(network)); !due {
			continue
		}
		if !rt.settleToPayTo(ctx, i, "refund round") {
			settleDue.Store(co.dueKey(network), true)
		}
	}
}

// refundsInFlight holds the ids of the channels this process is refunding
// right now, so that a retry round does not race the attempt it retries.
var refundsInFlight sync.Map

// parseRefundIdle reads `refund_idle <duration>|off`.
func (m *Metering) parseRefundIdle(d *caddyfile.Dispenser) error {
	v, err := httpx.OneArg(d)
	if err != nil {
		return err
	}
	if v == "off" {
		m.RefundIdle = 0
		return nil
	}
	dur, err := caddy.ParseDuration(v)
	if err != nil || dur < time.Second {
		return d.Errf("x402: refund_idle %q: want a duration of at least 1s, such as 24h, or off", v)
	}
	m.RefundIdle = caddy.Duration(dur)
	return nil
}

// refundRound retries the refunds under way and refunds the channels idle
// for refund_idle, where this instance claims (the claiming role); settles
// what this instance's refunds claimed; and prunes the closed channels
// now and then.
func (rt *chanRoute) refundRound(ctx context.Context) {
	cr := rt
	for i := range rt.pricing.options {
		if !cr.led[rt.claimRole(i)] {
			// Another route or instance claims this receiver's channels
			// (channel_lease.go): it retries and starts refunds too, so
			// that one refund is not sent from two places.
			continue
		}
		co, network := &cr.opts[i], rt.pricing.options[i].reqs.Network
		attempts := 0
		run := func(list []*store.Channel, err error, why string) {
			if err != nil {
				rt.logger.Warn("refund round: the channel store could not be read; the next round tries again", zap.Error(err))
				return
			}
			for _, c := range list {
				if co.owns(c, network) && ctx.Err() == nil && attempts < maxRefundsPerRound {
					attempts++
					rctx, sp := rt.traceRound(ctx, spanRefund, network) // trace.go
					sp.Set("x402.channel.refund.why", why)
					rt.refundChannel(rctx, i, c, nil, nil, why)
					sp.End()
				}
			}
		}
		list, err := cr.store.Refunding(ctx, refundListLimit)
		run(list, err, "retry")
		if rt.refundIdle > 0 {
			list, err := cr.store.Idle(ctx, time.Now().Add(-rt.refundIdle), refundListLimit)
			run(list, err, "idle")
		}
	}
	rt.settleRefunded(ctx)
	if time.Since(cr.pruned) >= pruneEvery {
		cr.pruned = time.Now()
		if n, err := cr.store.PruneChannels(ctx, time.Now().Add(-closedRetention)); err != nil {
			rt.logger.Warn("pruning closed payment channels failed; the next round tries again", zap.Error(err))
		} else if n > 0 {
			rt.logger.Info("pruned closed payment channels", zap.Int("channels", n))
		}
	}
}

// refundVoucher is a voucher the payer signed (its maxClaimableAmount and
// signature).
type refundVoucher struct {
	max *big.Int
	sig []byte
}

// refundResult is the outcome of one refund attempt.
type refundResult struct {
	// sr is the facilitator's answer to the refund, nil when none was sent.
	sr *x402.SettleResponse
	// rec is the channel after the attempt.
	rec *store.Channel
	// reason is why nothing was refunded ("" when refunded).
	reason string
	// err is a facilitator or store that could not be asked (nothing was
	// broadcast by this attempt).
	err error
}

// refundChannel refunds channel c of option i: amount (nil: all that is
// not charged) back to its payer, claiming its charged vouchers in the
// same transaction. v is a voucher the buyer just signed, used when the
// store holds none. Only one attempt per channel runs in this process at
// a time; a channel whose refund may have been broadcast stays refunding
// and the next round tries again (with the same refund nonce, unless the
// chain says it was used: then the refund happened).
func (rt *chanRoute) refundChannel(ctx context.Context, i int, c *store.Channel, amount *big.Int, v *refundVoucher, why string) refundResult {
	if _, busy := refundsInFlight.LoadOrStore(c.ID, true); busy {
		return refundResult{rec: c, reason: reasonChannelBusy}
	}
	defer refundsInFlight.Delete(c.ID)
	st := rt.store
	moved := false
	if c.State == store.ChannelOpen {
		var err error
		if moved, err = st.SetChannelState(ctx, c.ID, store.ChannelOpen, store.ChannelRefunding); err != nil {
			return refundResult{rec: c, err: err}
		}
	}
	rec, err := st.Channel(ctx, c.ID)
	if err != nil || rec == nil {
		if err == nil {
			err = store.ErrChannelNotFound
		}
		return refundResult{rec: c, err: err}
	}
	switch {
	case rec.State == store.ChannelClosed:
		return refundResult{rec: rec, reason: reasonRefundNoBalance}
	case rec.State != store.ChannelRefunding:
		return refundResult{rec: rec, reason: reasonChannelBusy} // moved back to open meanwhile
	case why == whyRequested && !moved:
		// Another instance (or an attempt that may have been broadcast)
		// is refunding it: a buyer's request sends nothing, so that one
		// refund is not sent twice; the refund round finishes it.
		return refundResult{rec: rec, reason: reasonChannelBusy}
	}
	log := rt.logger.With(zap.String("channel", rec.ID), zap.String("why", why))
	// back returns the channel to open when this attempt broadcast nothing
	// and it was this attempt that stopped its charges.
	back := func(res refundResult) refundResult {
		if moved {
			if _, err := st.SetChannelState(ctx, rec.ID, store.ChannelRefunding, store.ChannelOpen); err != nil {
				log.Warn("refund: the channel could not be reopened after a refund that sent nothing; the next round retries the refund", zap.Error(err))
			}
		}
		return res
	}
	if rec.VoucherMax != nil {
		v = &refundVoucher{max: rec.VoucherMax, sig: rec.VoucherSignature}
	}
	// The chain's reading first: its refund nonce (a refund sent before
	// and mined has advanced it) and what is left.
	if v != nil {
		cs, reason, err := rt.readChannel(ctx, i, rec, v)
		switch {
		case err != nil:
			log.Warn("refund: the channel could not be read from the chain; nothing was sent, the next round tries again", zap.Error(err))
			return back(refundResult{rec: rec, err: err})
		case reason == reasonChannelNotFound || reason == reasonExceedsBalance:
			// Nothing in the channel beyond what was charged (refunded or
			// withdrawn): the record takes no balance, and closes below.
			cs = &store.ChainState{Balance: new(big.Int), Claimed: rec.Claimed, Block: rec.Block, RefundNonce: rec.RefundNonce}
		case reason != "":
			log.Warn("refund: the chain reading refused the channel's voucher; the next round tries again", zap.String("reason", reason))
			return back(refundResult{rec: rec, reason: reason})
		}
		if rec, err = st.Sync(ctx, rec.ID, rec.Network, rec.Config, *cs); err != nil {
			return back(refundResult{rec: rec, err: err})
		}
	}
	rest := new(big.Int).Sub(rec.Balance, rec.Charged)
	if rest.Sign() <= 0 {
		// Nothing left to refund (refunded before, or withdrawn): closed.
		// What was charged and not claimed is claimed by the claim round.
		return rt.closeRefunded(ctx, rec, refundResult{rec: rec, reason: reasonRefundNoBalance}, log)
	}
	if amount == nil || amount.Cmp(rest) > 0 {
		amount = rest
	}
	payload := map[string]any{"type": "refund", "channelConfig": rec.Config, "amount": amount.String(),
		"refundNonce": nonceString(rec.RefundNonce), "claims": []claimRow{}}
	voucher := map[string]any{"channelId": rec.ID, "maxClaimableAmount": rec.Charged.String(), "signature": "0x"}
	if v != nil {
		voucher = map[string]any{"channelId": rec.ID, "maxClaimableAmount": v.max.String(), "signature": hexutil.Encode(v.sig)}
		if rec.Charged.Cmp(rec.Claimed) > 0 {
			payload["claims"] = []claimRow{newClaimRow(rec.Config, v.max, v.sig, rec.Charged)}
		}
	}
	payload["voucher"] = voucher
	sr, err := rt.channelOp(ctx, i, payload)
	switch {
	case err != nil:
		countRefund(rec.Network, "failed")
		log.Warn("refund: the facilitator could not send it; nothing was broadcast, the next round tries again", zap.Error(err))
		return back(refundResult{rec: rec, err: err})
	case sr.Settled():
		countRefund(rec.Network, "refunded")
		if len(payload["claims"].([]claimRow)) > 0 {
			settleDue.Store(rt.opts[i].dueKey(rec.Network), true)
		}
		cs := chainStateOf(channelStateOf(sr.Extra))
		if sr.BlockNumber != nil {
			cs.Block = *sr.BlockNumber
		}
		if after, err := st.Sync(ctx, rec.ID, rec.Network, rec.Config, cs); err == nil {
			rec = after
		} else {
			log.Error("refund: sent and mined, but the channel could not be recorded; it stays refunding and the next round reads the chain", zap.String("tx_hash", sr.TxHash), zap.Error(err))
			return refundResult{sr: sr, rec: rec}
		}
		log.Info("refund: refunded to the payer", zap.String("payer", rec.Config.Payer), zap.String("amount", sr.Value), zap.String("tx_hash", sr.TxHash))
		if rec.Balance.Cmp(rec.Charged) > 0 {
			// A partial refund: the channel goes on.
			if _, err := st.SetChannelState(ctx, rec.ID, store.ChannelRefunding, store.ChannelOpen); err != nil {
				log.Warn("refund: the channel could not be reopened after a partial refund", zap.Error(err))
			}
			rec.State = store.ChannelOpen
			return refundResult{sr: sr, rec: rec}
		}
		return rt.closeRefunded(ctx, rec, refundResult{sr: sr, rec: rec}, log)
	case sr.Error == reasonRefundNoBalance:
		return rt.closeRefunded(ctx, rec, refundResult{sr: sr, rec: rec, reason: reasonRefundNoBalance}, log)
	case sr.Error == x402.ErrTextPending || sr.Error == x402.ErrTextAlreadyUsed ||
		sr.Error == "invalid_batch_settlement_evm_refund_simulation_failed" || sr.Error == "invalid_batch_settlement_evm_refund_transaction_failed":
		// It may have been (or be about to be) mined: the channel stays
		// refunding, and the next round reads the chain's refund nonce.
		countRefund(rec.Network, "pending")
		log.Warn("refund: not confirmed; the channel stays refunding and the next round reads the chain and retries with the same refund nonce",
			zap.String("error", sr.Error), zap.String("tx_hash", sr.TxHash))
		return refundResult{sr: sr, rec: rec, reason: sr.Error}
	default:
		countRefund(rec.Network, "refused")
		log.Error("refund: refused by the facilitator; nothing was broadcast", zap.String("error", sr.Error))
		return back(refundResult{sr: sr, rec: rec, reason: sr.Error})
	}
}

// closeRefunded moves a refunded channel to closed.
func (rt *chanRoute) closeRefunded(ctx context.Context, rec *store.Channel, res refundResult, log *zap.Logger) refundResult {
	if _, err := rt.store.SetChannelState(ctx, rec.ID, store.ChannelRefunding, store.ChannelClosed); err != nil {
		log.Warn("refund: the channel could not be marked closed; the next round does", zap.Error(err))
		return res
	}
	rec.State = store.ChannelClosed
	res.rec = rec
	return res
}

// readChannel reads channel rec from the chain through the facilitator's
// verify of a refund payload with voucher v (it signs nothing): the
// chain's state, or the reason the facilitator refused the voucher.
func (rt *chanRoute) readChannel(ctx context.Context, i int, rec *store.Channel, v *refundVoucher) (*store.ChainState, string, error) {
	req, err := rt.channelRequest(i, map[string]any{"type": "refund", "channelConfig": rec.Config,
		"voucher": map[string]any{"channelId": rec.ID, "maxClaimableAmount": v.max.String(), "signature": hexutil.Encode(v.sig)}})
	if err != nil {
		return nil, "", err
	}
	vr, err := rt.client.Verify(ctx, req)
	if err != nil {
		return nil, "", err
	}
	if !vr.IsValid {
		return nil, vr.Reason(), nil
	}
	cs := chainStateOf(vr.Extra)
	cs.Block = rec.Block // a reading of now: newer than the record's
	return &cs, "", nil
}

// serveRefund serves a buyer's refund request (payload type refund, as the
// published client's refund(url) sends it): a voucher of the channel's
// charged amount (charging nothing), signed by the payer, and an optional
// amount. The unclaimed rest (or amount, if less) goes back to the payer
// in one transaction that also claims what was charged; the answer is 200
// with PAYMENT-RESPONSE (the refund's transaction and amount, the channel
// after it) and {"message":"Refund acknowledged","channelId":...}, as the
// published server answers. The upstream is not called.
func (rt *chanRoute) serveRefund(w http.ResponseWriter, r *http.Request, pl *channelPayload, co *chanOption, max *big.Int, header string) (err error) {
	sent := false // a refund transaction was sent (the unproven refund's slot stays taken)
	sl := rt.pricing.saleOf(r)
	var amount *big.Int
	if pl.Amount != nil {
		a, ok := new(big.Int).SetString(*pl.Amount, 10)
		if !ok || a.Sign() <= 0 || a.BitLen() > 128 || strings.TrimLeft(*pl.Amount, "0123456789") != "" {
			return rt.channelRefused(w, r, reasonRefundAmountInvalid)
		}
		amount = a
	}
	// A refund asks the chain (and may send a transaction): it counts
	// against the client's attempt limit.
	if ok, wait := rt.attempts.allow(httpx.ClientIP(r)); !ok {
		rt.metrics.payment(sl, OutcomeRateLimited, "")
		return tooManyAttempts(w, wait)
	}
	ctx := r.Context()
	id := pl.Voucher.ChannelID.Hex() // lower case
	rec, err := rt.store.Channel(ctx, id)
	if err != nil {
		return rt.reply.storeUnavailable(w, r, err)
	}
	if rec == nil {
		// A channel this store does not hold (its record pruned or lost):
		// the facilitator checks the voucher against the chain, and the
		// reading makes the record (charged = what the chain says claimed).
		req := rt.reply.v2Request(r, header, resourceURL(r))
		req.PaymentRequirements.Resource = resourceURL(r)
		vr, err := rt.client.Verify(ctx, req)
		if err != nil {
			return rt.reply.facilitatorFailed(w, "verified", err)
		}
		if !vr.IsValid {
			return rt.channelRefused(w, r, vr.Reason())
		}
		if rec, err = rt.store.Sync(ctx, id, sl.network(), storeConfig(pl.ChannelConfig), chainStateOf(vr.Extra)); err != nil {
			return rt.reply.storeUnavailable(w, r, err)
		}
	} else {
		if !co.voucherSigned(pl, max) {
			return rt.channelRefused(w, r, reasonVoucherSignature)
		}
	}
	if rec.State == store.ChannelClosed {
		return rt.channelRefused(w, r, reasonRefundNoBalance)
	}
	if max.Cmp(rec.Charged) != 0 {
		// A refund voucher charges nothing: it is of the charged amount.
		return rt.correctiveChannel(w, r, rec, co.discloses(pl, max, rec, proofUnchecked))
	}
	if !refundProven(rec, max) {
		// A voucher at the claimed total: anyone may have read it from a
		// claim's calldata (channel_refund_limit.go). Bounded: no partial
		// refund below refund_min, one refund per channel per window.
		if reason, text := co.unprovenRefundRefusal(rec, amount); reason != "" {
			rt.logger.Info("refund refused: below refund_min for a refund whose voucher is public on chain", zap.String("channel", id), zap.String("amount", amount.String()))
			rt.metrics.payment(sl, OutcomeRefused, reason)
			return rt.reply.paymentRequired(w, r, "", reason+text)
		}
		at := time.Now()
		ok, err := rt.store.TakeRefundSlot(ctx, id, at, rt.refundWindow)
		if err != nil {
			return rt.reply.storeUnavailable(w, r, err)
		}
		if !ok {
			rt.logger.Info("refund refused: one refund whose voucher is public on chain per channel per refund_window", zap.String("channel", id))
			rt.metrics.payment(sl, OutcomeRefused, reasonRefundTooSoon)
			return rt.reply.paymentRequired(w, r, "", reasonRefundTooSoon+textRefundTooSoon)
		}
		defer func() {
			if sent {
				return
			}
			// Nothing was sent: the slot goes back (the buyer may have hung up).
			uctx, cancel := detachedWrite(ctx)
			defer cancel()
			if err := rt.store.ReturnRefundSlot(uctx, id, at); err != nil {
				rt.logger.Warn("a refund that sent nothing could not give back its refund_window slot; the channel's next refund on a public voucher waits for the window", zap.String("channel", id), zap.Error(err))
			}
		}()
	}
	res := rt.refundChannel(ctx, sl.opt, rec, amount, &refundVoucher{max: max, sig: pl.Voucher.Signature}, whyRequested)
	sent = res.sr != nil && (res.sr.Settled() || res.sr.TxHash != "")
	switch {
	case res.err != nil && errors.Is(res.err, store.ErrUnavailable):
		return rt.reply.storeUnavailable(w, r, res.err)
	case res.err != nil:
		return rt.reply.facilitatorFailed(w, "refunded", res.err)
	case res.reason == reasonChannelBusy:
		return rt.channelRefused(w, r, reasonChannelBusy)
	case res.sr != nil && !res.sr.Settled():
		return rt.reply.settleRefused(w, r, res.sr)
	case res.reason != "":
		return rt.channelRefused(w, r, res.reason)
	}
	// A refund is no payment: x402_channel_refunds_total counts it.
	out := x402.ReferenceSettleResponse{Success: true, Network: sl.v2Network(), Payer: res.rec.Config.Payer,
		Transaction: res.sr.TxHash, Amount: res.sr.Value, Extra: map[string]any{"channelState": channelStateJSON(res.rec)}}
	if v, err := x402.EncodeBase64JSON(out); err == nil {
		w.Header().Set(x402.HeaderPaymentResponseV2, v)
	}
	body, _ := json.Marshal(map[string]string{"message": "Refund acknowledged", "channelId": id})
	hdr := w.Header()
	hdr["Content-Type"] = jsonContentType
	hdr["Cache-Control"] = noStore
	hdr["Content-Length"] = []string{strconv.Itoa(len(body))}
	w.WriteHeader(http.StatusOK)
	_, err = w.Write(body)
	return err
}
