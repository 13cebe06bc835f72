// Package httpapi is the facilitator's HTTP API (the x402 facilitator interface and its
// look-ups): the routes (handler.go), who may call them and how often (callers.go: API keys and
// rate limits, package limit), the answers in each dialect (bodies.go) and the discovery list
// (discovery.go). It calls the facilitator only through its exported methods.
package httpapi

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"go.uber.org/zap"

	"github.com/caddy-x402/caddy-x402/facilitator"
	"github.com/caddy-x402/caddy-x402/facilitator/limit"
	"github.com/caddy-x402/caddy-x402/facilitator/store"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
	"github.com/caddy-x402/caddy-x402/internal/paytrace"
)

// MaxBodyBytes is the largest verify or settle request body accepted.
const MaxBodyBytes = 64 << 10

// Config configures the HTTP API.
type Config struct {
	// VerifyLimit limits verify requests per client IP; the zero value
	// means the spec's 10 per minute.
	VerifyLimit limit.RateLimit
	// SettleLimit limits settle requests per client IP; the zero value
	// means the spec's 5 per minute.
	SettleLimit limit.RateLimit
	// LookupLimit limits settlement look-ups (GET /v2/x402/settlements)
	// per client IP; the zero value means DefaultLookupLimit.
	LookupLimit limit.RateLimit
	// NoRateLimits turns the limits off (for a facilitator behind a proxy
	// that limits, or for tests).
	NoRateLimits bool
	// ClientIP returns the client IP a request is counted against. Nil
	// means the host of RemoteAddr.
	ClientIP func(*http.Request) string
	// APIKeys are the keys callers may send as "Authorization: Bearer
	// KEY". A caller with a key is limited per key by KeyVerifyLimit and
	// KeySettleLimit instead of per IP; one with an unknown key is
	// answered 401 (429 once its IP is over UnknownKeyLimit). Callers
	// without a key are served as before, except batch-settlement claim,
	// settle and refund settles, which need a known key (receivers.go):
	// with no APIKeys at all they are refused (403).
	APIKeys []string
	// KeyReceivers restricts keys of APIKeys (by the key itself) to the
	// receiver addresses whose batch-settlement channels they may claim,
	// settle and refund; a key not in it may act for any receiver.
	KeyReceivers map[string][]string
	// KeyVerifyLimit limits verify requests per API key; the zero value
	// means DefaultKeyVerifyLimit.
	KeyVerifyLimit limit.RateLimit
	// KeySettleLimit limits settle requests per API key; the zero value
	// means DefaultKeySettleLimit.
	KeySettleLimit limit.RateLimit
	// KeyLookupLimit limits settlement look-ups per API key; the zero
	// value means DefaultKeyLookupLimit.
	KeyLookupLimit limit.RateLimit
	// UnknownKeyLimit limits the verify and settle requests with an
	// unknown API key per client IP; the zero value means
	// DefaultUnknownKeyLimit. Over it, every request with a key from that
	// IP, known or not, is answered 429 (so that guessing stops, and a
	// right guess cannot be told from a wrong one) until the window lets
	// another through. It applies whenever APIKeys are set, NoRateLimits
	// or not.
	UnknownKeyLimit limit.RateLimit
	// Resources lists the resources of this facilitator's own sellers
	// (the request is the listing's, for its origin), first in the
	// discovery list (discovery.go). Nil lists the catalog only.
	Resources func(*http.Request) []x402.DiscoveryItem
	// OwnOrigin tells whether a resource URL's origin is served by this
	// facilitator's own server (such as the Caddy it runs in): the catalog
	// takes no entry for it from a payment, since only the server's own
	// configuration (Resources) speaks for it. Nil: none is.
	OwnOrigin func(resourceURL string) bool
	// CatalogBytes bounds the discovery catalog in all; zero means
	// DefaultCatalogBytes, negative catalogs nothing.
	CatalogBytes int64
}

