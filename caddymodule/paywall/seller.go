package paywall

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"go.uber.org/zap"
)

// The paywall core knows a scheme only through these interfaces. A
// scheme's seller side is a Caddy guest module in SchemesNamespace, named
// after the scheme (http.handlers.x402.schemes.exact, .upto,
// .batch-settlement), registered in its package's init as any Caddy module.
// A route's `scheme` option names it; at Provision the core loads the
// module and asks it for the route's Seller (SchemeModule.NewSeller), and
// every request carrying a payment header goes to that Seller.
//
// The core owns the route's pricing and options (the 402's quote), the
// claims and redemption records, exactly-once delivery, the replies and
// the metrics. A scheme whose payments the facilitator verifies and
// settles as a whole (exact, or one defined outside this package) hands
// its requests to Route.Checkout; upto (upto.go) and batch-settlement
// (channel.go) bring their own charge, settle and answer headers.

// SchemesNamespace is the Caddy module namespace of the paywall's schemes.
const SchemesNamespace = "http.handlers.x402.schemes"

// SchemeModule is a scheme's seller side: a Caddy module whose ID is
// SchemesNamespace + "." + the scheme's name.
type SchemeModule interface {
	caddy.Module
	// NewSeller readies the scheme on a route at Provision, after the
	// route's options (one per network, scheme set to the scheme's name)
	// exist; an error stops the config load and should say what to change.
	NewSeller(rt *Route) (Seller, error)
}

// Seller is a scheme's seller side on one route.
type Seller interface {
	// ServePayment serves a request to the route that carries a payment
	// header: header is its value (PAYMENT-SIGNATURE or X-PAYMENT, at
	// most httpx.MaxPaymentHeaderBytes). The request's price is set.
	ServePayment(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler, header string) error
}

// Route is what the paywall core lends a scheme's seller side for one
// route: its identity, its log and its checkout.
type Route struct{ h *Handler }

// Scheme is the scheme the route takes, as its requirements spell it.
func (rt *Route) Scheme() string { return rt.h.scheme() }

// Logger is the route's logger.
func (rt *Route) Logger() *zap.Logger { return rt.h.logger }

// Checkout serves a payment the facilitator verifies and settles as a
// whole, through the core's exactly-once pipeline: the payment is decoded
// (its payload an EIP-3009 authorization, or exact's Permit2 witness
// transfer), matched to the option of its network, its payment id and
// authorization claimed, an earlier attempt resumed, else verified and
// settled before the upstream runs or when its answer starts (the route's
// settle).
func (rt *Route) Checkout(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler, header string) error {
	return rt.h.core.checkout(w, r, next, header, exactCheckout{h: rt.h.core})
}

// scheme is the route's scheme name (exact when unset).
func (h *Handler) scheme() string {
	if h.Scheme == "" {
		return SchemeExact
	}
	return h.Scheme
}

// loadSeller loads the module of the route's scheme and makes its Seller.
func (h *Handler) loadSeller(ctx caddy.Context) error {
	mod, err := ctx.LoadModuleByID(SchemesNamespace+"."+h.scheme(), json.RawMessage("{}"))
	if err != nil {
		return fmt.Errorf("x402: loading scheme %q: %w", h.scheme(), err)
	}
	sm, ok := mod.(SchemeModule)
	if !ok {
		return fmt.Errorf("x402: module %s is not a paywall scheme (no NewSeller)", SchemesNamespace+"."+h.scheme())
	}
	s, err := sm.NewSeller(&Route{h})
	if err != nil {
		return err
	}
	h.core.seller = s
	return nil
}

// knownScheme checks that a scheme's seller side is registered, and names
// the registered ones when it is not: the built-in ones first, in the
// order the docs give them.
func knownScheme(name string) error {
	if _, err := caddy.GetModule(SchemesNamespace + "." + name); err == nil {
		return nil
	}
	order := map[string]int{SchemeExact: 1, SchemeUpto: 2, SchemeChannel: 3}
	var names []string
	for _, m := range caddy.GetModules(SchemesNamespace) {
		names = append(names, m.ID.Name())
	}
	sort.Slice(names, func(i, j int) bool {
		oi, oj := order[names[i]], order[names[j]]
		if oi == 0 || oj == 0 {
			if oi != oj {
				return oi != 0
			}
			return names[i] < names[j]
		}
		return oi < oj
	})
	for i, n := range names {
		names[i] = fmt.Sprintf("%q", n)
	}
	list := strings.Join(names, ", ")
	if k := len(names); k > 1 {
		list = strings.Join(names[:k-1], ", ") + " or " + names[k-1]
	}
	return fmt.Errorf("x402: scheme must be %s, got %q", list, name)
}

// stopper is a Seller with rounds of its own to end when the route is
// cleaned up (batch-settlement: a last claim round, then its loops).
type stopper interface {
	stop() error
}

// quoteReadier is a Seller that must learn something before the route's
// offer can be quoted: upto with a remote facilitator, its address, at
// the first request (upto_remote.go).
type quoteReadier interface {
	readyQuote() error
}
