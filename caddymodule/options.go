package caddymodule

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"go.uber.org/zap"

	"github.com/caddy-x402/caddy-x402/facilitator"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// The ways to pay a route and the price of a request.
//
// A route lists one payment option per network, in the seller's order
// (network a b c): each with its own token, EIP-712 domain and amount (the
// route's price in that token's decimals, or amount as given). The 402
// lists them all in the v1 body's accepts and the v2 PAYMENT-REQUIRED's
// accepts (the Cronos-shaped paymentRequirements is the first); a payment
// is verified and settled against the option of the network it names.
//
// The price (price or amount) may hold Caddy placeholders ({vars.price},
// a map's output, a header an earlier handler set); it is then resolved
// for every request: the 402 states that request's price and a payment is
// checked against the price resolved for the request that carries it. A
// placeholder that does not resolve to a valid price is answered 500 and
// logged: never a free pass, never a charge.

// payOption is one way to pay a route: a network with its token. Its
// requirements have no amount while the price is resolved per request.
type payOption struct {
	reqs          facilitator.PaymentRequirements
	caip2         string // the v2 network id; "" when the chain id is unknown (v1 only)
	decimals      uint8
	decimalsKnown bool
	chainID       int64
	canon         string // the network's name as canonNetwork gives it
}

// offer is the payment options of one price: what a 402 lists, and what
// a payment is checked against.
type offer struct {
	parts []offerPart
	value string // the price as resolved from its placeholders ("" when fixed)
}

// offerPart is one option of an offer with its amount.
type offerPart struct {
	reqs facilitator.PaymentRequirements
	v2   *x402.RequirementsV2 // nil when the chain id is unknown (v1 only)
	// head and tail are the requirements' JSON around the resource URL,
	// the only part of it that changes between requests.
	head, tail []byte
}

const resourceMarker = "\x00x402-resource\x00"

// newOfferPart prices an option and splits its JSON around the resource.
func newOfferPart(o *payOption, amount string) (offerPart, error) {
	p := offerPart{reqs: o.reqs}
	p.reqs.MaxAmountRequired = amount
	if o.caip2 != "" {
		v2 := p.reqs.V2(o.caip2)
		p.v2 = &v2
	}
	r := p.reqs
	r.Resource = resourceMarker
	b, err := json.Marshal(r)
	if err != nil {
		return offerPart{}, err
	}
	marker, _ := json.Marshal(resourceMarker)
	if bytes.Count(b, marker) != 1 {
		return offerPart{}, errors.New("x402: description or mime_type must not contain NUL characters")
	}
	i := bytes.Index(b, marker)
	p.head, p.tail = b[:i], b[i+len(marker):]
	return p, nil
}

// appendReqs appends the part's requirements for a resource URL.
func (p *offerPart) appendReqs(b []byte, resource string) []byte {
	b = append(b, p.head...)
	b = appendJSONString(b, resource)
	return append(b, p.tail...)
}

// build is the v1 402 body: the error, the first option as the Cronos
// paymentRequirements and every option in accepts.
func (o *offer) build(errText, invalid, resource string) []byte {
	if invalid != "" {
		errText = invalid
	}
	n := 2*len(errText) + 128
	for i := range o.parts {
		n += len(o.parts[i].head) + len(o.parts[i].tail) + len(resource) + 2
	}
	n += len(o.parts[0].head) + len(o.parts[0].tail) + len(resource)
	b := make([]byte, 0, n)
	b = append(b, `{"error":`...)
	b = appendJSONString(b, errText)
	if invalid != "" {
		b = append(b, `,"invalidReason":`...)
		b = appendJSONString(b, invalid)
	}
	b = append(b, `,"x402Version":1,"paymentRequirements":`...)
	b = o.parts[0].appendReqs(b, resource)
	b = append(b, `,"accepts":[`...)
	for i := range o.parts {
		if i > 0 {
			b = append(b, ',')
		}
		b = o.parts[i].appendReqs(b, resource)
	}
	b = append(b, "]}\n"...)
	return b
}

// accepts is the offer's v2 accepts: the options whose chain id is known.
func (o *offer) accepts() []x402.RequirementsV2 {
	out := make([]x402.RequirementsV2, 0, len(o.parts))
	for i := range o.parts {
		if o.parts[i].v2 != nil {
			out = append(out, *o.parts[i].v2)
		}
	}
	return out
}

