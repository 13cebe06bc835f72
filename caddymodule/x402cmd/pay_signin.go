package x402cmd

import (
	"crypto/ecdsa"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/caddy-x402/caddy-x402/caddymodule/internal/httpx"
	"github.com/caddy-x402/caddy-x402/facilitator/evm"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// signInFirst is "caddy x402 pay" on a 402 that declares sign-in-with-x:
// it signs the seller's challenge with the buyer's key and asks again with
// SIGN-IN-WITH-X, so that a key that holds an access grant is served
// without paying (and says so on stderr). It reports done when the
// sign-in was answered with anything but a 402; otherwise resp and data
// are the 402 to pay (the refusal's, which carries fresh requirements).
// Like the reference client, it signs only a challenge bound to the URL's
// own host and origin. With --smart-wallet it signs in as the wallet that
// paid (the key signs as its owner: EIP-1271).
func signInFirst(rawURL string, resp *http.Response, data []byte, key *ecdsa.PrivateKey, o PayOptions,
	do func(string, string) (*http.Response, []byte, error), stdout, stderr io.Writer) (bool, *http.Response, []byte, error) {
	if o.NoSignIn || o.Protocol == "v1" {
		return false, resp, data, nil
	}
	var pr x402.PaymentRequiredV2
	if x402.DecodeBase64JSON(resp.Header.Get(x402.HeaderPaymentRequired), &pr) != nil {
		return false, resp, data, nil
	}
	decl, ok := x402.SIWxDeclared(pr.Extensions)
	if !ok {
		return false, resp, data, nil
	}
	var chain *x402.SIWxChain
	for i, c := range decl.SupportedChains {
		if c.Type == x402.SIWxTypeEIP191 && (len(pr.Accepts) == 0 || c.ChainID == pr.Accepts[0].Network) {
			chain = &decl.SupportedChains[i]
			break
		}
	}
	if chain == nil {
		return false, resp, data, nil
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		return false, resp, data, nil
	}
	cu, err := url.Parse(decl.Info.URI)
	if err != nil || !strings.EqualFold(decl.Info.Domain, u.Host) || !strings.EqualFold(cu.Scheme+"://"+cu.Host, u.Scheme+"://"+u.Host) {
		fmt.Fprintf(stderr, "x402: not signing in: the seller's sign-in challenge is for %s (%s), not %s\n", decl.Info.Domain, decl.Info.URI, u.Host)
		return false, resp, data, nil
	}
	// From a contract wallet (--smart-wallet), the key signs as its owner,
	// and, for one it may have to deploy, with an ERC-6492 wrapper.
	signer := crypto.PubkeyToAddress(key.PublicKey)
	var wrap func([]byte) []byte
	if o.wallet != nil {
		signer = *o.wallet
		if d := o.deploy; d != nil {
			wrap = func(sig []byte) []byte { return evm.WrapERC6492(d.Factory, d.Calldata, sig) }
		}
	}
	p, header, err := x402.SignSIWxAs(decl.Info, *chain, key, signer, wrap)
	if err != nil {
		return false, resp, data, nil
	}
	r2, d2, err := do(x402.HeaderSignInWithX, header)
	if err != nil {
		return true, nil, nil, err
	}
	if r2.StatusCode == http.StatusPaymentRequired {
		reason := strings.TrimSpace(string(d2))
		var refused x402.PaymentRequiredV2
		var v1 x402.PaymentRequired
		if x402.DecodeBase64JSON(r2.Header.Get(x402.HeaderPaymentRequired), &refused) == nil && refused.Error != "" {
			reason = refused.Error
		} else if json.Unmarshal(d2, &v1) == nil && v1.Error != "" {
			reason = v1.Error
		}
		if strings.HasPrefix(reason, "No access grant for ") {
			// The first visit: nothing was refused that the buyer did wrong.
			fmt.Fprintf(stderr, "x402: no access grant for %s on this route yet (Sign-In-With-X: %s); paying\n", p.Address, reason)
		} else {
			fmt.Fprintf(stderr, "x402: Sign-In-With-X refused (%s); paying\n", reason)
		}
		return false, r2, d2, nil
	}
	until := ""
	if v := r2.Header.Get(httpx.HeaderAccessUntil); v != "" {
		until = " (access until " + v + ")"
	}
	fmt.Fprintf(stderr, "x402: signed in as %s with Sign-In-With-X%s: served without a new payment\n", p.Address, until)
	if err := writeBody(stdout, d2); err != nil {
		return true, nil, nil, err
	}
	if r2.StatusCode >= 400 {
		return true, nil, nil, fmt.Errorf("%s answered %s to the sign-in (no payment made)", rawURL, r2.Status)
	}
	return true, nil, nil, nil
}
