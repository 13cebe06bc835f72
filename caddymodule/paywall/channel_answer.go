package paywall

import (
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/caddy-x402/caddy-x402/facilitator/store"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// channelRefused answers a refused channel payment: 402 with the reason.
func (h *Handler) channelRefused(w http.ResponseWriter, r *http.Request, reason string) error {
	h.metrics.payment(h.pricing.saleOf(r), OutcomeRefused, reason)
	return h.paymentRequired(w, r, "", reason)
}

// correctiveChannel is the published server's corrective 402: the
// voucher was not signed from the channel's charged amount, so the
// option's extra carries channelState and voucherState (the last charged
// voucher) for the client to sign again from. A channel with no voucher
// in the store (known from the chain only) has no voucherState, as with
// the published server: its client then resynchronises from the chain (an
// empty signature would make it throw).
func (h *Handler) correctiveChannel(w http.ResponseWriter, r *http.Request, c *store.Channel) error {
	sl := h.pricing.saleOf(r)
	h.metrics.payment(sl, OutcomeRefused, reasonCumulativeMismatch)
	accepts := sl.offer.accepts()
	part := &accepts[sl.opt]
	extra := map[string]any{}
	for k, v := range part.Extra {
		extra[k] = v
	}
	extra["channelState"] = channelStateJSON(c)
	if c.VoucherMax != nil {
		extra["voucherState"] = map[string]any{"signedMaxClaimable": c.VoucherMax.String(), "signature": hexutil.Encode(c.VoucherSignature)}
	}
	part.Extra = extra
	pr := x402.PaymentRequiredV2{X402Version: x402.Version2, Error: reasonCumulativeMismatch,
		Resource: &x402.ResourceInfo{URL: resourceURL(r), Description: h.Description, MimeType: h.MimeType}, Accepts: accepts}
	body, err := json.Marshal(pr)
	if err != nil {
		return err
	}
	v, err := x402.EncodeBase64JSON(pr)
	if err != nil {
		return err
	}
	hdr := w.Header()
	hdr.Set(x402.HeaderPaymentRequired, v)
	hdr["Content-Type"] = jsonContentType
	hdr["Cache-Control"] = noStore
	hdr["Content-Length"] = []string{strconv.Itoa(len(body))}
	w.WriteHeader(http.StatusPaymentRequired)
	_, err = w.Write(body)
	return err
}
