package paywall

import (
	"context"
	"encoding/json"

	"github.com/caddy-x402/caddy-x402/facilitator"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// channelOp settles a claim, settle or refund payload on option i
// through the embedded facilitator.
func (h *Handler) channelOp(ctx context.Context, i int, payload map[string]any) (*facilitator.SettleResponse, error) {
	req, err := h.channelRequest(i, payload)
	if err != nil {
		return nil, err
	}
	return h.client.Settle(ctx, req)
}

// channelRequest is the facilitator request of a payload on option i.
func (h *Handler) channelRequest(i int, payload map[string]any) (*facilitator.Request, error) {
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
	return &facilitator.Request{X402Version: facilitator.X402Version, PaymentHeader: header,
		PaymentRequirements: part.reqs, Dialect: x402.DialectV2, RequirementsV2: &reqs}, nil
}
