package access

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"github.com/ethereum/go-ethereum/common"
	"go.uber.org/zap"

	"github.com/caddy-x402/caddy-x402/caddymodule/internal/httpx"
	"github.com/caddy-x402/caddy-x402/facilitator/evm"
	"github.com/caddy-x402/caddy-x402/facilitator/store"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// How a request was served by a grant (X-Payment-Access-Via, and the via
// label of x402_access_requests_total).
const (
	ViaSIWx   = "sign-in-with-x"
	ViaCookie = "cookie"
)

// Deps is what a gate borrows from the paywall: the store of its
// grants, the contract wallet check and the attempt limit.
type Deps struct {
	// Store holds the grants and, in PostgreSQL, the server key (else
	// Caddy's storage does). nil: access cannot be provisioned.
	Store store.Redemptions
	// WalletCheck asks a contract wallet about a sign-in on the networks
	// of WalletNetworks; nil: externally owned accounts only.
	WalletCheck    WalletCheck
	WalletNetworks map[string]bool
	// Allow counts a contract wallet's sign-in against the client's
	// attempt limit: false with the wait when over it.
	Allow func(r *http.Request) (bool, time.Duration)
}

// Gate is a route's access at run time: it serves the requests a
// live grant lets through, records the grants payments buy, and declares
// the sign-in challenge in 402s. It never answers a refusal itself: it
// returns it, and the paywall answers.
type Gate struct {
	window    time.Duration
	path      string // the cookie's Path
	cookieOff bool
	route     Route
	grants    store.Grants
	keys      *accessKeyring // the server key's generations: sign cookies and nonces
	poolKey   string         // the keyring's usage pool key, released by cleanup
	// walletCheck asks a contract wallet about a sign-in whose signature
	// does not recover to it, on walletNets (the route's networks that
	// the x402 app serves, so has an RPC for). nil: externally owned
	// accounts only.
	walletCheck WalletCheck
	walletNets  map[string]bool
	allow       func(r *http.Request) (bool, time.Duration)
	logger      *zap.Logger
}

// WalletCheck reports what wallet (a contract on network) says of
// sig over the EIP-191 hash of a sign-in message (EIP-1271
// isValidSignature; ERC-6492 for one not deployed yet), in one eth_call:
// the embedded facilitator's WalletSignature. An error means the chain
// could not be asked.
type WalletCheck func(ctx context.Context, network string, wallet common.Address, hash common.Hash, sig []byte) (evm.WalletVerdict, error)

// Names of the secrets behind access: in Caddy's storage, or in the
// PostgreSQL store with storage postgres.
const (
	accessSecretName = "x402-access-key"
	accessSecretPath = "x402/access.key"
)

// Provision prepares a route with access: the grants (in the
// redemption store's storage) and the server key, which is made once and
// shared by every instance that shares the storage, and rotated there
// (keyring.go). nil without access. On an error the gate returned, if
// any, holds what Cleanup releases.
func Provision(ctx caddy.Context, w Window, route Route, deps Deps, logger *zap.Logger) (*Gate, error) {
	if w.Access == 0 {
		return nil, nil
	}
	g := &Gate{window: time.Duration(w.Access), path: w.AccessPath, cookieOff: w.AccessCookieOff,
		route: route, allow: deps.Allow, logger: logger}
	if g.path == "" {
		g.path = "/"
	}
	grants, ok := deps.Store.(store.Grants)
	if !ok {
		return nil, errors.New("x402: access needs a redemption store that keeps grants")
	}
	g.grants = grants
	keys, err := g.provisionKeyring(ctx, deps.Store)
	if err != nil {
		return g, fmt.Errorf("x402: access: the server key of access cookies and sign-ins: %w", err)
	}
	g.keys = keys
	g.walletCheck, g.walletNets = deps.WalletCheck, deps.WalletNetworks
	if g.walletNets == nil {
		g.walletNets = map[string]bool{}
	}
	if len(g.siwxChains()) == 0 {
		logger.Warn("the chain ids of the route's networks are unknown, so the 402 cannot declare sign-in-with-x; access works by cookie only",
			zap.String("network", g.firstNetwork()))
	}
	return g, initAccessMetrics(ctx.GetMetricsRegistry())
}

