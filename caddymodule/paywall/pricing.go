package paywall

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
	"go.uber.org/zap"

	"github.com/caddy-x402/caddy-x402/caddymodule/internal/httpx"
	"github.com/caddy-x402/caddy-x402/facilitator"
	x402network "github.com/caddy-x402/caddy-x402/facilitator/network"
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
	reqs          x402.PaymentRequirements
	caip2         string // the v2 network id; "" when the chain id is unknown (v1 only)
	decimals      uint8
	decimalsKnown bool
	chainID       int64
	canon         string // the network's name as canonNetwork gives it
	// extraV2 is added to the v2 requirements' extra (upto: the
	// facilitator's address and the Permit2 transfer method).
	extraV2 map[string]any
}

// offer is the payment options of one price: what a 402 lists, and what
// a payment is checked against.
type offer struct {
	parts []offerPart
	value string // the price as resolved from its placeholders ("" when fixed)
}

// offerPart is one option of an offer with its amount.
type offerPart struct {
	reqs x402.PaymentRequirements
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
		if len(o.extraV2) > 0 && v2.Extra == nil {
			v2.Extra = map[string]any{}
		}
		for k, v := range o.extraV2 {
			v2.Extra[k] = v
		}
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

// pricing is a route's payment options and what a request costs: the
// offer of its fixed price, or those of the prices resolved per request.
type pricing struct {
	// expr is the route's price as configured: price or amount.
	expr string
	// whole: expr is in whole tokens (price), else smallest units (amount).
	whole   bool
	options []payOption // one per network, in the seller's order
	static  *offer      // the offer of a fixed price; nil when priced per request
	dynamic *offerCache // the offers of per-request prices
	// fac is the x402 app's facilitator, which names networks; nil with a
	// remote facilitator and no app.
	fac *facilitator.Facilitator
}

// newPricing is the pricing of a route priced by price (whole tokens) or
// amount (smallest units), before its options are known.
func newPricing(price, amount string, fac *facilitator.Facilitator) pricing {
	if price != "" {
		return pricing{expr: price, whole: true, fac: fac}
	}
	return pricing{expr: amount, fac: fac}
}

// perRequest reports whether the route's price is resolved per request.
func (p *pricing) perRequest() bool { return httpx.HasPlaceholder(p.expr) }

// priceOffer builds the offer of a price (price in whole tokens or amount
// in smallest units, as the route is configured).
func (p *pricing) priceOffer(value string) (*offer, error) {
	o := &offer{parts: make([]offerPart, len(p.options))}
	for i := range p.options {
		opt := &p.options[i]
		var v *big.Int
		var err error
		if p.whole {
			v, err = x402.ParsePrice(value, opt.decimals)
		} else {
			v, err = x402.ParseAmount(value)
			if err != nil {
				err = fmt.Errorf("amount %q: %w", value, err)
			}
		}
		if err != nil {
			if len(p.options) > 1 && p.whole {
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
func (p *pricing) offerFor(r *http.Request) (*offer, error) {
	if p.static != nil {
		return p.static, nil
	}
	expr := p.expr
	repl, _ := r.Context().Value(caddy.ReplacerCtxKey).(*caddy.Replacer)
	if repl == nil {
		repl = caddy.NewReplacer()
	}
	value, err := repl.ReplaceOrErr(expr, true, true)
	if err != nil {
		return nil, newPriceError(expr, repl.ReplaceAll(expr, ""), err)
	}
	value = strings.TrimSpace(value)
	c := p.dynamic
	c.mu.Lock()
	o, ok := c.m[value]
	c.mu.Unlock()
	if ok {
		return o, nil
	}
	o, err = p.priceOffer(value)
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

// sale is what one request is sold for: its offer, the option a
// payment chose (the first until one is chosen), and the facilitator
// scheme of the payment's authorization (authScheme; "" before one is
// parsed).
type sale struct {
	offer      *offer
	opt        int
	authScheme string
}

type saleCtxKey struct{}

// withSale attaches a request's sale to it.
func withSale(r *http.Request, s *sale) *http.Request {
	return r.WithContext(context.WithValue(r.Context(), saleCtxKey{}, s))
}

// saleOf is the request's sale: the one ServeHTTP attached, else the
// route's fixed offer with its first option.
func (p *pricing) saleOf(r *http.Request) *sale {
	if r != nil {
		if s, ok := r.Context().Value(saleCtxKey{}).(*sale); ok {
			return s
		}
	}
	return &sale{offer: p.static}
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
func (p *pricing) canonNetwork(name string) string {
	if p.fac != nil {
		if info, ok := p.fac.NetworkInfo(name); ok {
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
func (p *pricing) choose(pay *x402.Payment) (int, string) {
	canon := p.canonNetwork(pay.Network)
	for i := range p.options {
		if p.options[i].canon != canon {
			continue
		}
		asset := p.options[i].reqs.Asset
		if pay.Accepted != nil && !strings.EqualFold(strings.TrimSpace(pay.Accepted.Asset), asset) {
			return i, x402.ReasonUnsupportedAsset(pay.Accepted.Asset)
		}
		if pay.Asset != "" && !strings.EqualFold(strings.TrimSpace(pay.Asset), asset) {
			return i, x402.ReasonUnsupportedAsset(pay.Asset)
		}
		return i, ""
	}
	return 0, x402.ReasonUnsupportedNetwork(pay.Network)
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
			if k.Scheme != "" && k.Scheme != x402.SchemeExact {
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
	opts, logger := h.pricing.options, h.logger
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

// networkFacts is what the requirements need to know about a network.
type networkFacts struct {
	Name     string
	Token    string
	Decimals uint8
	Domain   x402.DomainInfo
	ChainID  int64 // 0 when unknown
	// DecimalsKnown is false for a remote facilitator's network that is
	// neither built in nor configured with decimals.
	DecimalsKnown bool
}

// networkInfo learns a network's facts: from the x402 app (embedded
// facilitator), else (remote) from the app, the built-in networks or the
// route's asset, decimals and eip712_* settings.
func (h *Handler) networkInfo(ctx caddy.Context, network string) (networkFacts, error) {
	if h.Facilitator == "" {
		fac, info, ok := h.app.Network(network)
		if !ok || fac == nil {
			return networkFacts{}, fmt.Errorf("x402: network %q is not configured in the x402 app (configured: %s); add it to the x402 global option or set facilitator to a remote one",
				network, strings.Join(h.app.ServedNetworks(), ", "))
		}
		return networkFacts{Name: info.Name, Token: info.Token.Hex(), Decimals: info.Decimals, Domain: info.Domain, ChainID: info.ChainID.Int64(), DecimalsKnown: true}, nil
	}

	var facts networkFacts
	found := false
	if h.app != nil {
		if _, info, ok := h.app.Network(network); ok {
			facts = networkFacts{Name: info.Name, Token: info.Token.Hex(), Decimals: info.Decimals, Domain: info.Domain, ChainID: info.ChainID.Int64(), DecimalsKnown: true}
			found = true
		}
	}
	if !found {
		if b, ok := x402network.Builtin(network); ok {
			facts = networkFacts{Name: b.Name, Token: b.Token, Decimals: b.Decimals, ChainID: b.ChainID, DecimalsKnown: true,
				Domain: x402.DomainInfo{Name: b.EIP712Name, Version: b.EIP712Version}}
		} else {
			facts = networkFacts{Name: network}
			facts.ChainID, _ = x402.ChainIDOf(network)
		}
	}
	// asset, decimals and eip712_* describe the token of a route's one
	// network (Validate refuses them with several).
	if h.Asset != "" {
		facts.Token = h.Asset
	}
	if h.Decimals != nil {
		facts.Decimals, facts.DecimalsKnown = *h.Decimals, true
	}
	if h.EIP712Name != "" {
		facts.Domain.Name = h.EIP712Name
	}
	if h.EIP712Version != "" {
		facts.Domain.Version = h.EIP712Version
	}
	if facts.Token == "" {
		return networkFacts{}, fmt.Errorf("x402: network %q is neither built in (%s) nor in the x402 app, so with a remote facilitator it needs asset (the token address), and decimals if price is used",
			network, strings.Join(x402network.BuiltinNames(), ", "))
	}
	return facts, nil
}

// accessPrice is the price a grant is for: as written and, with the
// request's offer, as resolved for it.
func (p *pricing) accessPrice(r *http.Request) string {
	price := p.expr
	if sl := p.saleOf(r); sl != nil && sl.offer != nil {
		price += "\x00" + sl.offer.value
	}
	return price
}
