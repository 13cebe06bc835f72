package access

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/accounts"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"go.uber.org/zap"

	"github.com/caddy-x402/caddy-x402/caddymodule/internal/httpx"
	"github.com/caddy-x402/caddy-x402/facilitator/evm"
	"github.com/caddy-x402/caddy-x402/facilitator/store"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// Sign-In-With-X on a route with access. Every 402 declares the
// sign-in-with-x extension with a fresh challenge for the URI asked: the
// host the buyer addressed, the origin and path (requestOrigin: behind a
// trusted proxy, the forwarded ones), a nonce, issuedAt now and
// expirationTime siwxMaxAge later. The nonce is 12 random bytes and an
// HMAC (under the server key) of them with issuedAt, the domain and the
// URI, so the paywall knows its own challenges without storing one per
// 402. A SIGN-IN-WITH-X header is served when, in this order:
//
//	it reads (Base64 JSON with the required fields), version 1, on the
//	    route's chain with an EIP-191 signature;
//	its domain is this Host and its URI this origin and path;
//	issuedAt is no older than siwxMaxAge and not ahead (siwxSkew allowed),
//	    expirationTime has not passed and notBefore has;
//	its nonce is one this site issued for that issuedAt, domain and URI;
//	the signature recovers to the wallet (an externally owned account),
//	    or may be a contract wallet's (the route's network is in the x402
//	    app, so the chain can be asked);
//	the wallet holds a grant for this route that has not ended;
//	for a contract wallet, the client is within its attempt limit (429);
//	its nonce was never used (stored, shared with every instance);
//	for a contract wallet, the wallet accepts the signature: one eth_call
//	    of isValidSignature (EIP-1271; ERC-6492 for one not deployed on
//	    that chain) on the network of the sign-in's chain (503 when the
//	    chain cannot be asked).
//
// Each refusal is a 402 with the reason as its error and the route's
// requirements with a fresh challenge, so that the buyer can pay.

// headerSIWx is the request header of a sign-in.
const headerSIWx = x402.HeaderSignInWithX

// Limits of a sign-in's age: the reference servers' five minutes, and the
// clock skew allowed between instances that share a store.
const (
	siwxMaxAge = 5 * time.Minute
	siwxSkew   = 10 * time.Second
)

// siwxStatement is the challenge's statement, shown by the wallet.
const siwxStatement = "Sign in with the wallet that paid, to use the access it bought."

// isoMillis is JavaScript's Date.toISOString, which the reference
// packages write.
const isoMillis = "2006-01-02T15:04:05.000Z"

// siwxNonceRandom is the random part of a nonce, in bytes; the HMAC part
// is as long.
const siwxNonceRandom = 12

// Declare is a 402's extensions: the route's (exts), plus a fresh
// sign-in-with-x challenge for resource.
func (a *Gate) Declare(exts map[string]any, resource string) map[string]any {
	if len(a.siwxChains()) == 0 {
		return exts
	}
	ext := make(map[string]any, len(exts)+1)
	for k, v := range exts {
		ext[k] = v
	}
	ext[x402.ExtSignInWithX] = a.siwxChallenge(resource, time.Now())
	return ext
}

// siwxTarget is the domain and URI (origin and path) a resource URL is
// signed in for.
func siwxTarget(resource string) (domain, origin, uri string) {
	u, err := url.Parse(resource)
	if err != nil {
		return "", "", ""
	}
	origin = u.Scheme + "://" + u.Host
	return u.Host, origin, origin + u.EscapedPath()
}

// siwxChallenge is the declaration of a fresh challenge for resource.
func (a *Gate) siwxChallenge(resource string, now time.Time) x402.SIWxDeclaration {
	domain, _, uri := siwxTarget(resource)
	issued := now.UTC().Format(isoMillis)
	rnd := make([]byte, siwxNonceRandom)
	_, _ = rand.Read(rnd)
	info := x402.SIWxInfo{
		Domain: domain, URI: uri, Version: "1",
		Nonce:          hex.EncodeToString(rnd) + siwxNonceMAC(a.signingKey(), rnd, issued, domain, uri),
		IssuedAt:       issued,
		Resources:      []string{uri},
		ExpirationTime: now.Add(siwxMaxAge).UTC().Format(isoMillis),
		Statement:      siwxStatement,
	}
	var chains []x402.SIWxChain
	for _, c := range a.siwxChains() {
		chains = append(chains, x402.SIWxChain{ChainID: c, Type: x402.SIWxTypeEIP191})
	}
	return x402.DeclareSIWx(info, chains)
}

func siwxNonceMAC(k *accessKey, rnd []byte, issued, domain, uri string) string {
	m := hmac.New(sha256.New, k.nonce)
	m.Write(rnd)
	for _, v := range []string{issued, strings.ToLower(domain), uri} {
		m.Write([]byte{0})
		m.Write([]byte(v))
	}
	return hex.EncodeToString(m.Sum(nil)[:siwxNonceRandom])
}