// New returns the facilitator's HTTP API: GET /healthcheck,
// GET /v2/x402/supported, POST /v2/x402/verify and POST /v2/x402/settle,
// and the settlement look-ups and the discovery list.
// Any Go program can mount it.
func New(f *facilitator.Facilitator, cfg Config) http.Handler {
	h := &handler{f: f, clientIP: cfg.ClientIP, keys: newAPIKeys(cfg.APIKeys), receivers: newKeyReceivers(cfg.KeyReceivers), resources: cfg.Resources, ownOrigin: cfg.OwnOrigin, catalogBytes: cfg.CatalogBytes}
	if h.clientIP == nil {
		h.clientIP = remoteIP
	}
	if !cfg.NoRateLimits {
		h.verifyLimit = f.Limiters().Get("verify", limitOr(cfg.VerifyLimit, DefaultVerifyLimit))
		h.settleLimit = f.Limiters().Get("settle", limitOr(cfg.SettleLimit, DefaultSettleLimit))
		h.lookupLimit = f.Limiters().Get("settlement look-up", limitOr(cfg.LookupLimit, DefaultLookupLimit))
		h.keyVerifyLimit = f.Limiters().Get("verify by key", limitOr(cfg.KeyVerifyLimit, DefaultKeyVerifyLimit))
		h.keySettleLimit = f.Limiters().Get("settle by key", limitOr(cfg.KeySettleLimit, DefaultKeySettleLimit))
		h.keyLookupLimit = f.Limiters().Get("settlement look-up by key", limitOr(cfg.KeyLookupLimit, DefaultKeyLookupLimit))
	}
	if h.keys != nil {
		h.unknownKeys = f.Limiters().Get("unknown API key", limitOr(cfg.UnknownKeyLimit, DefaultUnknownKeyLimit))
	}
	return h
}

type handler struct {
	f           *facilitator.Facilitator
	clientIP    func(*http.Request) string
	verifyLimit *limit.Limiter
	settleLimit *limit.Limiter
	lookupLimit *limit.Limiter

	keys           apiKeys
	receivers      keyReceivers // the receivers of restricted keys
	keyVerifyLimit *limit.Limiter
	keySettleLimit *limit.Limiter
	keyLookupLimit *limit.Limiter
	unknownKeys    *limit.Limiter // requests with an unknown key, per client IP

	resources    func(*http.Request) []x402.DiscoveryItem
	ownOrigin    func(string) bool
	catalogBytes int64
}

func remoteIP(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	r, sp := traceAPI(r) // trace.go
	defer sp.End()
	switch r.URL.Path {
	case x402.PathHealth:
		if methodIs(w, r, http.MethodGet) {
			writeJSON(w, http.StatusOK, h.f.Health(r.Context(), start))
		}
	case x402.PathSupported:
		if methodIs(w, r, http.MethodGet) {
			writeJSON(w, http.StatusOK, h.f.Supported())
		}
	case x402.PathVerify:
		if methodIs(w, r, http.MethodPost) {
			h.verify(w, r)
		}
	case x402.PathSettle:
		if methodIs(w, r, http.MethodPost) {
			h.settle(w, r)
		}
	case x402.PathSettlementLookup:
		if methodIs(w, r, http.MethodGet) && h.lookupAllowed(w, r) {
			h.settlementByAuthorization(w, r)
		}
	case x402.PathDiscoveryResources:
		if methodIs(w, r, http.MethodGet) && h.lookupAllowed(w, r) {
			h.discoveryResources(w, r)
		}
	case x402.PathDiscoverySearch:
		if methodIs(w, r, http.MethodGet) && h.lookupAllowed(w, r) {
			h.discoverySearch(w, r) // discovery_search.go
		}
	default:
		if hash, ok := strings.CutPrefix(r.URL.Path, x402.PathSettlements); ok {
			if methodIs(w, r, http.MethodGet) && h.lookupAllowed(w, r) {
				h.settlement(w, hash)
			}
			return
		}
		writeJSON(w, http.StatusNotFound, map[string]string{"error": "no such endpoint: " + x402.Clip(r.URL.Path, x402.MaxEchoBytes)})
	}
}

func methodIs(w http.ResponseWriter, r *http.Request, method string) bool {
	if r.Method == method || (method == http.MethodGet && r.Method == http.MethodHead) {
		return true
	}
	w.Header().Set("Allow", method)
	writeJSON(w, http.StatusMethodNotAllowed, map[string]string{"error": fmt.Sprintf("method %s not allowed; use %s", r.Method, method)})
	return false
}

func (h *handler) verify(w http.ResponseWriter, r *http.Request) {
	if status, msg, ok := h.limited(w, r, h.verifyLimit, h.keyVerifyLimit, "verify"); !ok {
		writeJSON(w, status, x402.Invalid(msg))
		return
	}
	req, err := ReadRequest(r)
	var res *x402.VerifyResponse
	if err == nil {
		res, err = h.f.Verify(r.Context(), req)
	}
	writeVerify(w, req, res, err)
}

