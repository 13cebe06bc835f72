package app

import (
	"fmt"
	"strings"

	"github.com/caddyserver/caddy/v2"

	"github.com/caddy-x402/caddy-x402/caddymodule/internal/httpx"
	"github.com/caddy-x402/caddy-x402/facilitator/evm"
	"github.com/caddy-x402/caddy-x402/facilitator/offerreceipt"
)

// The receipt keys (issue 34): the secp256k1 keys that sign the offers
// of a 402 and the receipts of paid requests (the x402 offer-receipt
// extension), apart from the signer keys that pay gas. The first signs;
// the others are retired keys, still published in the site's did.json so
// that the receipts they signed stay verifiable. Rotating is a new config
// (a new first key, the old one after it) and a reload.

// checkReceiptKey refuses a receipt key written out in the config.
func checkReceiptKey(v string) error {
	if httpx.KeyPlaceholder.MatchString(strings.TrimSpace(v)) {
		return nil
	}
	return fmt.Errorf("receipt_key must be a placeholder, {env.NAME} or {file.PATH}, " +
		"not the key itself: a key written in the config would be served by the admin API (GET /config/); " +
		"for example: receipt_key {env.X402_RECEIPT_KEY}")
}

// validateReceipts checks receipt_key and receipt_did without resolving
// anything.
func (a *App) validateReceipts() error {
	for _, k := range a.ReceiptKeys {
		if err := checkReceiptKey(k); err != nil {
			return err
		}
	}
	if a.ReceiptDID != "" {
		if len(a.ReceiptKeys) == 0 {
			return fmt.Errorf("receipt_did is set but there is no receipt_key to publish under it; add receipt_key {env.NAME}")
		}
		if !strings.HasPrefix(a.ReceiptDID, "did:web:") || len(a.ReceiptDID) == len("did:web:") || strings.ContainsAny(a.ReceiptDID, "#?/ ") {
			return fmt.Errorf("receipt_did %q is not a did:web identifier such as did:web:api.example.com (a port is written %%3A: did:web:localhost%%3A8443)", a.ReceiptDID)
		}
	}
	return nil
}

// provisionReceipts resolves the receipt keys. Errors name the
// placeholder, never the value.
func (a *App) provisionReceipts(repl *caddy.Replacer) error {
	a.receiptKeys = nil
	for _, placeholder := range a.ReceiptKeys {
		v, err := repl.ReplaceOrErr(strings.TrimSpace(placeholder), true, true)
		if err != nil {
			return fmt.Errorf("receipt_key %s is empty or cannot be resolved; set it to a secp256k1 private key in hex", placeholder)
		}
		k, err := evm.ParseKey(v)
		if err != nil {
			return fmt.Errorf("receipt_key %s: %w", placeholder, err)
		}
		// The DID URL is the site's, named per request (keyUnder).
		a.receiptKeys = append(a.receiptKeys, offerreceipt.NewKey(k, ""))
	}
	return nil
}

// Receipts reports whether a receipt key is configured: routes may then
// sign offers and receipts (offer_receipt).
func (a *App) Receipts() bool { return a != nil && len(a.receiptKeys) > 0 }

// ReceiptKeysFor are the receipt keys under the DID of a site: receipt_did
// when set, else the did:web of host (the request's host and port). The
// first signs; the others are retired. Nil without receipt keys.
func (a *App) ReceiptKeysFor(host string) []*offerreceipt.Key {
	if !a.Receipts() {
		return nil
	}
	did := a.ReceiptDIDOf(host)
	out := make([]*offerreceipt.Key, len(a.receiptKeys))
	for i, k := range a.receiptKeys {
		out[i] = keyUnder(did, k)
	}
	return out
}

// ReceiptKeyFor is the receipt key that signs (the first) under the DID
// of a site, as ReceiptKeysFor names it; nil without receipt keys.
func (a *App) ReceiptKeyFor(host string) *offerreceipt.Key {
	if !a.Receipts() {
		return nil
	}
	return keyUnder(a.ReceiptDIDOf(host), a.receiptKeys[0])
}

// keyUnder is k named by its DID URL in did.
func keyUnder(did string, k *offerreceipt.Key) *offerreceipt.Key {
	return k.WithKID(offerreceipt.KIDFor(did, k.Address()))
}

// ReceiptDIDOf is the DID the receipt keys are published under for a
// site: receipt_did when set, else the did:web of host.
func (a *App) ReceiptDIDOf(host string) string {
	if a.ReceiptDID != "" {
		return a.ReceiptDID
	}
	return offerreceipt.DIDWeb(host)
}
