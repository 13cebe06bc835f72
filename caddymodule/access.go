package caddymodule

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"github.com/ethereum/go-ethereum/common"
	"go.uber.org/zap"

	"github.com/caddy-x402/caddy-x402/caddymodule/internal/httpx"
	"github.com/caddy-x402/caddy-x402/facilitator"
	"github.com/caddy-x402/caddy-x402/facilitator/evm"
	"github.com/caddy-x402/caddy-x402/facilitator/store"
)

// Pay once, come back: with access set, a settled payment grants its
// payer access to the route (the directive's scope) from its settlement
// until settlement + access. The grant is kept in the redemption store's
// storage (durable; in PostgreSQL, on every instance) and pruned after it
// ends. A request with a live grant is served without payment, shown
// either way:
//
//	SIGN-IN-WITH-X  the x402 sign-in-with-x extension: every 402 declares a
//	                challenge, the buyer signs it with the wallet that paid
//	                (siwx.go)
//	a cookie        every paid response (and every sign-in) sets an
//	                HttpOnly cookie that carries the grant, signed with a
//	                server key (access_cookie.go), so a browser's reload
//	                shows the content without the wallet
//
// The upstream of a request served by a grant gets X-Payment-From (the
// payer), X-Payment-Access-Until (the grant's end, RFC 3339) and
// X-Payment-Access-Via (sign-in-with-x or cookie), and no settlement
// headers: no new payment was made.

// How a request was served by a grant (X-Payment-Access-Via, and the via
// label of x402_access_requests_total).
const (
	AccessViaSIWx   = "sign-in-with-x"
	AccessViaCookie = "cookie"
)

// AccessWindow is the access a payment buys on a route (the x402
// directive's access and access_cookie options).
type AccessWindow struct {
	// Access, when set, makes a settled payment grant its payer access to
	// this route for this long from the settlement: requests that sign in
	// with the paying wallet (the x402 sign-in-with-x extension, declared
	// in every 402) or carry the access cookie are served without paying.
	// Default: off, every request pays.
	Access caddy.Duration `json:"access,omitempty"`

	// AccessCookieOff stops paid responses from setting the access cookie
	// (browsers then pay, or sign in, on every visit).
	AccessCookieOff bool `json:"access_cookie_off,omitempty"`

	// AccessPath is the route's path prefix: the access cookie's Path,
	// and part of the route's identity for grants (two directives of one
	// site with the same requirements but other paths hold other grants).
	// The Caddyfile sets it from the directive's path matcher (/api/*
	// gives /api/, /article gives /article); default /.
	AccessPath string `json:"access_path,omitempty"`

	access accessState
}

// accessState is what a route with access needs at run time.
type accessState struct {
	on     bool
	window time.Duration
	grants store.Grants
	keys   *accessKeyring // the server key's generations: sign cookies and nonces
	path   string         // the cookie's Path
	// walletCheck asks a contract wallet about a sign-in whose signature
	// does not recover to it, on walletNets (the route's networks that
	// the x402 app serves, so has an RPC for). nil: externally owned
	// accounts only.
	walletCheck contractWalletCheck
	walletNets  map[string]bool
}

// contractWalletCheck reports what wallet (a contract on network) says of
// sig over the EIP-191 hash of a sign-in message (EIP-1271
// isValidSignature; ERC-6492 for one not deployed yet), in one eth_call:
// the embedded facilitator's WalletSignature. An error means the chain
// could not be asked.
type contractWalletCheck func(ctx context.Context, network string, wallet common.Address, hash common.Hash, sig []byte) (evm.WalletVerdict, error)

// canAskWallet reports whether a contract wallet's sign-in on network can
// be checked.
func (a *accessState) canAskWallet(network string) bool {
	return a.walletCheck != nil && a.walletNets[network]
}

// provisionWalletCheck lets contract wallets sign in on the route's
// networks that the x402 app serves (with the embedded facilitator,
// all of them; with a remote one, those configured in the app too).
func (h *Handler) provisionWalletCheck() {
	a := &h.access
	a.walletCheck, a.walletNets = nil, map[string]bool{}
	if h.app == nil || h.app.Facilitator() == nil {
		return
	}
	fac := h.app.Facilitator()
	for i := range h.options {
		if _, ok := fac.NetworkInfo(h.options[i].reqs.Network); ok {
			a.walletNets[h.options[i].reqs.Network] = true
		}
	}
	a.walletCheck = fac.WalletSignature
}