func (h *handler) settle(w http.ResponseWriter, r *http.Request) {
	if status, msg, ok := h.limited(w, r, h.settleLimit, h.keySettleLimit, "settle"); !ok {
		writeJSON(w, status, x402.Failed("", msg))
		return
	}
	req, err := ReadRequest(r)
	network := ""
	var res *x402.SettleResponse
	if err == nil {
		network = req.PaymentRequirements.Network
		ctx := facilitator.WithReceiverGate(facilitator.ViaAPI(r.Context()), h.receiverGate(w, r))
		res, err = h.f.Settle(ctx, req)
	}
	if err != nil && x402.StatusOf(err) >= 500 {
		h.f.Logger().Warn("settle could not be carried out", zap.String("network", network), zap.Error(err), paytrace.IDs(r.Context()))
	}
	if err == nil && res != nil && res.Settled() && len(req.Bazaar) > 0 {
		h.catalogSettled(w, r, req)
	}
	writeSettle(w, req, network, res, err)
}

// SettlementStatus is the answer of GET /v2/x402/settlements/{txHash}:
// the settle answer with the journal's status (pending, settled, failed).
type SettlementStatus struct {
	Status string `json:"status"`
	*x402.SettleResponse
}

func (h *handler) settlement(w http.ResponseWriter, hash string) {
	if b, err := hexutil.Decode(hash); err != nil || len(b) != 32 {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "the path must end in a transaction hash: 0x and 64 hex digits"})
		return
	}
	res, err := h.f.Settlement(hash)
	if errors.Is(err, store.ErrNotFound) {
		writeJSON(w, http.StatusNotFound, map[string]string{"error": "no settlement with transaction " + hash + " is known to this facilitator"})
		return
	}
	h.writeSettlement(w, res, err)
}

// settlementByAuthorization answers GET
// /v2/x402/settlements?network=&from=&nonce=[&scheme=]: scheme picks the
// authorization's kind when one nonce is used by EIP-3009 and Permit2.
func (h *handler) settlementByAuthorization(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	network, from, nonce, scheme := q.Get("network"), q.Get("from"), q.Get("nonce"), q.Get("scheme")
	if network == "" || from == "" || nonce == "" {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "give network, from (the payer) and nonce (the authorization nonce) as query parameters, or a transaction hash in the path"})
		return
	}
	res, err := h.f.SettlementByAuthorizationOf(network, scheme, from, nonce)
	if errors.Is(err, store.ErrNotFound) {
		writeJSON(w, http.StatusNotFound, map[string]string{"error": "no settlement of authorization " + nonce + " by " + from + " on " + network + " is known to this facilitator"})
		return
	}
	var se *x402.StatusError
	if errors.As(err, &se) {
		writeJSON(w, se.Status, map[string]string{"error": se.Message})
		return
	}
	h.writeSettlement(w, res, err)
}

func (h *handler) writeSettlement(w http.ResponseWriter, res *x402.SettleResponse, err error) {
	if err != nil {
		// Nothing the caller did: the journal (a shared database, most
		// likely) or the chain (a settlement compacted from the journal)
		// did not answer. Asking again later is the remedy.
		h.f.Logger().Error("reading the settlement journal or the chain failed", zap.Error(err))
		w.Header().Set("Retry-After", "2")
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"error": "reading the settlement journal failed; try again shortly"})
		return
	}
	status := store.StatusPending
	switch {
	case res.Settled():
		status = store.StatusSettled
	case res.Error != x402.ErrTextPending:
		status = store.StatusFailed
	}
	writeJSON(w, http.StatusOK, SettlementStatus{Status: status, SettleResponse: res})
}

// ReadRequest reads a verify or settle request body strictly: at most
// MaxBodyBytes, valid JSON, every required field of the right type, and an
// X402-Version header, when present, of 1. Its errors are StatusError 400
// saying what is wrong.
//
// Besides paymentHeader (Base64), the x402 reference servers' paymentPayload
// (the decoded header as a JSON object) is accepted.
func ReadRequest(r *http.Request) (*x402.Request, error) {
	v := r.Header.Get("X402-Version")
	body, err := io.ReadAll(http.MaxBytesReader(nil, r.Body, MaxBodyBytes))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return nil, x402.BadRequest("request body exceeds %d KiB", MaxBodyBytes>>10)
		}
		return nil, x402.BadRequest("reading the request body: %v", err)
	}
	req, err := x402.ParseRequest(body)
	if v != "" && v != "1" && !(v == "2" && err == nil && req.Dialect == x402.DialectV2) {
		return nil, x402.BadRequest("X402-Version header must be 1, got %q", v)
	}
	return req, err
}
