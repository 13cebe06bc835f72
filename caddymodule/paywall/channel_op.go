package paywall

import (
	"context"
	"encoding/json"
	"math/big"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"go.uber.org/zap"

	"github.com/caddy-x402/caddy-x402/facilitator/store"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// channelOp settles a claim, settle or refund payload on option i
// through the embedded facilitator.
func (rt *chanRoute) channelOp(ctx context.Context, i int, payload map[string]any) (*x402.SettleResponse, error) {
	req, err := rt.channelRequest(i, payload)
	if err != nil {
		return nil, err
	}
	return rt.client.Settle(ctx, req)
}

// channelRequest is the facilitator request of a payload on option i.
func (rt *chanRoute) channelRequest(i int, payload map[string]any) (*x402.Request, error) {
	opt := &rt.pricing.options[i]
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
	return &x402.Request{X402Version: x402.X402Version, PaymentHeader: header,
		PaymentRequirements: part.reqs, Dialect: x402.DialectV2, RequirementsV2: &reqs}, nil
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

// newClaimRow is the claim row of a channel's voucher (its config, the
// voucher's maxClaimableAmount and signature) for a claimed total.
func newClaimRow(cfg store.ChannelConfig, max *big.Int, sig []byte, total *big.Int) claimRow {
	var row claimRow
	row.Voucher.Channel, row.Voucher.MaxClaimableAmount = cfg, max.String()
	row.Signature, row.TotalClaimed = sig, total.String()
	return row
}

// reasonNothingToSettle is the facilitator's refusal of a settle with
// nothing claimed to move.
const reasonNothingToSettle = "invalid_batch_settlement_evm_nothing_to_settle"

// settleToPayTo settles to pay_to the funds claimed for option i's
// receiver and token (a claim leaves them in the settlement contract),
// logging as round; true when nothing is left to settle (settled, or
// there was nothing), false when the next round must try again.
func (rt *chanRoute) settleToPayTo(ctx context.Context, i int, round string) bool {
	co := &rt.opts[i]
	sr, err := rt.channelOp(ctx, i, map[string]any{"type": "settle", "receiver": co.payTo.Hex(), "token": co.token.Hex()})
	switch {
	case err != nil:
		rt.logger.Warn(round+": the settle could not be sent; the next round settles", zap.Error(err))
		return false
	case sr.Settled():
		rt.logger.Info(round+": settled to pay_to", zap.String("pay_to", co.payTo.Hex()), zap.String("amount", sr.Value), zap.String("tx_hash", sr.TxHash))
		return true
	case sr.Error == reasonNothingToSettle:
		return true
	default:
		rt.logger.Warn(round+": the settle failed; the next round settles", zap.String("error", sr.Error))
		return false
	}
}
