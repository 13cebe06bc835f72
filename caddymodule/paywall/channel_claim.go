package paywall

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"go.uber.org/zap"

	"github.com/caddy-x402/caddy-x402/facilitator"
	"github.com/caddy-x402/caddy-x402/facilitator/store"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// Claim rounds: every claim_every (and at graceful stop), the channels
// charged beyond what is claimed on chain are claimed in one
// claimWithSignature transaction per network (up to maxClaimRows
// channels each), through the embedded facilitator's engine; then what
// is claimed is settled to the receivers.

// maxClaimRows bounds one claim transaction (about 10M gas at 400 rows).
const maxClaimRows = 400

// finalClaimTimeout bounds the claim round at graceful stop.
const finalClaimTimeout = 30 * time.Second

// claimEvery is the route's claim interval.
func (h *Handler) claimEvery() time.Duration {
	if h.ClaimEvery > 0 {
		return time.Duration(h.ClaimEvery)
	}
	return DefaultClaimEvery
}

// watchEvery is the time between two scans: claim_every, at most
// maxWatchEvery.
func (h *Handler) watchEvery() time.Duration { return min(h.claimEvery(), maxWatchEvery) }

// claimLoop runs, until the route is cleaned up, the withdraw watch
// (every watchEvery) and the claim rounds (every claim_every, and at once
// for a channel whose payer asked to withdraw), where this instance holds
// the claiming role; then one last round, and gives the roles up.
func (h *Handler) claimLoop(cr *chanRoute) {
	defer close(cr.done)
	every := h.watchEvery()
	t := time.NewTicker(every)
	defer t.Stop()
	last := time.Now()
	for {
		select {
		case <-cr.stop:
			ctx, cancel := context.WithTimeout(context.Background(), finalClaimTimeout)
			h.claimRound(ctx, true, true)
			h.resignClaims(ctx)
			cancel()
			return
		case <-t.C:
			due := time.Since(last) >= h.claimEvery()-every/2
			if due {
				last = time.Now()
			}
			ctx, cancel := context.WithTimeout(context.Background(), max(h.claimEvery(), maxWatchEvery))
			h.claimRound(ctx, due, false)
			cancel()
		}
	}
}

// claimRound, for each option whose claiming role this instance takes,
// watches for withdraw requests and claims when due (or when a payer of a
// charged channel asked to withdraw). final waits for this process's
// other round of a role and does not watch.
func (h *Handler) claimRound(ctx context.Context, due, final bool) {
	if due {
		defer h.readChannelStats(ctx)
	}
	for i := range h.pricing.options {
		done := h.takeClaims(ctx, i, final)
		if done == nil {
			continue
		}
		if !final && h.watchWithdraws(ctx, i) {
			due = true
		}
		if due {
			h.claimOption(ctx, i)
		}
		done()
	}
}

// stopChannels ends the claim loop after its last round, then lets go of
// the facilitator and store it held for that round.
func (h *Handler) stopChannels() error {
	if h.chans == nil || h.chans.stop == nil {
		return nil
	}
	close(h.chans.stop)
	<-h.chans.done
	h.chans.stop = nil
	return h.chans.release()
}

// claimRow is one row of a claim payload, as the published server sends it.
type claimRow struct {
	Voucher struct {
		Channel            store.ChannelConfig `json:"channel"`
		MaxClaimableAmount string              `json:"maxClaimableAmount"`
	} `json:"voucher"`
	Signature    hexutil.Bytes `json:"signature"`
	TotalClaimed string        `json:"totalClaimed"`
}

