package paywall

import (
	"encoding/base64"
	"encoding/json"
	"math/big"
	"net/http"
	"strconv"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"go.uber.org/zap"

	"github.com/caddy-x402/caddy-x402/facilitator/offerreceipt"
	"github.com/caddy-x402/caddy-x402/facilitator/store"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// The answers of a channel route (moved from channel.go so that the
// voucher hot path, channel_voucher.go, calls down to them: no file calls
// back into a file that calls it).

// channelStateJSON is a channel's state as the published server sends it
// (a struct: it is encoded on every paid request).
func channelStateJSON(c *store.Channel) channelStateWire {
	var at int64
	if !c.WithdrawRequestedAt.IsZero() {
		at = c.WithdrawRequestedAt.Unix()
	}
	return channelStateWire{ChannelID: c.ID, Balance: c.Balance.String(), TotalClaimed: c.Claimed.String(),
		WithdrawRequestedAt: at, RefundNonce: nonceString(c.RefundNonce), ChargedCumulativeAmount: c.Charged.String()}
}

// channelStateWire is the published server's channelState.
type channelStateWire struct {
	ChannelID               string `json:"channelId"`
	Balance                 string `json:"balance"`
	TotalClaimed            string `json:"totalClaimed"`
	WithdrawRequestedAt     int64  `json:"withdrawRequestedAt"`
	RefundNonce             string `json:"refundNonce"`
	ChargedCumulativeAmount string `json:"chargedCumulativeAmount"`
}

// setChannelResponse writes PAYMENT-RESPONSE of a charged request: the
// channel's state after the charge and chargedAmount (what this request
// cost), as the published server does; a deposit's names its transaction
// and, in amount, what it moved on chain (the deposit, as the facilitator's
// settle answers it), which extra.depositAmount names as such. A served
// request (cr, nil for one released) on a route with offer_receipt gets
// its signed receipt (receipt.go).
func (rt *chanRoute) setChannelResponse(w http.ResponseWriter, r *http.Request, c *store.Channel, price *big.Int, sr *x402.SettleResponse, cr *chanReceipt) {
	network := rt.pricing.saleOf(r).v2Network()
	var ext map[string]any
	if cr != nil {
		ext = receiptExtensions(rt.core.signChannelReceipt(r, c, price, sr, cr))
	}
	if sr == nil && ext == nil {
		// A voucher's answer, encoded on every paid request: no reflection.
		var js, out [768]byte
		v := base64.StdEncoding.AppendEncode(out[:0], appendVoucherResponse(js[:0], network, c, price))
		w.Header().Set(x402.HeaderPaymentResponseV2, string(v))
		return
	}
	if v, err := x402.EncodeBase64JSON(channelResponse(network, c, price, sr, ext)); err == nil {
		w.Header().Set(x402.HeaderPaymentResponseV2, v)
	}
}

// channelResponse is the PAYMENT-RESPONSE of a charged request (see
// setChannelResponse); ext are its extensions (nil: none).
func channelResponse(network string, c *store.Channel, price *big.Int, sr *x402.SettleResponse, ext map[string]any) x402.ReferenceSettleResponse {
	out := x402.ReferenceSettleResponse{Success: true, Network: network, Payer: c.Config.Payer,
		Extra: map[string]any{"channelState": channelStateJSON(c), "chargedAmount": price.String()}, Extensions: ext}
	if sr != nil {
		out.Transaction, out.Amount = sr.TxHash, sr.Value
		if sr.Value != "" {
			out.Extra["depositAmount"] = sr.Value
		}
	}
	return out
}

// appendVoucherResponse appends the JSON of channelResponse(network, c,
// price, nil, nil), byte for byte what encoding/json writes for it (the
// fields in its order, the extra's keys sorted), without reflection or
// maps: the answer of a voucher, on every paid request.
func appendVoucherResponse(b []byte, network string, c *store.Channel, price *big.Int) []byte {
	var at int64
	if !c.WithdrawRequestedAt.IsZero() {
		at = c.WithdrawRequestedAt.Unix()
	}
	b = append(b, `{"success":true,"transaction":"","network":`...)
	b = appendJSONString(b, network)
	b = appendJSONString(append(b, `,"payer":`...), c.Config.Payer)
	b = append(b, `,"extra":{"channelState":{"channelId":`...)
	b = appendJSONString(b, c.ID)
	b = append(c.Balance.Append(append(b, `,"balance":"`...), 10), `","totalClaimed":"`...)
	b = append(c.Claimed.Append(b, 10), `","withdrawRequestedAt":`...)
	b = append(strconv.AppendInt(b, at, 10), `,"refundNonce":"`...)
	if c.RefundNonce == nil {
		b = append(b, '0')
	} else {
		b = c.RefundNonce.Append(b, 10)
	}
	b = append(c.Charged.Append(append(b, `","chargedCumulativeAmount":"`...), 10), `"},"chargedAmount":"`...)
	return append(price.Append(b, 10), `"}}`...)
}

// channelRefused answers a refused channel payment: 402 with the reason.
func (rt *chanRoute) channelRefused(w http.ResponseWriter, r *http.Request, reason string) error {
	rt.metrics.payment(rt.pricing.saleOf(r), OutcomeRefused, reason)
	return rt.reply.paymentRequired(w, r, "", reason)
}

// correctiveChannel is the published server's corrective 402: the
// voucher was not signed from the channel's charged amount, so the
// option's extra carries channelState and, when disclose says so (only
// to the channel's payer: chanOption.discloses), voucherState (the last
// charged voucher) for the client to sign again from. A channel with no
// voucher in the store (known from the chain only), or a request not
// proven to be the payer's, gets no voucherState: the published client
// then resynchronises from the chain (an empty signature would make it
// throw), and a stranger learns nothing it could sign a refund with.
func (rt *chanRoute) correctiveChannel(w http.ResponseWriter, r *http.Request, c *store.Channel, disclose bool) error {
	sl := rt.pricing.saleOf(r)
	rt.metrics.payment(sl, OutcomeRefused, reasonCumulativeMismatch)
	traceRefused(r, reasonCumulativeMismatch) // trace.go
	accepts := sl.offer.accepts()
	part := &accepts[sl.opt]
	extra := map[string]any{}
	for k, v := range part.Extra {
		extra[k] = v
	}
	extra["channelState"] = channelStateJSON(c)
	if disclose && c.VoucherMax != nil {
		extra["voucherState"] = map[string]any{"signedMaxClaimable": c.VoucherMax.String(), "signature": hexutil.Encode(c.VoucherSignature)}
	}
	part.Extra = extra
	pr := x402.PaymentRequiredV2{X402Version: x402.Version2, Error: reasonCumulativeMismatch,
		Resource: &x402.ResourceInfo{URL: resourceURL(r), Description: rt.description, MimeType: rt.mimeType}, Accepts: accepts}
	if rc := rt.reply.receipts; rc != nil {
		// Signed offers, as the route's other 402s carry (receipt.go).
		if ext := rc.offersExtension(r, pr.Resource.URL, v2Terms(accepts)); ext != nil {
			pr.Extensions = map[string]any{offerreceipt.Name: ext}
		}
	}
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

// channelStoreFailed answers a store that failed mid-way: 503. A deposit
// that was settled stays in the buyer's channel (the chain holds it): the
// buyer's next voucher resynchronises.
func (rt *chanRoute) channelStoreFailed(w http.ResponseWriter, r *http.Request, err error, sr *x402.SettleResponse) error {
	if sr != nil {
		rt.logger.Error("a deposit was settled but its channel could not be charged; the deposit stays in the buyer's channel",
			zap.String("tx_hash", sr.TxHash), zap.Error(err))
	}
	return rt.reply.storeUnavailable(w, r, err)
}