// hasPlaceholder reports whether a price holds a Caddy placeholder, to be
// resolved per request.
func hasPlaceholder(s string) bool {
	i := strings.IndexByte(s, '{')
	return i >= 0 && strings.IndexByte(s[i:], '}') > 0
}

// priceExpr is the route's price as configured: price or amount.
func (h *Handler) priceExpr() string {
	if h.Price != "" {
		return h.Price
	}
	return h.Amount
}

// perRequest reports whether the route's price is resolved per request.
func (h *Handler) perRequest() bool { return hasPlaceholder(h.priceExpr()) }

// priceOffer builds the offer of a price (price in whole tokens or amount
// in smallest units, as the route is configured).
func (h *Handler) priceOffer(value string) (*offer, error) {
	o := &offer{parts: make([]offerPart, len(h.options))}
	for i := range h.options {
		opt := &h.options[i]
		var v *big.Int
		var err error
		if h.Price != "" {
			v, err = facilitator.ParsePrice(value, opt.decimals)
		} else {
			v, err = facilitator.ParseAmount(value)
			if err != nil {
				err = fmt.Errorf("amount %q: %w", value, err)
			}
		}
		if err != nil {
			if len(h.options) > 1 && h.Price != "" {
				err = fmt.Errorf("%w (network %s)", err, opt.reqs.Network)
			}
			return nil, err
		}
		if o.parts[i], err = newOfferPart(opt, v.String()); err != nil {
			return nil, err
		}
	}
	return o, nil
}

// maxOfferCache bounds the offers of per-request prices kept built, by
// resolved price; when full it starts afresh.
const maxOfferCache = 256

// offerCache keeps the offers of the prices a per-request route resolved
// to, so that the requirements' JSON is built once per price.
type offerCache struct {
	mu sync.Mutex
	m  map[string]*offer
}

// priceError is a per-request price that did not resolve to a valid
// price: the seller's configuration, answered 500.
type priceError struct {
	expr, value string
	err         error
}

// maxPriceEcho bounds how much of a resolved price an error repeats (in
// the log, and to handle_errors): it may come from a header.
const maxPriceEcho = 128

func newPriceError(expr, value string, err error) *priceError {
	if len(value) > maxPriceEcho {
		value = x402.Clip(value, maxPriceEcho)
		err = errors.New(x402.Clip(err.Error(), 2*maxPriceEcho))
	}
	return &priceError{expr: expr, value: value, err: err}
}

func (e *priceError) Error() string {
	return fmt.Sprintf("x402: the route's price %q resolved to %q for this request, which is not a valid price: %v", e.expr, e.value, e.err)
}

func (e *priceError) Unwrap() error { return e.err }

// offerFor is the request's offer: the route's own when its price is
// fixed, else the one of the price resolved for this request.
func (h *Handler) offerFor(r *http.Request) (*offer, error) {
	if h.static != nil {
		return h.static, nil
	}
	expr := h.priceExpr()
	repl, _ := r.Context().Value(caddy.ReplacerCtxKey).(*caddy.Replacer)
	if repl == nil {
		repl = caddy.NewReplacer()
	}
	value, err := repl.ReplaceOrErr(expr, true, true)
	if err != nil {
		return nil, newPriceError(expr, repl.ReplaceAll(expr, ""), err)
	}
	value = strings.TrimSpace(value)
	c := h.dynamic
	c.mu.Lock()
	o, ok := c.m[value]
	c.mu.Unlock()
	if ok {
		return o, nil
	}
	o, err = h.priceOffer(value)
	if err != nil {
		return nil, newPriceError(expr, value, err)
	}
	o.value = value
	c.mu.Lock()
	if len(c.m) >= maxOfferCache {
		c.m = map[string]*offer{}
	}
	c.m[value] = o
	c.mu.Unlock()
	return o, nil
}

// priceFailed answers a request whose price did not resolve: 500 (the
// seller's configuration is at fault), logged with the route and the
// value. Nothing was verified or settled, and the next handler did not run.
func (h *Handler) priceFailed(err error) error {
	var pe *priceError
	value, expr := "", h.priceExpr()
	if errors.As(err, &pe) {
		value = pe.value
	}
	h.logger.Error("the route's price did not resolve to a valid price for this request; answering 500, nothing charged: fix the placeholder or what sets it",
		zap.String("route", h.routeLabel), zap.String("price", expr), zap.String("value", value), zap.Error(err))
	return caddyhttp.Error(http.StatusInternalServerError, err)
}

