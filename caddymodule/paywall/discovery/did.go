package discovery

import (
	"encoding/json"
	"net/http"

	"github.com/caddyserver/caddy/v2"

	"github.com/caddy-x402/caddy-x402/caddymodule/app"
	"github.com/caddy-x402/caddy-x402/facilitator/offerreceipt"
)

// GET /.well-known/did.json (issue 34): the did:web document that
// publishes the x402 app's receipt keys (receipt_key), answered where
// /.well-known/x402.json is (by the x402 handler and x402_path_guard)
// when a receipt key is configured. A verifier of a signed offer or
// receipt resolves the JWS kid's DID (did:web:<host>%3A<port>) here; each
// key is listed with its Ethereum address for EIP-712 verifiers. The first
// key signs; retired keys stay listed so that what they signed verifies.

// didPath is the site's did:web document.
const didPath = "/.well-known/did.json"

// receiptsApp is the running x402 app when it has receipt keys, else nil.
func receiptsApp() *app.App {
	appIface, err := caddy.ActiveContext().AppIfConfigured("x402")
	if err != nil {
		return nil
	}
	if a, _ := appIface.(*app.App); a.Receipts() {
		return a
	}
	return nil
}

// ServeDID answers GET /.well-known/did.json when the x402 app has receipt
// keys (another method: answerMethod); false when r is another request or
// there are none.
func ServeDID(w http.ResponseWriter, r *http.Request) (bool, error) {
	if r.URL.Path != didPath {
		return false, nil
	}
	a := receiptsApp()
	if a == nil {
		return false, nil
	}
	if !readOnly(r) {
		return true, answerMethod(w, r)
	}
	keys := a.ReceiptKeysFor(r.Host)
	body, err := json.Marshal(offerreceipt.DIDDocument(a.ReceiptDIDOf(r.Host), keys))
	if err != nil {
		return true, err
	}
	body = append(body, '\n')
	return true, writeAnswer(w, r, http.StatusOK, "application/did+json", "max-age=60", body)
}