// Cleanup releases the gate's hold on its keyring.
func (g *Gate) Cleanup() error {
	if g == nil || g.poolKey == "" {
		return nil
	}
	key := g.poolKey
	g.poolKey = ""
	_, err := keyrings.Delete(key)
	return err
}

// grantRoute identifies the route for grants: the route's payment
// options (each network, token, pay_to, description and type, without
// the resource: a grant is for the whole directive) and its price (the
// paywall's accessPrice: as written, and as resolved for this request, so
// that a payment for a cheaper request opens no dearer one), the site
// (the host the buyer addressed: requestOrigin), the route's path prefix
// and label. A grant for one route opens no other route of the site, nor
// of another site on this server.
func (g *Gate) grantRoute(r *http.Request, price string) string {
	s := sha256.New()
	s.Write([]byte("x402 access grant\x00"))
	for _, o := range g.route.Options {
		for _, v := range []string{o.Network, o.PayTo, o.Asset, o.Description, o.MimeType} {
			s.Write([]byte(v))
			s.Write([]byte{0})
		}
	}
	_, host := httpx.RequestOrigin(r)
	for _, v := range []string{price, strings.ToLower(host), g.path, g.route.Label} {
		s.Write([]byte{0})
		s.Write([]byte(v))
	}
	return hex.EncodeToString(s.Sum(nil)[:16])
}

// Refusal is a sign-in the gate refused, for the paywall to answer:
// 402 with Text as the error (and the route's requirements with a fresh
// challenge), 429 after Wait, or 503 with Text and Retry.
type Refusal struct {
	Status int
	Text   string
	Retry  string
	Wait   time.Duration
}

// Serve serves a request without payment that a live grant lets through:
// by its access cookie or its SIGN-IN-WITH-X header; price is the
// route's price for grants (grantRoute), resource the URL the buyer asked
// for (at the origin it addressed), which a sign-in names. A sign-in that does not hold is returned as
// a refusal, not answered. It reports handled false when the request is
// to be answered as any other.
func (g *Gate) Serve(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler, price, resource string) (bool, *Refusal, error) {
	route := g.grantRoute(r, price)
	if gr := g.cookieGrant(r, route, time.Now()); gr != nil {
		return true, nil, g.serveGrant(w, r, next, gr, ViaCookie)
	}
	header := r.Header.Get(headerSIWx)
	if header == "" || len(g.siwxChains()) == 0 {
		return false, nil, nil
	}
	gr, refusal, err := g.signIn(r, header, route, resource, time.Now())
	switch {
	case err != nil:
		g.observeAccess(ViaSIWx, accessRefused, reasonStoreUnavailable)
		g.logger.Error("the access store cannot be reached; sign-ins are answered 503 until it is back", zap.Error(err))
		return true, &Refusal{Status: http.StatusServiceUnavailable, Text: textAccessStoreDown, Retry: retryStoreDown}, nil
	case refusal != nil && refusal.status == http.StatusTooManyRequests:
		g.observeAccess(ViaSIWx, accessRefused, refusal.code)
		return true, &Refusal{Status: http.StatusTooManyRequests, Wait: refusal.retry}, nil
	case refusal != nil && refusal.status == http.StatusServiceUnavailable:
		g.observeAccess(ViaSIWx, accessRefused, refusal.code)
		return true, &Refusal{Status: http.StatusServiceUnavailable, Text: refusal.text, Retry: retrySIWxFresh}, nil
	case refusal != nil:
		g.observeAccess(ViaSIWx, accessRefused, refusal.code)
		return true, &Refusal{Status: http.StatusPaymentRequired, Text: refusal.text}, nil
	}
	return true, nil, g.serveGrant(w, r, next, gr, ViaSIWx)
}

// retrySIWxFresh is the retry advice of a sign-in that could not be
// checked on chain: its nonce is used, so a fresh challenge is signed.
const retrySIWxFresh = "sign the challenge of a fresh 402 and send it shortly"

// reasonStoreUnavailable is the reason of a sign-in refused because the
// grants cannot be read, in x402_access_requests_total.
const reasonStoreUnavailable = "store_unavailable"