// minAccess is the shortest access window.
const minAccess = time.Second

// validateAccess checks the access settings.
func (h *Handler) validateAccess() error {
	if h.Access < 0 || (h.Access > 0 && time.Duration(h.Access) < minAccess) {
		return fmt.Errorf("x402: access must be a duration of at least %s, such as 1h, got %s", minAccess, time.Duration(h.Access))
	}
	if h.Access == 0 && (h.AccessCookieOff || h.AccessPath != "") {
		return errors.New("x402: access_cookie and access_path need access <duration>")
	}
	if h.AccessPath != "" && !strings.HasPrefix(h.AccessPath, "/") {
		return fmt.Errorf("x402: access_path %q must start with /", h.AccessPath)
	}
	return nil
}

// Names of the secrets behind access: in Caddy's storage, or in the
// PostgreSQL store with storage postgres.
const (
	accessSecretName = "x402-access-key"
	accessSecretPath = "x402/access.key"
)

// provisionAccess prepares a route with access: the grants (in the
// redemption store's storage) and the server key, which is made once and
// shared by every instance that shares the storage, and rotated there
// (access_keys.go). It runs after the requirements and the redemption
// store are known.
func (h *Handler) provisionAccess(ctx caddy.Context) error {
	if h.Access == 0 {
		return nil
	}
	a := &h.access
	a.on, a.window = true, time.Duration(h.Access)
	a.path = h.AccessPath
	if a.path == "" {
		a.path = "/"
	}
	if h.redeem == nil || store.GrantsOf(h.redeem.Store()) == nil {
		return errors.New("x402: access needs a redemption store that keeps grants")
	}
	a.grants = store.GrantsOf(h.redeem.Store())
	keys, err := h.provisionKeyring(ctx)
	if err != nil {
		return fmt.Errorf("x402: access: the server key of access cookies and sign-ins: %w", err)
	}
	a.keys = keys
	h.provisionWalletCheck()
	if len(h.siwxChains()) == 0 {
		h.logger.Warn("the chain ids of the route's networks are unknown, so the 402 cannot declare sign-in-with-x; access works by cookie only",
			zap.String("network", h.firstNetwork()))
	}
	return initAccessMetrics(ctx.GetMetricsRegistry())
}

// deriveKey is a key of its own for one use of the server key.
func deriveKey(key []byte, use string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(use))
	return m.Sum(nil)
}

// grantRoute identifies the route for grants: the route's payment
// options (each network, token, pay_to, description and type, without
// the resource: a grant is for the whole directive) and its price (as
// written, and as resolved for this request when it is priced per
// request, so that a payment for a cheaper request opens no dearer one),
// the site (the host the buyer addressed: httpx.RequestOrigin), the route's
// path prefix and label. A grant for one route opens no other route of
// the site, nor of another site on this server.
func (h *Handler) grantRoute(r *http.Request) string {
	s := sha256.New()
	s.Write([]byte("x402 access grant\x00"))
	for _, o := range h.options {
		for _, v := range []string{o.reqs.Network, o.reqs.PayTo, o.reqs.Asset, o.reqs.Description, o.reqs.MimeType} {
			s.Write([]byte(v))
			s.Write([]byte{0})
		}
	}
	price := h.priceExpr()
	if sl := h.saleOf(r); sl != nil && sl.offer != nil {
		price += "\x00" + sl.offer.value
	}
	_, host := httpx.RequestOrigin(r)
	for _, v := range []string{price, strings.ToLower(host), h.access.path, h.Label} {
		s.Write([]byte{0})
		s.Write([]byte(v))
	}
	return hex.EncodeToString(s.Sum(nil)[:16])
}

