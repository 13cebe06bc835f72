package paywall

import (
	"encoding/json"
	"errors"
	"math/big"
	"net/http"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/caddy-x402/caddy-x402/caddymodule/app"
	"github.com/caddy-x402/caddy-x402/facilitator/offerreceipt"
	"github.com/caddy-x402/caddy-x402/facilitator/store"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// Signed offers and receipts (the x402 offer-receipt extension, issue 34),
// on a route with offer_receipt: the 402 carries one signed offer per
// accepts entry (in the entry's own strings: the published matcher
// compares them), and a paid answer's settlement response a signed
// receipt of the payment, with what it charged (offerreceipt.Charge). The
// x402 app's first receipt key signs, under the DID of the request's host
// (or receipt_did), which /.well-known/did.json publishes.
//
// A receipt is signed once, when its payment is known to be paid, and
// kept in the payment's redemption record (store.Redemption.Receipt): the
// answer's PAYMENT-RESPONSE (or its trailer, or MCP's
// _meta["x402/payment-response"]) carries it from there, and so does the
// answer to the same payment id sent again (paymentid.go).

// receipts signs a route's offers and receipts; nil on a route without
// offer_receipt.
type receipts struct {
	format offerreceipt.Format
	noTx   bool     // receipt_transaction off
	app    *app.App // the receipt keys
	logger *zap.Logger
	offers offerMemo // the offers signed this second (offer_memo.go)
}

// newReceipts is the route's signer of offers and receipts, nil without
// offer_receipt.
func newReceipts(h *Handler) *receipts {
	f, ok := offerreceipt.ParseFormat(h.OfferReceipt)
	if !ok || !h.app.Receipts() {
		return nil
	}
	return &receipts{format: f, noTx: h.ReceiptNoTransaction, app: h.app, logger: h.logger}
}

// errNoReceiptKey refuses offer_receipt without a receipt key in the app.
var errNoReceiptKey = errors.New("x402: offer_receipt is set but the x402 app has no receipt key to sign offers and receipts with: " +
	"add receipt_key {env.NAME} to the x402 global option (a secp256k1 private key in hex; see docs/caddyfile.md)")

// checkReceiptKey refuses offer_receipt when the x402 app has no receipt
// key; before the app is known (the start of Provision) it checks nothing.
func (h *Handler) checkReceiptKey() error {
	if h.OfferReceipt == "" || h.core == nil || h.core.redeem == nil {
		return nil
	}
	if !h.app.Receipts() {
		return errNoReceiptKey
	}
	return nil
}

// key is the signing key under the DID of r's site.
func (rc *receipts) key(r *http.Request) *offerreceipt.Key {
	return rc.app.ReceiptKeyFor(r.Host)
}

// offerTerms is what an offer signs of one accepts entry, in its strings.
type offerTerms struct {
	scheme, network, asset, payTo, amount string
	maxTimeoutSeconds                     int64
}

// offersExtension is the 402's extensions["offer-receipt"]: one signed
// offer per accepts entry (terms), for resource, valid for the entry's
// maxTimeoutSeconds. Nil when nothing could be signed (logged).
func (rc *receipts) offersExtension(r *http.Request, resource string, terms []offerTerms) map[string]any {
	k, now := rc.key(r), time.Now().Unix()
	info := offerreceipt.OffersInfo{Offers: make([]offerreceipt.SignedOffer, 0, len(terms))}
	for i, t := range terms {
		so, err := rc.offers.sign(k, rc.format, i, offerreceipt.Offer{ResourceURL: resource, Scheme: t.scheme, Network: t.network,
			Asset: t.asset, PayTo: t.payTo, Amount: t.amount, ValidUntil: now + t.maxTimeoutSeconds}, now)
		if err != nil {
			rc.logger.Error("signing an offer failed; the 402 goes out without signed offers", zap.Error(err))
			return nil
		}
		info.Offers = append(info.Offers, so)
	}
	return map[string]any{"info": info}
}

// v2Terms are the terms of a version 2 402's accepts.
func v2Terms(accepts []x402.RequirementsV2) []offerTerms {
	out := make([]offerTerms, len(accepts))
	for i, a := range accepts {
		out[i] = offerTerms{scheme: a.Scheme, network: a.Network, asset: a.Asset, payTo: a.PayTo, amount: a.Amount, maxTimeoutSeconds: a.MaxTimeoutSeconds}
	}
	return out
}

// v1Terms are the terms of a version 1 402 body's accepts.
func (o *offer) v1Terms() []offerTerms {
	out := make([]offerTerms, len(o.parts))
	for i := range o.parts {
		q := &o.parts[i].reqs
		out[i] = offerTerms{scheme: q.Scheme, network: q.Network, asset: q.Asset, payTo: q.PayTo, amount: q.MaxAmountRequired, maxTimeoutSeconds: q.MaxTimeoutSeconds}
	}
	return out
}

// withOffers appends the signed offers of a version 1 402 body (its
// accepts) to the body, as its "extensions".
func (rc *receipts) withOffers(r *http.Request, body []byte, off *offer, resource string) []byte {
	ext := rc.offersExtension(r, resource, off.v1Terms())
	if ext == nil || len(body) < 3 {
		return body
	}
	b, err := json.Marshal(map[string]any{offerreceipt.Name: ext})
	if err != nil {
		return body
	}
	// body is {...}\n: the extensions go before its last brace.
	out := make([]byte, 0, len(body)+len(b)+16)
	out = append(out, body[:len(body)-2]...)
	out = append(out, `,"extensions":`...)
	out = append(out, b...)
	return append(out, "}\n"...)
}

// charged is what a receipt says was charged, beyond the sale's terms:
// the amount of a metered charge and the meter's reading.
type charged struct {
	amount string // "" for the price (exact)
	usage  string // the meter's reading, "" when not metered
}

// signReceipt is the receipt of a settled payment sold at r's sale, as the
// JSON of the extension's info (offerreceipt.ReceiptInfo); nil on a route
// without offer_receipt, for a payment not settled, or when signing fails
// (logged: the answer goes out without a receipt). c is what a metered
// charge charged (nil: the price).
func (h *core) signReceipt(r *http.Request, sr *x402.SettleResponse, c *charged) json.RawMessage {
	rc := h.receipts
	if rc == nil || !sr.Settled() {
		return nil
	}
	sl := h.pricing.saleOf(r)
	q := &sl.part().reqs
	network := sl.network()
	if h.reply.v2.on && r.Header.Get(x402.HeaderPaymentSignature) != "" {
		network = sl.v2Network() // as the version 2 offers and PAYMENT-RESPONSE name it
	}
	ch := &offerreceipt.Charge{Scheme: q.Scheme, Asset: q.Asset, PayTo: q.PayTo, Amount: q.MaxAmountRequired}
	if c != nil {
		ch.Amount, ch.MaxAmount, ch.Usage = c.amount, q.MaxAmountRequired, c.usage
	}
	rcpt := offerreceipt.Receipt{Network: network, ResourceURL: resourceURL(r), Payer: sr.From, IssuedAt: time.Now().Unix(), Charge: ch}
	if !rc.noTx {
		rcpt.Transaction = sr.TxHash
	}
	return rc.sign(r, rcpt)
}

// sign signs a receipt with the key of r's site, as the extension's info
// JSON; nil (logged) when it fails.
func (rc *receipts) sign(r *http.Request, rcpt offerreceipt.Receipt) json.RawMessage {
	info, err := rc.key(r).SignReceipt(rc.format, rcpt)
	if err == nil {
		var b []byte
		if b, err = json.Marshal(info); err == nil {
			return b
		}
	}
	rc.logger.Error("signing a receipt failed; the paid answer goes out without one", zap.String("resource", rcpt.ResourceURL), zap.Error(err))
	return nil
}

// receiptExtensions is a settlement response's extensions carrying a
// receipt (the info JSON), nil without one.
func receiptExtensions(receipt json.RawMessage) map[string]any {
	if len(receipt) == 0 {
		return nil
	}
	return map[string]any{offerreceipt.Name: map[string]any{"info": receipt}}
}

// meteredCharge is what an upto payment settled, as its settlement says,
// and the meter's reading its record kept: for a receipt signed when an
// earlier attempt's settle is found settled (resume.go). Nil for exact.
func (h *core) meteredCharge(sr *x402.SettleResponse, rec *redemption) *charged {
	if h.pricing.options[0].reqs.Scheme != x402.SchemeUpto {
		return nil
	}
	return &charged{amount: sr.Value, usage: rec.Usage}
}

// ratString writes a meter's reading: an integer as such, else a decimal
// without trailing zeros.
func ratString(v *big.Rat) string {
	if v.IsInt() {
		return v.Num().String()
	}
	s := strings.TrimRight(v.FloatString(18), "0")
	return strings.TrimSuffix(s, ".")
}

// chanReceipt is what a served channel request's receipt signs beyond
// its channel's state: the price its voucher reserved (the most it
// authorized) and the meter's reading.
type chanReceipt struct {
	max   *big.Int
	usage string
}

// signChannelReceipt is the receipt of a served channel request: the
// channel c after its charge, charged what it cost, deposit the settle of
// a deposit that came with it (nil for a voucher, which has no
// transaction). Nil on a route without offer_receipt.
func (h *core) signChannelReceipt(r *http.Request, c *store.Channel, charged *big.Int, deposit *x402.SettleResponse, cr *chanReceipt) json.RawMessage {
	rc := h.receipts
	if rc == nil {
		return nil
	}
	sl := h.pricing.saleOf(r)
	q := &sl.part().reqs
	ch := &offerreceipt.Charge{Scheme: q.Scheme, Asset: q.Asset, PayTo: q.PayTo, Amount: charged.String(),
		MaxAmount: cr.max.String(), Usage: cr.usage, Channel: c.ID, ChargedCumulative: c.Charged.String()}
	rcpt := offerreceipt.Receipt{Network: sl.v2Network(), ResourceURL: resourceURL(r), Payer: c.Config.Payer,
		IssuedAt: time.Now().Unix(), Charge: ch}
	if deposit != nil && !rc.noTx {
		rcpt.Transaction = deposit.TxHash
	}
	return rc.sign(r, rcpt)
}