// retryStoreDown is the retry advice of a sign-in refused because the
// grants cannot be read.
const retryStoreDown = "send the same request again shortly"

// textAccessStoreDown answers a sign-in when the grants cannot be read.
const textAccessStoreDown = "the access store cannot be reached, so the sign-in could not be checked: nothing was charged"

// serveGrant runs the upstream for a request a grant lets through.
func (g *Gate) serveGrant(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler, gr *store.Grant, via string) error {
	from := common.HexToAddress(gr.Payer).Hex()
	until := gr.End.UTC().Format(time.RFC3339)
	r.Header.Set(httpx.HeaderFrom, from)
	r.Header.Set(httpx.HeaderAccessUntil, until)
	r.Header.Set(httpx.HeaderAccessVia, via)
	// No settlement: its placeholders are empty, not left unreplaced.
	setAccessVars(r, [][2]string{{"from", from}, {"access_until", until}, {"access_via", via},
		{"tx_hash", ""}, {"to", ""}, {"value", ""}, {"network", ""}, {"block_number", ""}})
	w.Header().Set(httpx.HeaderAccessUntil, until)
	if via == ViaSIWx {
		g.setAccessCookie(w, r, gr, time.Now())
	}
	g.observeAccess(via, accessServed, "")
	g.logger.Debug("served by an access grant", zap.String("from", from), zap.String("until", until), zap.String("via", via))
	return next.ServeHTTP(w, r)
}

// setAccessVars sets placeholders {http.x402.<name>} (and the x402.<name>
// variables): from, access_until, access_via and, for a request served by
// a grant, the settlement's, empty.
func setAccessVars(r *http.Request, vals [][2]string) {
	repl, _ := r.Context().Value(caddy.ReplacerCtxKey).(*caddy.Replacer)
	for _, kv := range vals {
		if repl != nil {
			repl.Set("http.x402."+kv[0], kv[1])
		}
		caddyhttp.SetVar(r.Context(), "x402."+kv[0], kv[1])
	}
}

// Grant records the grant a settled payment buys on network at price (as
// Serve takes it), once the paywall knows the money moved and before the paid
// answer begins, and gives the buyer its end (X-Payment-Access-Until) and
// the access cookie. It is called for every delivery of the payment (a
// retry after a hang-up too): the grant runs from the settlement, so
// writing it again changes nothing.
func (g *Gate) Grant(w http.ResponseWriter, r *http.Request, sr *x402.SettleResponse, price, network string) {
	if !sr.Settled() || !common.IsHexAddress(sr.From) {
		return
	}
	now := time.Now()
	start := settledAt(sr, now)
	gr := &store.Grant{Route: g.grantRoute(r, price), Payer: strings.ToLower(sr.From), Start: start, End: start.Add(g.window),
		TxHash: sr.TxHash, Network: network}
	changed, err := g.grants.PutGrant(gr)
	switch {
	case err != nil:
		// The resource is still delivered: it was paid for. Only the
		// sign-ins of the window are lost (the cookie carries the grant).
		g.logger.Error("recording an access grant failed; the buyer's sign-ins in its window will be refused",
			zap.String("from", sr.From), zap.String("tx_hash", sr.TxHash), zap.Error(err))
	case changed:
		g.observeGrant(network)
	}
	if !gr.End.After(now) {
		return // settled longer ago than the window: nothing left
	}
	until := gr.End.UTC().Format(time.RFC3339)
	r.Header.Set(httpx.HeaderAccessUntil, until)
	setAccessVars(r, [][2]string{{"access_until", until}, {"access_via", ""}})
	w.Header().Set(httpx.HeaderAccessUntil, until)
	g.setAccessCookie(w, r, gr, now)
}

// settledAt is when a payment settled: the settle answer's timestamp,
// within reason (never in the future), else now. Whole seconds.
func settledAt(sr *x402.SettleResponse, now time.Time) time.Time {
	t, err := time.Parse(time.RFC3339Nano, sr.Timestamp)
	if err != nil || t.After(now) {
		t = now
	}
	return t.UTC().Truncate(time.Second)
}