// serveAccess serves a request without payment that a live grant lets
// through: by its access cookie or its SIGN-IN-WITH-X header. A sign-in
// that does not hold is answered 402 with its reason and a fresh
// challenge; a request with a payment header pays. It reports handled
// false when the request is to be answered as any other.
func (h *Handler) serveAccess(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler, paymentHeader string) (bool, error) {
	if !h.access.on || paymentHeader != "" {
		return false, nil
	}
	route := h.grantRoute(r)
	if g := h.cookieGrant(r, route, time.Now()); g != nil {
		return true, h.serveGrant(w, r, next, g, AccessViaCookie)
	}
	header := r.Header.Get(headerSIWx)
	if header == "" || len(h.siwxChains()) == 0 {
		return false, nil
	}
	g, refusal, err := h.signIn(r, header, route, time.Now())
	switch {
	case err != nil:
		h.observeAccess(AccessViaSIWx, accessRefused, reasonStoreUnavailable)
		h.logger.Error("the access store cannot be reached; sign-ins are answered 503 until it is back", zap.Error(err))
		return true, httpx.WriteRetryJSON(w, http.StatusServiceUnavailable, textAccessStoreDown, retryStoreDown)
	case refusal != nil && refusal.status == http.StatusTooManyRequests:
		h.observeAccess(AccessViaSIWx, accessRefused, refusal.code)
		return true, tooManyAttempts(w, refusal.retry)
	case refusal != nil && refusal.status == http.StatusServiceUnavailable:
		h.observeAccess(AccessViaSIWx, accessRefused, refusal.code)
		return true, httpx.WriteRetryJSON(w, http.StatusServiceUnavailable, refusal.text, retrySIWxFresh)
	case refusal != nil:
		h.observeAccess(AccessViaSIWx, accessRefused, refusal.code)
		return true, h.paymentRequired(w, r, refusal.text, "")
	}
	return true, h.serveGrant(w, r, next, g, AccessViaSIWx)
}

// retrySIWxFresh is the retry advice of a sign-in that could not be
// checked on chain: its nonce is used, so a fresh challenge is signed.
const retrySIWxFresh = "sign the challenge of a fresh 402 and send it shortly"

// textAccessStoreDown answers a sign-in when the grants cannot be read.
const textAccessStoreDown = "the access store cannot be reached, so the sign-in could not be checked: nothing was charged"

// serveGrant runs the upstream for a request a grant lets through.
func (h *Handler) serveGrant(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler, g *store.Grant, via string) error {
	from := common.HexToAddress(g.Payer).Hex()
	until := g.End.UTC().Format(time.RFC3339)
	r.Header.Set(httpx.HeaderFrom, from)
	r.Header.Set(httpx.HeaderAccessUntil, until)
	r.Header.Set(httpx.HeaderAccessVia, via)
	// No settlement: its placeholders are empty, not left unreplaced.
	h.setAccessVars(r, [][2]string{{"from", from}, {"access_until", until}, {"access_via", via},
		{"tx_hash", ""}, {"to", ""}, {"value", ""}, {"network", ""}, {"block_number", ""}})
	w.Header().Set(httpx.HeaderAccessUntil, until)
	if via == AccessViaSIWx {
		h.setAccessCookie(w, r, g, time.Now())
	}
	h.observeAccess(via, accessServed, "")
	h.logger.Debug("served by an access grant", zap.String("from", from), zap.String("until", until), zap.String("via", via))
	return next.ServeHTTP(w, r)
}

// setAccessVars sets placeholders {http.x402.<name>} (and the x402.<name>
// variables): from, access_until, access_via and, for a request served by
// a grant, the settlement's, empty.
func (h *Handler) setAccessVars(r *http.Request, vals [][2]string) {
	repl, _ := r.Context().Value(caddy.ReplacerCtxKey).(*caddy.Replacer)
	for _, kv := range vals {
		if repl != nil {
			repl.Set("http.x402."+kv[0], kv[1])
		}
		caddyhttp.SetVar(r.Context(), "x402."+kv[0], kv[1])
	}
}

// grantAccess records the grant a settled payment buys, once the paywall
// knows the money moved and before the paid answer begins, and gives the
// buyer its end (X-Payment-Access-Until) and the access cookie. It is
// called for every delivery of the payment (a retry after a hang-up
// too): the grant runs from the settlement, so writing it again changes
// nothing.
func (h *Handler) grantAccess(w http.ResponseWriter, r *http.Request, sr *facilitator.SettleResponse) {
	if !h.access.on || !sr.Settled() || !common.IsHexAddress(sr.From) {
		return
	}
	now := time.Now()
	start := settledAt(sr, now)
	network := sr.Network
	if network == "" {
		network = h.saleOf(r).network()
	}
	g := &store.Grant{Route: h.grantRoute(r), Payer: strings.ToLower(sr.From), Start: start, End: start.Add(h.access.window),
		TxHash: sr.TxHash, Network: network}
	changed, err := h.access.grants.PutGrant(g)
	switch {
	case err != nil:
		// The resource is still delivered: it was paid for. Only the
		// sign-ins of the window are lost (the cookie carries the grant).
		h.logger.Error("recording an access grant failed; the buyer's sign-ins in its window will be refused",
			zap.String("from", sr.From), zap.String("tx_hash", sr.TxHash), zap.Error(err))
	case changed:
		h.observeGrant(network)
	}
	if !g.End.After(now) {
		return // settled longer ago than the window: nothing left
	}
	until := g.End.UTC().Format(time.RFC3339)
	r.Header.Set(httpx.HeaderAccessUntil, until)
	h.setAccessVars(r, [][2]string{{"access_until", until}, {"access_via", ""}})
	w.Header().Set(httpx.HeaderAccessUntil, until)
	h.setAccessCookie(w, r, g, now)
}