// issuedHere reports whether nonce is one this site's challenges carry for
// issued, domain and uri: under the newest server key, or an older one
// while its challenges may live.
func (a *Gate) issuedHere(nonce, issued, domain, uri string, now time.Time) bool {
	if len(nonce) != 4*siwxNonceRandom {
		return false
	}
	rnd, err := hex.DecodeString(nonce[:2*siwxNonceRandom])
	if err != nil {
		return false
	}
	return a.verifyWith(now, siwxMaxAge+siwxSkew, func(k *accessKey) bool {
		return hmac.Equal([]byte(nonce[2*siwxNonceRandom:]), []byte(siwxNonceMAC(k, rnd, issued, domain, uri)))
	})
}

// siwxRefusal is why a sign-in is not served: the 402's error text and
// the reason code in metrics (the reference packages' invalidReason codes
// where they have one).
type siwxRefusal struct {
	code, text string
	// status is the answer's status when it is not 402: 429 (the
	// client's attempt limit, retry after retry) or 503 (the chain could
	// not be asked).
	status int
	retry  time.Duration
}

func refuse(code, format string, args ...any) *siwxRefusal {
	return &siwxRefusal{code: code, text: fmt.Sprintf(format, args...)}
}

// Texts of the sign-in refusals that do not vary (the 402's error).
const (
	TextSIWxNonceReplayed = "Nonce validation failed (possible replay attack)"
	TextSIWxNonceUnknown  = "Nonce not issued by this site: sign the challenge of a fresh 402"
	TextSIWxSignature     = "Signature verification failed"
)

// signIn checks a SIGN-IN-WITH-X header for this request (for resource,
// its URL at the origin the buyer addressed) at now and
// returns the grant it proves, or why not. An error means the grants could
// not be read or written: nothing can be said.
func (a *Gate) signIn(r *http.Request, header, route, resource string, now time.Time) (*store.Grant, *siwxRefusal, error) {
	if len(header) > httpx.MaxPaymentHeaderBytes {
		return nil, refuse("invalid_siwx_header", "Invalid SIWX header: larger than %d KiB", httpx.MaxPaymentHeaderBytes>>10), nil
	}
	p, err := x402.ParseSIWxHeader(header)
	if err != nil {
		return nil, refuse("invalid_siwx_header", "%s", err.Error()), nil
	}
	if p.Version != "1" {
		return nil, refuse("invalid_siwx_version", "Unsupported SIWX version %q: want \"1\"", p.Version), nil
	}
	if a.siwxNetwork(p.ChainID) == "" || p.Type != x402.SIWxTypeEIP191 {
		return nil, refuse("invalid_siwx_unsupported_chain", "Unsupported chain: this route signs in on %s (%s), not %s (%s)",
			strings.Join(a.siwxChains(), ", "), x402.SIWxTypeEIP191, x402.Clip(p.ChainID, x402.MaxEchoBytes), x402.Clip(p.Type, x402.MaxEchoBytes)), nil
	}
	domain, origin, uri := siwxTarget(resource)
	if !strings.EqualFold(p.Domain, domain) {
		return nil, refuse("invalid_siwx_domain_mismatch", "Domain mismatch: expected %q, got %q", domain, p.Domain), nil
	}
	mu, err := url.Parse(p.URI)
	if err != nil || mu.Scheme == "" || mu.Host == "" {
		return nil, refuse("invalid_siwx_uri_mismatch", "Invalid URI: %q is not a valid URL", p.URI), nil
	}
	if got := mu.Scheme + "://" + mu.Host; !strings.EqualFold(got, origin) {
		return nil, refuse("invalid_siwx_uri_mismatch", "URI mismatch: expected origin %q, got %q", origin, got), nil
	}
	if mu.EscapedPath() != uri[len(origin):] {
		return nil, refuse("invalid_siwx_uri_mismatch", "URI mismatch: expected %q, got %q", uri, p.URI), nil
	}
	issued, err := time.Parse(time.RFC3339Nano, p.IssuedAt)
	if err != nil {
		return nil, refuse("invalid_siwx_issued_at", "Invalid issuedAt timestamp"), nil
	}
	if age := now.Sub(issued); age > siwxMaxAge {
		return nil, refuse("invalid_siwx_issued_at_too_old", "Message too old: %ds exceeds %ds limit",
			int64(math.Round(age.Seconds())), int64(siwxMaxAge/time.Second)), nil
	} else if age < -siwxSkew {
		return nil, refuse("invalid_siwx_issued_at_in_future", "issuedAt is in the future"), nil
	}
	if p.ExpirationTime != "" {
		exp, err := time.Parse(time.RFC3339Nano, p.ExpirationTime)
		if err != nil {
			return nil, refuse("invalid_siwx_expiration_time", "Invalid expirationTime timestamp"), nil
		}
		if exp.Before(now) {
			return nil, refuse("invalid_siwx_expired", "Message expired"), nil
		}
	}
	if p.NotBefore != "" {
		nb, err := time.Parse(time.RFC3339Nano, p.NotBefore)
		if err != nil {
			return nil, refuse("invalid_siwx_not_before", "Invalid notBefore timestamp"), nil
		}
		if now.Before(nb) {
			return nil, refuse("invalid_siwx_not_yet_valid", "Message not yet valid (notBefore is in the future)"), nil
		}
	}
	if !a.issuedHere(p.Nonce, p.IssuedAt, p.Domain, p.URI, now) {
		return nil, refuse("invalid_siwx_nonce", TextSIWxNonceUnknown), nil
	}
	wallet, err := p.SIWxAddress()
	if err != nil {
		return nil, refuse("invalid_siwx_header", "%s", err.Error()), nil
	}
	// A signature that recovers to the wallet is an externally owned
	// account's. Any other may be a contract wallet's: it is asked on
	// chain, once, and only after everything that costs nothing held.
	byKey := false
	if signer, err := p.RecoverSIWxSigner(); err == nil && signer == wallet {
		byKey = true
	}
	network := a.siwxNetwork(p.ChainID)
	var sig []byte
	if !byKey {
		if sig, err = hexutil.Decode(p.Signature); err != nil || len(sig) == 0 || !a.canAskWallet(network) {
			return nil, refuse("invalid_siwx_signature", TextSIWxSignature), nil
		}
	}
	g, err := a.grants.Grant(route, wallet.Hex())
	switch {
	case err != nil:
		return nil, nil, err
	case g == nil:
		return nil, refuse("no_access_grant", "No access grant for %s on this route: pay for access", wallet.Hex()), nil
	case !g.End.After(now):
		return nil, refuse("access_grant_ended", "The access grant of %s on this route ended at %s: pay again for access",
			wallet.Hex(), g.End.UTC().Format(time.RFC3339)), nil
	}
	if !byKey {
		if ok, wait := a.allow(r); !ok {
			return nil, &siwxRefusal{code: "rate_limited", status: http.StatusTooManyRequests, retry: wait}, nil
		}
	}
	fresh, err := a.grants.UseNonce(p.Nonce, issued.Add(siwxMaxAge+siwxSkew))
	switch {
	case err != nil:
		return nil, nil, err
	case !fresh:
		return nil, refuse("invalid_siwx_nonce", TextSIWxNonceReplayed), nil
	}
	if !byKey {
		if refusal := a.contractSignIn(r, p, network, wallet, sig); refusal != nil {
			return nil, refusal, nil
		}
	}
	return g, nil, nil
}

