package caddymodule

import (
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
//	the signature is the wallet's (recovery; a contract wallet's by
//	    EIP-1271 once that check is plugged in: contractWalletCheck);
//	the wallet holds a grant for this route that has not ended;
//	its nonce was never used (stored, shared with every instance).
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

// extensions402 are a 402's extensions: the route's, plus a fresh
// sign-in-with-x challenge for resource on a route with access.
func (h *Handler) extensions402(resource string) map[string]any {
	if !h.access.on || len(h.siwxChains()) == 0 {
		return h.v2.extensions
	}
	ext := make(map[string]any, len(h.v2.extensions)+1)
	for k, v := range h.v2.extensions {
		ext[k] = v
	}
	ext[x402.ExtSignInWithX] = h.siwxChallenge(resource, time.Now())
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
func (h *Handler) siwxChallenge(resource string, now time.Time) x402.SIWxDeclaration {
	domain, _, uri := siwxTarget(resource)
	issued := now.UTC().Format(isoMillis)
	rnd := make([]byte, siwxNonceRandom)
	_, _ = rand.Read(rnd)
	info := x402.SIWxInfo{
		Domain: domain, URI: uri, Version: "1",
		Nonce:          hex.EncodeToString(rnd) + h.siwxNonceMAC(rnd, issued, domain, uri),
		IssuedAt:       issued,
		Resources:      []string{uri},
		ExpirationTime: now.Add(siwxMaxAge).UTC().Format(isoMillis),
		Statement:      siwxStatement,
	}
	var chains []x402.SIWxChain
	for _, c := range h.siwxChains() {
		chains = append(chains, x402.SIWxChain{ChainID: c, Type: x402.SIWxTypeEIP191})
	}
	return x402.DeclareSIWx(info, chains)
}

func (h *Handler) siwxNonceMAC(rnd []byte, issued, domain, uri string) string {
	m := hmac.New(sha256.New, h.access.nonceKey)
	m.Write(rnd)
	for _, v := range []string{issued, strings.ToLower(domain), uri} {
		m.Write([]byte{0})
		m.Write([]byte(v))
	}
	return hex.EncodeToString(m.Sum(nil)[:siwxNonceRandom])
}

// issuedHere reports whether nonce is one this site's challenges carry for
// issued, domain and uri.
func (h *Handler) issuedHere(nonce, issued, domain, uri string) bool {
	if len(nonce) != 4*siwxNonceRandom {
		return false
	}
	rnd, err := hex.DecodeString(nonce[:2*siwxNonceRandom])
	if err != nil {
		return false
	}
	return hmac.Equal([]byte(nonce[2*siwxNonceRandom:]), []byte(h.siwxNonceMAC(rnd, issued, domain, uri)))
}

// siwxRefusal is why a sign-in is not served: the 402's error text and
// the reason code in metrics (the reference packages' invalidReason codes
// where they have one).
type siwxRefusal struct{ code, text string }

func refuse(code, format string, args ...any) *siwxRefusal {
	return &siwxRefusal{code: code, text: fmt.Sprintf(format, args...)}
}

// Texts of the sign-in refusals that do not vary.
const (
	textSIWxNonceReplayed = "Nonce validation failed (possible replay attack)"
	textSIWxNonceUnknown  = "Nonce not issued by this site: sign the challenge of a fresh 402"
	textSIWxSignature     = "Signature verification failed"
)

// signIn checks a SIGN-IN-WITH-X header for this request at now and
// returns the grant it proves, or why not. An error means the grants could
// not be read or written: nothing can be said.
func (h *Handler) signIn(r *http.Request, header, route string, now time.Time) (*store.Grant, *siwxRefusal, error) {
	if len(header) > MaxPaymentHeaderBytes {
		return nil, refuse("invalid_siwx_header", "Invalid SIWX header: larger than %d KiB", MaxPaymentHeaderBytes>>10), nil
	}
	p, err := x402.ParseSIWxHeader(header)
	if err != nil {
		return nil, refuse("invalid_siwx_header", "%s", err.Error()), nil
	}
	if p.Version != "1" {
		return nil, refuse("invalid_siwx_version", "Unsupported SIWX version %q: want \"1\"", p.Version), nil
	}
	if h.siwxNetwork(p.ChainID) == "" || p.Type != x402.SIWxTypeEIP191 {
		return nil, refuse("invalid_siwx_unsupported_chain", "Unsupported chain: this route signs in on %s (%s), not %s (%s)",
			strings.Join(h.siwxChains(), ", "), x402.SIWxTypeEIP191, x402.Clip(p.ChainID, x402.MaxEchoBytes), x402.Clip(p.Type, x402.MaxEchoBytes)), nil
	}
	domain, origin, uri := siwxTarget(resourceURL(r))
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
	if !h.issuedHere(p.Nonce, p.IssuedAt, p.Domain, p.URI) {
		return nil, refuse("invalid_siwx_nonce", textSIWxNonceUnknown), nil
	}
	wallet, err := p.SIWxAddress()
	if err != nil {
		return nil, refuse("invalid_siwx_header", "%s", err.Error()), nil
	}
	if ok, err := h.siwxSigned(r, p, wallet); err != nil {
		return nil, refuse("invalid_siwx_verifier_error", "The contract wallet's signature could not be checked: %s", err.Error()), nil
	} else if !ok {
		return nil, refuse("invalid_siwx_signature", textSIWxSignature), nil
	}
	g, err := h.access.grants.Grant(route, wallet.Hex())
	switch {
	case err != nil:
		return nil, nil, err
	case g == nil:
		return nil, refuse("no_access_grant", "No access grant for %s on this route: pay for access", wallet.Hex()), nil
	case !g.End.After(now):
		return nil, refuse("access_grant_ended", "The access grant of %s on this route ended at %s: pay again for access",
			wallet.Hex(), g.End.UTC().Format(time.RFC3339)), nil
	}
	fresh, err := h.access.grants.UseNonce(p.Nonce, issued.Add(siwxMaxAge+siwxSkew))
	switch {
	case err != nil:
		return nil, nil, err
	case !fresh:
		return nil, refuse("invalid_siwx_nonce", textSIWxNonceReplayed), nil
	}
	return g, nil, nil
}

// siwxSigned reports whether wallet signed the sign-in: by recovery for
// an externally owned account; else by the contract wallet check, when
// one is plugged in. An error means the check could not be made.
func (h *Handler) siwxSigned(r *http.Request, p *x402.SIWxPayload, wallet common.Address) (bool, error) {
	if signer, err := p.RecoverSIWxSigner(); err == nil && signer == wallet {
		return true, nil
	}
	if h.access.walletCheck == nil {
		return false, nil
	}
	msg, err := p.Message()
	if err != nil {
		return false, nil
	}
	sig, err := hexutil.Decode(p.Signature)
	if err != nil {
		return false, nil
	}
	return h.access.walletCheck(r.Context(), h.siwxNetwork(p.ChainID), wallet, common.BytesToHash(accounts.TextHash([]byte(msg))), sig)
}