// settledAt is when a payment settled: the settle answer's timestamp,
// within reason (never in the future), else now. Whole seconds.
func settledAt(sr *facilitator.SettleResponse, now time.Time) time.Time {
	t, err := time.Parse(time.RFC3339Nano, sr.Timestamp)
	if err != nil || t.After(now) {
		t = now
	}
	return t.UTC().Truncate(time.Second)
}

// unmarshalAccessOption reads access <duration> and access_cookie on|off.
func (h *Handler) unmarshalAccessOption(d *caddyfile.Dispenser, opt, v string) error {
	switch opt {
	case "access":
		dur, err := caddy.ParseDuration(v)
		if err != nil || dur < minAccess {
			return d.Errf("x402: access %q is not a duration of at least %s, such as 1h or 24h", v, minAccess)
		}
		h.Access = caddy.Duration(dur)
	case "access_cookie":
		switch v {
		case "on":
			h.AccessCookieOff = false
		case "off":
			h.AccessCookieOff = true
		default:
			return d.Errf("x402: access_cookie takes on or off, got %q", v)
		}
	}
	return nil
}

// parseHandlerRoute is the x402 directive: as a handler directive (its
// matcher wraps it in a route), and with access, the path of its path
// matcher as the route's AccessPath when none is given. With a matcher, it
// adds an unscoped x402_path_guard route beside its own.
func parseHandlerRoute(h httpcaddyfile.Helper) ([]httpcaddyfile.ConfigValue, error) {
	if !h.Next() {
		return nil, h.ArgErr()
	}
	matcherSet, err := h.ExtractMatcherSet()
	if err != nil {
		return nil, err
	}
	val, err := parseHandler(h)
	if err != nil {
		return nil, err
	}
	if m, ok := val.(*Handler); ok && m.Access > 0 && m.AccessPath == "" {
		m.AccessPath = matcherPathPrefix(matcherSet)
	}
	routes := h.NewRoute(matcherSet, val)
	if len(matcherSet) > 0 {
		// A path the matcher does not match may still name a resource
		// behind it to the upstream (/api;x/premium beside x402 /api/*):
		// refuse such spellings on every request of the block (paths.go).
		routes = append(routes, h.NewRoute(nil, new(PathGuard))...)
	}
	return routes, nil
}

// matcherPathPrefix is the path prefix of a matcher set whose path
// matcher has one pattern: /api/* gives /api/, /article gives /article,
// /api* gives / (a cookie's Path matches whole segments). "" when there is
// no such prefix.
func matcherPathPrefix(ms caddy.ModuleMap) string {
	raw, ok := ms["path"]
	if !ok {
		return ""
	}
	var paths []string
	if json.Unmarshal(raw, &paths) != nil || len(paths) != 1 {
		return ""
	}
	p := paths[0]
	if !strings.HasPrefix(p, "/") {
		return ""
	}
	body := strings.TrimSuffix(p, "*")
	if strings.ContainsAny(body, "*?[%") {
		return ""
	}
	if body == p {
		return p // an exact path
	}
	return body[:strings.LastIndexByte(body, '/')+1]
}

// siwxChains are the CAIP-2 ids of the route's networks whose chain id is
// known, in the seller's order: the chains a buyer may sign in on.
func (h *Handler) siwxChains() []string {
	var out []string
	for i := range h.options {
		if c := h.options[i].caip2; c != "" {
			out = append(out, c)
		}
	}
	return out
}

// siwxNetwork is the route's network of a sign-in's chain ("" when the
// route has no such chain).
func (h *Handler) siwxNetwork(chain string) string {
	for i := range h.options {
		if h.options[i].caip2 == chain {
			return h.options[i].reqs.Network
		}
	}
	return ""
}

// firstNetwork is the route's first network, the label of what concerns
// the route rather than one payment.
func (h *Handler) firstNetwork() string {
	if len(h.options) == 0 {
		return ""
	}
	return h.options[0].reqs.Network
}