// claimOption claims option i's channels charged beyond their claim and
// settles the claimed funds. A failed round is simply run again: a claim
// is idempotent on chain (a row at or below the channel's claimed total
// pays nothing).
func (h *Handler) claimOption(ctx context.Context, i int) {
	opt := &h.pricing.options[i]
	co := &h.chans.opts[i]
	list, err := h.chans.store.ToClaim(ctx, opt.reqs.Network, maxClaimRows)
	if err != nil {
		h.logger.Warn("claim round: the channel store could not be read; the next round tries again", zap.Error(err))
		return
	}
	var rows []claimRow
	var ids []int
	for j, c := range list {
		// A route claims the channels paid to its pay_to (routes with
		// the same pay_to share them).
		if c.VoucherMax == nil || !strings.EqualFold(c.Config.ReceiverAuthorizer, co.authorizer.Hex()) ||
			!strings.EqualFold(c.Config.Token, co.token.Hex()) || !strings.EqualFold(c.Config.Receiver, co.payTo.Hex()) {
			continue
		}
		var row claimRow
		row.Voucher.Channel = c.Config
		row.Voucher.MaxClaimableAmount = c.VoucherMax.String()
		row.Signature, row.TotalClaimed = c.VoucherSignature, c.Charged.String()
		rows, ids = append(rows, row), append(ids, j)
	}
	if len(rows) == 0 {
		return
	}
	claimed, refused := h.claimRows(ctx, i, rows)
	if len(rows) > 1 && refused {
		// One bad row (a channel withdrawn below what it was charged)
		// reverts the whole claim: the rows go one by one.
		for k := range rows {
			if one, _ := h.claimRows(ctx, i, rows[k:k+1]); len(one) == 1 {
				claimed = append(claimed, k)
			}
		}
	}
	for _, k := range claimed {
		j := ids[k]
		if err := h.chans.store.MarkClaimed(ctx, list[j].ID, list[j].Charged); err != nil {
			h.logger.Warn("claim round: a claim could not be recorded; the next round claims it again (paying nothing twice)", zap.Error(err))
		}
	}
	if len(claimed) == 0 {
		return
	}
	h.logger.Info("claim round: claimed", zap.String("network", opt.reqs.Network), zap.Int("channels", len(claimed)))
	sr, err := h.channelOp(ctx, i, map[string]any{"type": "settle", "receiver": co.payTo.Hex(), "token": co.token.Hex()})
	switch {
	case err != nil:
		h.logger.Warn("claim round: the settle could not be sent; the next round settles", zap.Error(err))
	case !sr.Settled() && sr.Error != "invalid_batch_settlement_evm_nothing_to_settle":
		h.logger.Warn("claim round: the settle failed; the next round settles", zap.String("error", sr.Error))
	default:
		h.logger.Info("claim round: settled to pay_to", zap.String("pay_to", co.payTo.Hex()), zap.String("amount", sr.Value), zap.String("tx_hash", sr.TxHash))
	}
}

// claimRows claims rows in one transaction and returns the indexes of
// the rows now claimed on chain (all, or none); refused says the
// facilitator refused the claim (its simulation or transaction failed),
// rather than could not be asked.
func (h *Handler) claimRows(ctx context.Context, i int, rows []claimRow) (claimed []int, refused bool) {
	network := h.pricing.options[i].reqs.Network
	sr, err := h.channelOp(ctx, i, map[string]any{"type": "claim", "claims": rows})
	switch {
	case err != nil:
		countClaim(network, "failed")
		h.logger.Warn("claim round: the claim could not be sent; the next round tries again", zap.Int("channels", len(rows)), zap.Error(err))
		return nil, false
	case !sr.Settled() && sr.Error != "invalid_batch_settlement_evm_nothing_to_claim":
		h.logger.Warn("claim round: the claim failed; the next round tries again", zap.Int("channels", len(rows)),
			zap.String("error", sr.Error), zap.String("tx_hash", sr.TxHash))
		countClaim(network, "refused")
		return nil, sr.Error != facilitator.ErrTextPending
	}
	if sr.Settled() {
		countClaim(network, "claimed")
	}
	claimed = make([]int, len(rows))
	for k := range claimed {
		claimed[k] = k
	}
	return claimed, false
}

// channelOp settles a claim or settle payload on option i through the
// embedded facilitator.
func (h *Handler) channelOp(ctx context.Context, i int, payload map[string]any) (*facilitator.SettleResponse, error) {
	opt := &h.pricing.options[i]
	part, err := newOfferPart(opt, "0")
	if err != nil {
		return nil, err
	}
	raw, err := json.Marshal(payload)
	if err != nil {
		return nil, err
	}
	header, err := x402.EncodeBase64JSON(x402.PaymentPayloadV2{X402Version: x402.Version2, Accepted: *part.v2, Payload: raw})
	if err != nil {
		return nil, err
	}
	reqs := *part.v2
	return h.client.Settle(ctx, &facilitator.Request{X402Version: facilitator.X402Version, PaymentHeader: header,
		PaymentRequirements: part.reqs, Dialect: x402.DialectV2, RequirementsV2: &reqs})
}
