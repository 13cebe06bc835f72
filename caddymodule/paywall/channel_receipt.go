package paywall

import (
	"math/big"
	"net/http"

	"github.com/caddy-x402/caddy-x402/facilitator"
	"github.com/caddy-x402/caddy-x402/facilitator/store"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// The receipt of a channel request and the channel state the published
// server shows (in PAYMENT-RESPONSE and the corrective 402): a leaf below
// channel.go and channel_meter.go (moved from channel.go, unchanged).

// channelStateJSON is a channel's state as the published server sends it.
func channelStateJSON(c *store.Channel) map[string]any {
	var at int64
	if !c.WithdrawRequestedAt.IsZero() {
		at = c.WithdrawRequestedAt.Unix()
	}
	return map[string]any{"channelId": c.ID, "balance": c.Balance.String(), "totalClaimed": c.Claimed.String(),
		"withdrawRequestedAt": at, "refundNonce": "0", "chargedCumulativeAmount": c.Charged.String()}
}

// setChannelResponse writes PAYMENT-RESPONSE of a charged request: the
// channel's state after the charge and chargedAmount, as the published
// server does; a deposit's names its transaction.
func (h *Handler) setChannelResponse(w http.ResponseWriter, r *http.Request, c *store.Channel, price *big.Int, sr *facilitator.SettleResponse) {
	out := x402.ReferenceSettleResponse{Success: true, Network: h.pricing.saleOf(r).v2Network(), Payer: c.Config.Payer,
		Extra: map[string]any{"channelState": channelStateJSON(c), "chargedAmount": price.String()}}
	if sr != nil {
		out.Transaction, out.Amount = sr.TxHash, sr.Value
	}
	if v, err := x402.EncodeBase64JSON(out); err == nil {
		w.Header().Set(x402.HeaderPaymentResponseV2, v)
	}
}