// sale is what one request is sold for: its offer, and the option a
// payment chose (the first until one is chosen).
type sale struct {
	offer *offer
	opt   int
}

type saleCtxKey struct{}

// withSale attaches a request's sale to it.
func withSale(r *http.Request, s *sale) *http.Request {
	return r.WithContext(context.WithValue(r.Context(), saleCtxKey{}, s))
}

// saleOf is the request's sale: the one ServeHTTP attached, else the
// route's fixed offer with its first option.
func (h *Handler) saleOf(r *http.Request) *sale {
	if r != nil {
		if s, ok := r.Context().Value(saleCtxKey{}).(*sale); ok {
			return s
		}
	}
	return &sale{offer: h.static}
}

// part is the chosen option with its amount.
func (s *sale) part() *offerPart { return &s.offer.parts[s.opt] }

// network is the chosen option's network name (the v1 one).
func (s *sale) network() string { return s.part().reqs.Network }

// v2Network is the chosen option's CAIP-2 id, "" when unknown.
func (s *sale) v2Network() string {
	if p := s.part(); p.v2 != nil {
		return p.v2.Network
	}
	return ""
}

// canonNetwork names a network the same way whatever name a buyer or the
// seller gives it: the x402 app's name for one it serves (so its aliases
// and CAIP-2 id match), else eip155:<chainId> for a name whose chain is
// known, else the name in lower case.
func (h *Handler) canonNetwork(name string) string {
	if h.app != nil && h.app.Facilitator() != nil {
		if info, ok := h.app.Facilitator().NetworkInfo(name); ok {
			return strings.ToLower(info.Name)
		}
	}
	if id, ok := x402.ChainIDOf(name); ok {
		return x402.CAIP2(id)
	}
	return strings.ToLower(strings.TrimSpace(name))
}

// choose finds the option a payment is for: the one of the network it
// names, whose token it names when it names one. A network or asset the
// route does not list is refused with the spec's texts; the option given
// with a refused asset is its network's (for the metrics' network label),
// the first with a refused network.
func (h *Handler) choose(p *facilitator.Payment) (int, string) {
	canon := h.canonNetwork(p.Network)
	for i := range h.options {
		if h.options[i].canon != canon {
			continue
		}
		asset := h.options[i].reqs.Asset
		if p.Accepted != nil && !strings.EqualFold(strings.TrimSpace(p.Accepted.Asset), asset) {
			return i, x402.ReasonUnsupportedAsset(p.Accepted.Asset)
		}
		if p.Asset != "" && !strings.EqualFold(strings.TrimSpace(p.Asset), asset) {
			return i, x402.ReasonUnsupportedAsset(p.Asset)
		}
		return i, ""
	}
	return 0, x402.ReasonUnsupportedNetwork(p.Network)
}

// missingFromSupported lists the options whose network a remote
// facilitator's /supported does not list (scheme exact, by v1 name or
// CAIP-2 id): payments on them would be refused there.
func missingFromSupported(s *x402.SupportedResponse, opts []payOption) []string {
	var missing []string
	for i := range opts {
		o := &opts[i]
		found := false
		for _, k := range s.Kinds {
			if k.Scheme != "" && k.Scheme != facilitator.SchemeExact {
				continue
			}
			if strings.EqualFold(k.Network, o.reqs.Network) || (o.caip2 != "" && strings.EqualFold(k.Network, o.caip2)) {
				found = true
				break
			}
		}
		if !found {
			missing = append(missing, o.reqs.Network)
		}
	}
	return missing
}

// checkRemoteNetworks reads a remote facilitator's /supported once, in
// the background (it may be down at start), and warns about the route's
// networks it does not list. It asks with a client of its own, so that a
// facilitator not up yet at start does not keep the route's client from
// learning its dialect at the first payment.
func (h *Handler) checkRemoteNetworks() {
	c, err := h.remoteClient()
	if err != nil {
		return
	}
	opts, logger := h.options, h.logger
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer cancel()
		s, err := c.Supported(ctx)
		if err != nil {
			logger.Warn("could not read the remote facilitator's /supported to check the route's networks", zap.Error(err))
			return
		}
		for _, n := range missingFromSupported(s, opts) {
			logger.Warn("the remote facilitator's /supported does not list this network of the route: payments on it will be refused there; remove it from network, or use a facilitator that supports it",
				zap.String("network", n), zap.String("facilitator", h.Facilitator))
		}
	}()
}