// contractSignIn asks the contract wallet whether it signed the sign-in
// (EIP-1271 isValidSignature of the message's EIP-191 hash, ERC-6492 for a
// wallet not deployed on this chain): one eth_call on the network of the
// sign-in's chain. nil when it did.
func (a *Gate) contractSignIn(r *http.Request, p *x402.SIWxPayload, network string, wallet common.Address, sig []byte) *siwxRefusal {
	msg, err := p.Message()
	if err != nil {
		return refuse("invalid_siwx_signature", TextSIWxSignature)
	}
	ctx, cancel := context.WithTimeout(r.Context(), siwxWalletTimeout)
	defer cancel()
	verdict, err := a.walletCheck(ctx, network, wallet, common.BytesToHash(accounts.TextHash([]byte(msg))), sig)
	switch {
	case err != nil:
		a.logger.Warn("a contract wallet's sign-in could not be checked on chain; answered 503",
			zap.String("network", network), zap.String("wallet", wallet.Hex()), zap.Error(err))
		return &siwxRefusal{code: "invalid_siwx_verifier_error", status: http.StatusServiceUnavailable,
			text: fmt.Sprintf("the contract wallet's sign-in could not be checked on %s (the chain cannot be reached): nothing was charged; sign a fresh challenge and try again shortly", p.ChainID)}
	case verdict == evm.WalletAccepted:
		return nil
	case verdict == evm.WalletNoCode:
		return refuse("invalid_siwx_signature", TextSIWxSignature)
	}
	return refuse("invalid_siwx_signature", "Signature verification failed: the contract wallet %s on %s does not accept it (EIP-1271 isValidSignature)", wallet.Hex(), p.ChainID)
}

// siwxWalletTimeout bounds the eth_call of a contract wallet's sign-in.
const siwxWalletTimeout = 10 * time.Second

// canAskWallet reports whether a contract wallet's sign-in on network can
// be checked.
func (g *Gate) canAskWallet(network string) bool {
	return g.walletCheck != nil && g.walletNets[network]
}
