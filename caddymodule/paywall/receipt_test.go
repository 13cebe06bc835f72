package paywall

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2/caddytest"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/caddy-x402/caddy-x402/caddymodule/internal/testutil"
	"github.com/caddy-x402/caddy-x402/caddymodule/paywall/mcp"
	"github.com/caddy-x402/caddy-x402/facilitator/devnet"
	"github.com/caddy-x402/caddy-x402/facilitator/exact"
	"github.com/caddy-x402/caddy-x402/facilitator/offerreceipt"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// The receipt keys of the tests (issue 34): A signs, B takes over in the
// rotation test. Test keys only.
const (
	receiptKeyA = "0x6c1f0a3b54d0d5a1b9b8e3f6f4f1e2d3c4b5a69788796a5b4c3d2e1f0a1b2c3d"
	receiptKeyB = "0x1b2c3d4e5f60718293a4b5c6d7e8f90112233445566778899aabbccddeeff001"
)

// receiptPayTo is the seller of the receipt tests, paid by no other test.
const receiptPayTo = "0x0000000000000000000000000000000000ec3e34"

// receiptKey is a test receipt key with the DID URL the site publishes it under.
func receiptKey(t *testing.T, hexKey string) *offerreceipt.Key {
	t.Helper()
	k := testutil.BuyerKey(t, hexKey)
	addr := crypto.PubkeyToAddress(k.PublicKey)
	return offerreceipt.NewKey(k, siteDID()+"#"+offerreceipt.Fragment(addr))
}

// siteDID is the did:web of the test site, as a buyer addresses it.
func siteDID() string {
	return "did:web:localhost%3A" + fmt.Sprint(testutil.SitePort)
}

// didDocument fetches the site's /.well-known/did.json and reads its keys.
func didDocument(t *testing.T, tester *caddytest.Tester) (offerreceipt.Document, *offerreceipt.Keys) {
	t.Helper()
	resp, b := testutil.Get(t, tester, testutil.SiteURL+"/.well-known/did.json", nil)
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/did+json" {
		t.Fatalf("did.json: %d %q %s", resp.StatusCode, resp.Header.Get("Content-Type"), b)
	}
	var doc offerreceipt.Document
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	keys, err := offerreceipt.KeysOf(doc)
	if err != nil {
		t.Fatal(err)
	}
	return doc, keys
}

// checkDIDLists checks that the document lists exactly these keys, in
// order, each a JsonWebKey2020 with its address, in assertionMethod.
func checkDIDLists(t *testing.T, doc offerreceipt.Document, keys ...*offerreceipt.Key) {
	t.Helper()
	if doc.ID != siteDID() || len(doc.VerificationMethod) != len(keys) || len(doc.AssertionMethod) != len(keys) {
		t.Fatalf("did.json %+v, want id %s with %d keys", doc, siteDID(), len(keys))
	}
	for i, k := range keys {
		m := doc.VerificationMethod[i]
		if m.ID != k.KID() || m.Type != "JsonWebKey2020" || m.Controller != siteDID() || m.PublicKeyJwk == nil ||
			m.PublicKeyJwk.Crv != "secp256k1" || m.BlockchainAccountID != "eip155:1:"+k.Address().Hex() || doc.AssertionMethod[i] != k.KID() {
			t.Errorf("did.json key %d: %+v (assertionMethod %q), want %s with address %s", i, m, doc.AssertionMethod[i], k.KID(), k.Address().Hex())
		}
	}
}

// offersIn reads the signed offers of a 402's extensions.
func offersIn(t *testing.T, exts json.RawMessage) []offerreceipt.SignedOffer {
	t.Helper()
	var e map[string]struct {
		Info offerreceipt.OffersInfo `json:"info"`
	}
	if err := json.Unmarshal(exts, &e); err != nil {
		t.Fatalf("extensions %s: %v", exts, err)
	}
	return e[offerreceipt.Name].Info.Offers
}

// receiptIn reads the signed receipt of a settlement response (the
// Base64 JSON of PAYMENT-RESPONSE or X-PAYMENT-RESPONSE, or the JSON
// itself); ok false when it has none.
func receiptIn(t *testing.T, v string) (offerreceipt.ReceiptInfo, bool) {
	t.Helper()
	raw := []byte(v)
	if !strings.HasPrefix(v, "{") {
		var err error
		if raw, err = base64.StdEncoding.DecodeString(v); err != nil {
			t.Fatalf("settlement response %q: %v", v, err)
		}
	}
	var sr struct {
		Extensions map[string]struct {
			Info *offerreceipt.ReceiptInfo `json:"info"`
		} `json:"extensions"`
	}
	if err := json.Unmarshal(raw, &sr); err != nil {
		t.Fatalf("settlement response %s: %v", raw, err)
	}
	info := sr.Extensions[offerreceipt.Name].Info
	if info == nil {
		return offerreceipt.ReceiptInfo{}, false
	}
	return *info, true
}

// checkOffer verifies one signed offer and checks it against its accepts
// entry and resource, valid for maxTimeoutSeconds from a time in
// [from, to].
func checkOffer(t *testing.T, so offerreceipt.SignedOffer, keys *offerreceipt.Keys, f offerreceipt.Format, want offerreceipt.Requirement,
	resource string, from, to int64) offerreceipt.Offer {
	t.Helper()
	o, err := offerreceipt.VerifyOffer(so, keys)
	if err != nil {
		t.Fatalf("offer %+v does not verify: %v", so, err)
	}
	if so.Format != f || so.AcceptIndex == nil || *so.AcceptIndex != 0 {
		t.Errorf("offer format %q, acceptIndex %v; want %q, 0", so.Format, so.AcceptIndex, f)
	}
	if field := o.Matches(want); field != "" || o.ResourceURL != resource || o.Version != 1 {
		t.Errorf("offer %+v: differs in %q from %+v at %s", o, field, want, resource)
	}
	if o.ValidUntil < from+300 || o.ValidUntil > to+300 {
		t.Errorf("offer validUntil %d, want now + 300 (%d..%d)", o.ValidUntil, from+300, to+300)
	}
	return o
}

// checkReceipt verifies a receipt and checks what it says.
func checkReceipt(t *testing.T, info offerreceipt.ReceiptInfo, keys *offerreceipt.Keys, f offerreceipt.Format, want offerreceipt.Receipt, from, to int64) {
	t.Helper()
	r, err := offerreceipt.VerifyReceipt(info, keys)
	if err != nil {
		t.Fatalf("receipt %+v does not verify: %v", info, err)
	}
	if info.Receipt.Format != f || (f == offerreceipt.EIP712) != (info.Charge != nil) {
		t.Errorf("receipt format %q (charge beside it: %v), want %q", info.Receipt.Format, info.Charge != nil, f)
	}
	if r.IssuedAt < from || r.IssuedAt > to {
		t.Errorf("receipt issuedAt %d, want %d..%d", r.IssuedAt, from, to)
	}
	want.Version, want.IssuedAt = 1, r.IssuedAt
	if r.Charge == nil || want.Charge == nil || *r.Charge != *want.Charge || !strings.EqualFold(r.Payer, want.Payer) {
		t.Errorf("receipt charge %+v, want %+v", r.Charge, want.Charge)
	}
	r.Charge, want.Charge, r.Payer, want.Payer = nil, nil, "", ""
	if r != want {
		t.Errorf("receipt %+v, want %+v", r, want)
	}
}

// receiptSite is the Caddyfile of the exact routes of the receipt tests.
const receiptSite = `
:%[1]d {
	x402_path_guard
	handle /eip712 {
		x402 {
			pay_to %[2]s
			amount 21
			network eip155:338
			offer_receipt eip712
		}
		respond "paid content"
	}
	handle /jws {
		x402 {
			pay_to %[2]s
			amount 21
			network eip155:338
			offer_receipt jws
		}
		respond "paid content"
	}
	handle /notx {
		x402 {
			pay_to %[2]s
			amount 21
			network eip155:338
			offer_receipt jws
			receipt_transaction off
		}
		respond "paid content"
	}
	handle /after {
		x402 {
			pay_to %[2]s
			amount 21
			network eip155:338
			offer_receipt eip712
			settle after
		}
		respond "paid content"
	}
	handle /dyn {
		x402 {
			pay_to %[2]s
			amount {http.request.uri.query.units}
			network eip155:338
			offer_receipt jws
		}
		respond "paid content"
	}
	handle /plain {
		x402 {
			pay_to %[2]s
			amount 21
			network eip155:338
		}
		respond "paid content"
	}
}
`

// TestOfferReceiptExact: on exact routes with offer_receipt, the 402's
// offers (PAYMENT-REQUIRED and the version 1 body, EIP-712 and JWS)
// verify against the site's did.json and match their accepts entries
// field by field; a paid request's receipt verifies and names the payer,
// resource URL, network, transaction and the price charged, in
// PAYMENT-RESPONSE (settle before and after) and X-PAYMENT-RESPONSE
// (version 1); receipt_transaction off leaves the transaction out; the
// same payment id sent again answers the same receipt (kept with the
// record); a tampered receipt fails; a refused payment gets none; a price
// per request signs each request's own offer and charge; a route without
// offer_receipt signs nothing.
func TestOfferReceiptExact(t *testing.T) {
	t.Setenv("X402_TEST_RECEIPT_A", receiptKeyA)
	tester := testutil.NewTester(t, testutil.GlobalBlock("receipt_key {env.X402_TEST_RECEIPT_A}")+fmt.Sprintf(receiptSite, testutil.SitePort, receiptPayTo))
	doc, keys := didDocument(t, tester)
	keyA := receiptKey(t, receiptKeyA)
	checkDIDLists(t, doc, keyA)

	buyer := testutil.BuyerKey(t, devnet.Buyer2PrivateKey)
	payer := crypto.PubkeyToAddress(buyer.PublicKey).Hex()
	asset := devnet.TokenAddress.Hex()
	for _, tc := range []struct {
		path   string
		format offerreceipt.Format
		noTx   bool
	}{
		{"/eip712", offerreceipt.EIP712, false},
		{"/jws", offerreceipt.JWS, false},
		{"/notx", offerreceipt.JWS, true},
		{"/after", offerreceipt.EIP712, false},
	} {
		t.Run(tc.path, func(t *testing.T) {
			u := testutil.SiteURL + tc.path
			from := time.Now().Unix()
			o := offerV2(t, tester, u)
			to := time.Now().Unix()
			offers := offersIn(t, o.extensions)
			if len(offers) != 1 {
				t.Fatalf("402 offers %s, want one", o.extensions)
			}
			offer := checkOffer(t, offers[0], keys, tc.format, offerreceipt.Requirement{Scheme: "exact", Network: "eip155:338", Asset: asset, PayTo: receiptPayTo, Amount: "21"},
				u, from, to)
			if o.resource.URL != u || o.accepted.Amount != "21" || o.accepted.PayTo != receiptPayTo || o.accepted.Asset != asset {
				t.Errorf("402 resource %+v accepts %+v", o.resource, o.accepted)
			}

			// The version 1 body: its own accepts entry, in its strings.
			resp, b := testutil.Get(t, tester, u, nil)
			var body struct {
				Accepts    []x402.PaymentRequirements `json:"accepts"`
				Extensions json.RawMessage            `json:"extensions"`
			}
			if err := json.Unmarshal(b, &body); err != nil || resp.StatusCode != http.StatusPaymentRequired || len(body.Accepts) != 1 {
				t.Fatalf("version 1 402: %d %s", resp.StatusCode, b)
			}
			v1Offers := offersIn(t, body.Extensions)
			if len(v1Offers) != 1 {
				t.Fatalf("version 1 402 offers %s, want one", body.Extensions)
			}
			v1Offer := checkOffer(t, v1Offers[0], keys, tc.format, offerreceipt.Requirement{Scheme: "exact", Network: "cronos-testnet", Asset: asset, PayTo: receiptPayTo, Amount: "21"},
				u, from, time.Now().Unix())
			if a := body.Accepts[0]; v1Offer.Matches(offerreceipt.Requirement{Scheme: a.Scheme, Network: a.Network, Asset: a.Asset, PayTo: a.PayTo, Amount: a.MaxAmountRequired}) != "" {
				t.Errorf("version 1 offer %+v does not match its accepts entry %+v", v1Offer, a)
			}

			// Paid (version 2, with a payment id): the receipt.
			id := "receipt-" + strings.TrimPrefix(tc.path, "/") + fmt.Sprint(time.Now().UnixNano())
			pay := payWithID(t, buyer, o, id, nil)
			sellerBefore := testutil.Balance(t, receiptPayTo)
			from = time.Now().Unix()
			resp, b = testutil.Get(t, tester, u, map[string]string{x402.HeaderPaymentSignature: pay})
			to = time.Now().Unix()
			if resp.StatusCode != http.StatusOK || string(b) != "paid content" {
				t.Fatalf("paid: %d %s", resp.StatusCode, b)
			}
			testutil.AssertDelta(t, "seller", sellerBefore, testutil.Balance(t, receiptPayTo), 21)
			var rs x402.ReferenceSettleResponse
			if err := x402.DecodeBase64JSON(resp.Header.Get(x402.HeaderPaymentResponseV2), &rs); err != nil || !rs.Success || rs.Transaction == "" {
				t.Fatalf("PAYMENT-RESPONSE %+v %v", rs, err)
			}
			info, ok := receiptIn(t, resp.Header.Get(x402.HeaderPaymentResponseV2))
			if !ok {
				t.Fatalf("PAYMENT-RESPONSE has no receipt: %s", resp.Header.Get(x402.HeaderPaymentResponseV2))
			}
			want := offerreceipt.Receipt{Network: "eip155:338", ResourceURL: u, Payer: payer, Transaction: rs.Transaction,
				Charge: &offerreceipt.Charge{Scheme: "exact", Asset: asset, PayTo: receiptPayTo, Amount: "21"}}
			if tc.noTx {
				want.Transaction = ""
			}
			checkReceipt(t, info, keys, tc.format, want, from, to)
			r, _ := offerreceipt.VerifyReceipt(info, keys)
			if why := r.MatchesOffer(offer, payer); why != "" {
				t.Errorf("the receipt does not match the offer: %s", why)
			}

			// The same payment id and payload again: 409, the same receipt
			// (from the record), nothing charged.
			sellerBefore = testutil.Balance(t, receiptPayTo)
			resp, b = testutil.Get(t, tester, u, map[string]string{x402.HeaderPaymentSignature: pay})
			var again paymentIDAnswer
			_ = json.Unmarshal(b, &again)
			if resp.StatusCode != http.StatusConflict || again.Error != textPaymentIDDelivered || again.TxHash != rs.Transaction {
				t.Fatalf("the payment id again: %d %s", resp.StatusCode, b)
			}
			kept, ok := receiptIn(t, string(b))
			if !ok {
				t.Fatalf("the look-up by payment id has no receipt: %s", b)
			}
			if k, _ := json.Marshal(kept); string(k) != string(mustJSON(t, info)) {
				t.Errorf("the look-up's receipt %s, want the paid answer's %s", k, mustJSON(t, info))
			}
			testutil.AssertDelta(t, "seller", sellerBefore, testutil.Balance(t, receiptPayTo), 0)

			// Tampered: the charge's amount (EIP-712) or the JWS payload.
			bad := info
			if tc.format == offerreceipt.EIP712 {
				c := *info.Charge
				c.Payload.Amount = "1"
				bad.Charge = &c
			} else {
				parts := strings.Split(info.Receipt.Signature, ".")
				payload, _ := base64.RawURLEncoding.DecodeString(parts[1])
				parts[1] = base64.RawURLEncoding.EncodeToString([]byte(strings.Replace(string(payload), `"amount":"21"`, `"amount":"1"`, 1)))
				bad.Receipt.Signature = strings.Join(parts, ".")
			}
			if _, err := offerreceipt.VerifyReceipt(bad, keys); err == nil {
				t.Errorf("a tampered receipt verifies: %+v", bad)
			}

			// Version 1 (X-PAYMENT): the receipt names the network as the
			// version 1 offer does.
			from = time.Now().Unix()
			resp, b = testutil.Get(t, tester, u, map[string]string{"X-PAYMENT": testutil.Pay(t, buyer, body.Accepts[0])})
			to = time.Now().Unix()
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("version 1 paid: %d %s", resp.StatusCode, b)
			}
			var v1 paymentResponse
			raw, _ := base64.StdEncoding.DecodeString(resp.Header.Get("X-PAYMENT-RESPONSE"))
			if err := json.Unmarshal(raw, &v1); err != nil || !v1.Success {
				t.Fatalf("X-PAYMENT-RESPONSE %s", raw)
			}
			info, ok = receiptIn(t, string(raw))
			if !ok {
				t.Fatalf("X-PAYMENT-RESPONSE has no receipt: %s", raw)
			}
			want.Network, want.Transaction = "cronos-testnet", v1.Transaction
			if tc.noTx {
				want.Transaction = ""
			}
			checkReceipt(t, info, keys, tc.format, want, from, to)
			r, _ = offerreceipt.VerifyReceipt(info, keys)
			if why := r.MatchesOffer(v1Offer, payer); why != "" {
				t.Errorf("the version 1 receipt does not match the version 1 offer: %s", why)
			}

			// Refused (an authorization for less than the price): 402, no
			// receipt, nothing charged.
			short := o
			short.accepted.Amount = "20"
			header, _, err := exact.CreatePaymentV2(buyer, short.accepted, o.resource, exact.PaymentOptions{})
			if err != nil {
				t.Fatal(err)
			}
			sellerBefore = testutil.Balance(t, receiptPayTo)
			resp, b = testutil.Get(t, tester, u, map[string]string{x402.HeaderPaymentSignature: header})
			if resp.StatusCode != http.StatusPaymentRequired {
				t.Fatalf("an authorization for less: %d %s", resp.StatusCode, b)
			}
			if v := resp.Header.Get(x402.HeaderPaymentResponseV2); v != "" {
				if _, ok := receiptIn(t, v); ok {
					t.Errorf("a refused payment got a receipt: %s", v)
				}
			}
			testutil.AssertDelta(t, "seller", sellerBefore, testutil.Balance(t, receiptPayTo), 0)
		})
	}

	// A price per request: each request's offer is its own price, and so
	// is its receipt's charge.
	for _, units := range []string{"33", "34"} {
		u := testutil.SiteURL + "/dyn?units=" + units
		from := time.Now().Unix()
		o := offerV2(t, tester, u)
		offers := offersIn(t, o.extensions)
		if len(offers) != 1 || o.accepted.Amount != units {
			t.Fatalf("%s: accepts %+v, offers %s", u, o.accepted, o.extensions)
		}
		offer := checkOffer(t, offers[0], keys, offerreceipt.JWS, offerreceipt.Requirement{Scheme: "exact", Network: "eip155:338", Asset: asset, PayTo: receiptPayTo, Amount: units},
			u, from, time.Now().Unix())
		resp, b := testutil.Get(t, tester, u, map[string]string{x402.HeaderPaymentSignature: payWithID(t, buyer, o, "", nil)})
		to := time.Now().Unix()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%s paid: %d %s", u, resp.StatusCode, b)
		}
		var rs x402.ReferenceSettleResponse
		_ = x402.DecodeBase64JSON(resp.Header.Get(x402.HeaderPaymentResponseV2), &rs)
		info, ok := receiptIn(t, resp.Header.Get(x402.HeaderPaymentResponseV2))
		if !ok {
			t.Fatalf("%s: no receipt", u)
		}
		checkReceipt(t, info, keys, offerreceipt.JWS, offerreceipt.Receipt{Network: "eip155:338", ResourceURL: u, Payer: payer, Transaction: rs.Transaction,
			Charge: &offerreceipt.Charge{Scheme: "exact", Asset: asset, PayTo: receiptPayTo, Amount: units}}, from, to)
		r, _ := offerreceipt.VerifyReceipt(info, keys)
		if why := r.MatchesOffer(offer, payer); why != "" {
			t.Errorf("%s: the receipt does not match the offer: %s", u, why)
		}
	}

	// A route without offer_receipt signs nothing.
	o := offerV2(t, tester, testutil.SiteURL+"/plain")
	if len(o.extensions) > 0 && strings.Contains(string(o.extensions), offerreceipt.Name) {
		t.Errorf("/plain's 402 carries offers: %s", o.extensions)
	}
	resp, b := testutil.Get(t, tester, testutil.SiteURL+"/plain", map[string]string{x402.HeaderPaymentSignature: payWithID(t, buyer, o, "", nil)})
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("/plain paid: %d %s", resp.StatusCode, b)
	}
	if _, ok := receiptIn(t, resp.Header.Get(x402.HeaderPaymentResponseV2)); ok {
		t.Errorf("/plain's answer carries a receipt")
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestOfferReceiptRotation: with two receipt keys the first signs and
// both are in did.json; after a reload that puts a new key first, a
// receipt the old key signed still verifies against the site's
// did.json, and new offers are signed by the new key.
func TestOfferReceiptRotation(t *testing.T) {
	t.Setenv("X402_TEST_RECEIPT_A", receiptKeyA)
	t.Setenv("X402_TEST_RECEIPT_B", receiptKeyB)
	keyA, keyB := receiptKey(t, receiptKeyA), receiptKey(t, receiptKeyB)
	site := fmt.Sprintf(receiptSite, testutil.SitePort, receiptPayTo)
	tester := testutil.NewTester(t, testutil.GlobalBlock("receipt_key {env.X402_TEST_RECEIPT_A}")+site)
	doc, _ := didDocument(t, tester)
	checkDIDLists(t, doc, keyA)

	buyer := testutil.BuyerKey(t, devnet.Buyer2PrivateKey)
	u := testutil.SiteURL + "/jws"
	o := offerV2(t, tester, u)
	resp, b := testutil.Get(t, tester, u, map[string]string{x402.HeaderPaymentSignature: payWithID(t, buyer, o, "", nil)})
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("paid: %d %s", resp.StatusCode, b)
	}
	old, ok := receiptIn(t, resp.Header.Get(x402.HeaderPaymentResponseV2))
	if !ok {
		t.Fatal("no receipt")
	}

	// Rotated: B signs, A is retired and still published.
	testutil.LoadConfig(t, testutil.GlobalBlock("receipt_key {env.X402_TEST_RECEIPT_B}\n\t\treceipt_key {env.X402_TEST_RECEIPT_A}")+site)
	doc, keys := didDocument(t, tester)
	checkDIDLists(t, doc, keyB, keyA)
	if _, err := offerreceipt.VerifyReceipt(old, keys); err != nil {
		t.Errorf("a receipt of the retired key does not verify after the rotation: %v", err)
	}
	offers := offersIn(t, offerV2(t, tester, u).extensions)
	if len(offers) != 1 {
		t.Fatalf("offers after the rotation: %+v", offers)
	}
	if _, err := offerreceipt.VerifyOffer(offers[0], offerreceipt.KeysFor(keyB)); err != nil {
		t.Errorf("an offer after the rotation is not signed by the new key: %v", err)
	}
	if _, err := offerreceipt.VerifyOffer(offers[0], offerreceipt.KeysFor(keyA)); err == nil {
		t.Errorf("an offer after the rotation verifies with the retired key alone")
	}
}

// TestOfferReceiptConfig: offer_receipt needs a receipt key in the app; a
// receipt key is a placeholder only; the options take their words only.
func TestOfferReceiptConfig(t *testing.T) {
	for _, tc := range []struct {
		global, route, want string
	}{
		{"", "offer_receipt eip712", errNoReceiptKey.Error()},
		{"receipt_key 0x" + strings.Repeat("ab", 32), "", "receipt_key must be a placeholder, {env.NAME} or {file.PATH}, not the key itself"},
		{"receipt_key {env.X402_TEST_RECEIPT_A}", "offer_receipt rsa", "x402: offer_receipt takes eip712 or jws, got"},
		{"receipt_key {env.X402_TEST_RECEIPT_A}", "offer_receipt jws\n\t\treceipt_transaction maybe", "x402: receipt_transaction takes on or off, got"},
		{"receipt_key {env.X402_TEST_RECEIPT_A}", "receipt_transaction off", "x402: receipt_transaction off is set but the route signs no receipts: add offer_receipt eip712 (or jws)"},
		{"receipt_key {env.X402_TEST_RECEIPT_UNSET}", "offer_receipt jws", "receipt_key {env.X402_TEST_RECEIPT_UNSET} is empty or cannot be resolved; set it to a secp256k1 private key in hex"},
		{"receipt_did example.com\n\t\treceipt_key {env.X402_TEST_RECEIPT_A}", "", "is not a did:web identifier such as did:web:api.example.com"},
	} {
		t.Run(tc.want, func(t *testing.T) {
			t.Setenv("X402_TEST_RECEIPT_A", receiptKeyA)
			testutil.AssertLoadError(t, testutil.GlobalBlock(tc.global)+fmt.Sprintf(`
:%d {
	x402 {
		pay_to %s
		amount 21
		network eip155:338
		%s
	}
	respond "paid content"
}
`, testutil.SitePort, receiptPayTo, tc.route), "caddyfile", tc.want)
		})
	}
}

// receiptUptoSite is the Caddyfile of the metered routes of the receipt
// tests: upto, settle before and after, and channels with and without a
// meter.
const receiptUptoSite = `
:%[1]d {
	x402_path_guard
	handle_path /before/* {
		x402 {
			pay_to %[2]s
			price 0.01
			scheme upto
			meter json usage.total_tokens 0.000002
			offer_receipt eip712
		}
		reverse_proxy %[3]s
	}
	handle_path /after/* {
		x402 {
			pay_to %[2]s
			price 0.01
			scheme upto
			meter json usage.total_tokens 0.000002
			settle after
			offer_receipt jws
		}
		reverse_proxy %[3]s
	}
	handle_path /m/* {
		x402 {
			pay_to %[4]s
			amount 10000
			scheme batch-settlement
			meter json usage.total_tokens 2
			offer_receipt eip712
		}
		reverse_proxy %[3]s
	}
	handle_path /nometer/* {
		x402 {
			pay_to %[4]s
			amount 10000
			scheme batch-settlement
			offer_receipt jws
		}
		reverse_proxy %[3]s
	}
}
`

// receiptChannelPayTo is the channel seller of the receipt tests.
const receiptChannelPayTo = "0x0000000000000000000000000000000000ec4e34"

// TestOfferReceiptMetered: an upto receipt signs the metered charge (not
// the maximum), the maximum authorized and the meter's reading, settle
// before (in PAYMENT-RESPONSE) and after (in its trailer); a channel
// voucher's receipt signs the channel, the request's charge, the
// channel's charged cumulative and no transaction, metered or not (a
// deposit's names the deposit's transaction); an error answer, charged
// nothing, gets no receipt.
func TestOfferReceiptMetered(t *testing.T) {
	t.Setenv("X402_TEST_RECEIPT_A", receiptKeyA)
	release := make(chan struct{})
	close(release)
	up := meteredUpstream(t, release)
	tester := testutil.NewTester(t, testutil.GlobalBlock("receipt_key {env.X402_TEST_RECEIPT_A}")+
		fmt.Sprintf(receiptUptoSite, testutil.SitePort, receiptPayTo, up.Listener.Addr(), receiptChannelPayTo))
	_, keys := didDocument(t, tester)
	asset := devnet.TokenAddress.Hex()

	// Buyer 4, whom TestUptoPayCommand approves too: buyer 5 must stay
	// without a Permit2 allowance for its "without allowance" case.
	buyer := testutil.BuyerKey(t, devnet.Buyer4PrivateKey)
	payer := crypto.PubkeyToAddress(buyer.PublicKey).Hex()
	approvePermit2(t, buyer)
	for _, tc := range []struct {
		name, path string
		format     offerreceipt.Format
		charge     int64
		usage      string
	}{
		{"upto settle before, meter", "/before/json?tokens=1234", offerreceipt.EIP712, 2468, "usage.total_tokens=1234"},
		{"upto settle before, header", "/before/header?o=" + url.QueryEscape(`{"amount":"777"}`), offerreceipt.EIP712, 777, ""},
		{"upto settle after, meter", "/after/json?tokens=100", offerreceipt.JWS, 200, "usage.total_tokens=100"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u := testutil.SiteURL + tc.path
			from := time.Now().Unix()
			resp, b := testutil.Get(t, tester, u, nil)
			to := time.Now().Unix()
			var pr x402.PaymentRequiredV2
			if err := x402.DecodeBase64JSON(resp.Header.Get(x402.HeaderPaymentRequired), &pr); err != nil || resp.StatusCode != http.StatusPaymentRequired {
				t.Fatalf("unpaid: %d %s", resp.StatusCode, b)
			}
			exts, _ := json.Marshal(pr.Extensions)
			offers := offersIn(t, exts)
			if len(offers) != 1 {
				t.Fatalf("offers %s", exts)
			}
			offer := checkOffer(t, offers[0], keys, tc.format, offerreceipt.Requirement{Scheme: "upto", Network: "eip155:338", Asset: asset, PayTo: receiptPayTo, Amount: "10000"},
				u, from, to)
			pay := payUpto(t, tester, buyer, u)
			before := testutil.Balance(t, payer)
			from = time.Now().Unix()
			resp, b = testutil.Get(t, tester, u, map[string]string{x402.HeaderPaymentSignature: pay})
			to = time.Now().Unix()
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("paid: %d %s", resp.StatusCode, b)
			}
			testutil.AssertDelta(t, "buyer", before, testutil.Balance(t, payer), -tc.charge)
			v := resp.Header.Get(x402.HeaderPaymentResponseV2)
			if strings.HasPrefix(tc.path, "/after/") {
				v = resp.Trailer.Get(x402.HeaderPaymentResponseV2)
			}
			var rs x402.ReferenceSettleResponse
			if err := x402.DecodeBase64JSON(v, &rs); err != nil || !rs.Success || rs.Amount != fmt.Sprint(tc.charge) {
				t.Fatalf("settlement %+v %v", rs, err)
			}
			info, ok := receiptIn(t, v)
			if !ok {
				t.Fatalf("no receipt in %s", v)
			}
			checkReceipt(t, info, keys, tc.format, offerreceipt.Receipt{Network: "eip155:338", ResourceURL: u, Payer: payer, Transaction: rs.Transaction,
				Charge: &offerreceipt.Charge{Scheme: "upto", Asset: asset, PayTo: receiptPayTo, Amount: fmt.Sprint(tc.charge), MaxAmount: "10000", Usage: tc.usage}}, from, to)
			r, _ := offerreceipt.VerifyReceipt(info, keys)
			if why := r.MatchesOffer(offer, payer); why != "" {
				t.Errorf("the receipt does not match the offer: %s", why)
			}
		})
	}
	t.Run("upto error answer", func(t *testing.T) {
		u := testutil.SiteURL + "/before/error"
		resp, b := testutil.Get(t, tester, u, map[string]string{x402.HeaderPaymentSignature: payUpto(t, tester, buyer, u)})
		if resp.StatusCode != http.StatusBadGateway || resp.Header.Get(x402.HeaderPaymentResponseV2) != "" {
			t.Errorf("an error answer: %d %q %s", resp.StatusCode, resp.Header.Get(x402.HeaderPaymentResponseV2), b)
		}
	})

	// Channels: a deposit, then vouchers, metered and not.
	cb := newChannelBuyer(t, tester, devnet.Buyer5PrivateKey, testutil.SiteURL+"/m/json", time.Now().UnixNano())
	chPayer := crypto.PubkeyToAddress(cb.key.PublicKey).Hex()
	cumulative := int64(0)
	for _, tc := range []struct {
		name, path string
		format     offerreceipt.Format
		deposit    bool
		status     int
		charge     int64
		usage      string
	}{
		{"deposit, metered", "/m/json?tokens=100", offerreceipt.EIP712, true, 200, 200, "usage.total_tokens=100"},
		{"voucher, metered", "/m/json?tokens=1234", offerreceipt.EIP712, false, 200, 2468, "usage.total_tokens=1234"},
		{"voucher, not metered", "/nometer/plain", offerreceipt.JWS, false, 200, 10000, ""},
		{"voucher, error answer", "/m/error", offerreceipt.EIP712, false, http.StatusBadGateway, 0, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u := testutil.SiteURL + tc.path
			payload := cb.voucher(t, cb.key, cumulative+10000)
			if tc.deposit {
				payload = cb.deposit(t, 100000, 10000)
			}
			from := time.Now().Unix()
			resp, b := testutil.Get(t, tester, u, map[string]string{x402.HeaderPaymentSignature: cb.header(t, payload)})
			to := time.Now().Unix()
			if resp.StatusCode != tc.status {
				t.Fatalf("%d %s, want %d", resp.StatusCode, b, tc.status)
			}
			v := resp.Header.Get(x402.HeaderPaymentResponseV2)
			rc := channelReceiptOf(t, v)
			cumulative += tc.charge
			if rc.charged != fmt.Sprint(tc.charge) || rc.snapshot != fmt.Sprint(cumulative) || tc.deposit != (rc.transaction != "") {
				t.Fatalf("channel answer %+v, want charged %d, cumulative %d", rc, tc.charge, cumulative)
			}
			info, ok := receiptIn(t, v)
			if tc.status >= 400 {
				if ok {
					t.Errorf("an error answer, charged nothing, got a receipt: %+v", info)
				}
				return
			}
			if !ok {
				t.Fatalf("no receipt in %s", v)
			}
			checkReceipt(t, info, keys, tc.format, offerreceipt.Receipt{Network: "eip155:338", ResourceURL: u, Payer: chPayer, Transaction: rc.transaction,
				Charge: &offerreceipt.Charge{Scheme: "batch-settlement", Asset: asset, PayTo: receiptChannelPayTo, Amount: fmt.Sprint(tc.charge), MaxAmount: "10000",
					Usage: tc.usage, Channel: strings.ToLower(cb.id.Hex()), ChargedCumulative: fmt.Sprint(cumulative)}}, from, to)
		})
	}

	// The corrective 402 (a voucher signed from the wrong cumulative)
	// carries signed offers too, of its accepts entry.
	t.Run("corrective 402", func(t *testing.T) {
		u := testutil.SiteURL + "/m/json"
		from := time.Now().Unix()
		resp, b := testutil.Get(t, tester, u, map[string]string{x402.HeaderPaymentSignature: cb.header(t, cb.voucher(t, cb.key, cumulative+10000+10000))})
		to := time.Now().Unix()
		var pr x402.PaymentRequiredV2
		_ = x402.DecodeBase64JSON(resp.Header.Get(x402.HeaderPaymentRequired), &pr)
		if resp.StatusCode != http.StatusPaymentRequired || pr.Error != reasonCumulativeMismatch || len(pr.Accepts) != 1 {
			t.Fatalf("a voucher from the wrong cumulative: %d %+v %s", resp.StatusCode, pr, b)
		}
		exts, _ := json.Marshal(pr.Extensions)
		offers := offersIn(t, exts)
		if len(offers) != 1 {
			t.Fatalf("the corrective 402's offers: %s", exts)
		}
		a := pr.Accepts[0]
		checkOffer(t, offers[0], keys, offerreceipt.EIP712, offerreceipt.Requirement{Scheme: a.Scheme, Network: a.Network, Asset: a.Asset, PayTo: a.PayTo, Amount: a.Amount},
			u, from, to)
	})
}

// TestOfferReceiptMCP: an MCP tool's PaymentRequired result carries its
// signed offer, and a paid call's _meta["x402/payment-response"] its
// receipt, for the tool's resource (mcp://tool/<name>).
func TestOfferReceiptMCP(t *testing.T) {
	t.Setenv("X402_TEST_RECEIPT_A", receiptKeyA)
	_, up := newMCPServer(t)
	tester := testutil.NewTester(t, testutil.GlobalBlock("receipt_key {env.X402_TEST_RECEIPT_A}")+fmt.Sprintf(`
:%d {
	x402 {
		pay_to %s
		network eip155:338
		mcp_tool weather 0.01
		offer_receipt jws
	}
	reverse_proxy %s
}
`, testutil.SitePort, receiptPayTo, up.Listener.Addr()))
	_, keys := didDocument(t, tester)
	buyer := devnet.Buyer2PrivateKey
	payer := crypto.PubkeyToAddress(testutil.BuyerKey(t, buyer).PublicKey).Hex()
	u := testutil.SiteURL + "/mcp"

	from := time.Now().Unix()
	resp, raw, m := mcpPost(t, tester, u, toolCall(1, "weather", `{"city":"Oslo"}`, ""), nil)
	to := time.Now().Unix()
	r := resultOf(t, m, raw)
	var pr struct {
		x402.PaymentRequiredV2
		Extensions json.RawMessage `json:"extensions"`
	}
	if err := json.Unmarshal(r.StructuredContent, &pr); err != nil || resp.StatusCode != http.StatusOK || !r.IsError || len(pr.Accepts) != 1 {
		t.Fatalf("unpaid call: %d %s", resp.StatusCode, raw)
	}
	offers := offersIn(t, pr.Extensions)
	if len(offers) != 1 {
		t.Fatalf("offers %s", pr.Extensions)
	}
	a := pr.Accepts[0]
	offer := checkOffer(t, offers[0], keys, offerreceipt.JWS, offerreceipt.Requirement{Scheme: a.Scheme, Network: a.Network, Asset: a.Asset, PayTo: a.PayTo, Amount: a.Amount},
		"mcp://tool/weather", from, to)
	if a.Amount != "10000" || a.PayTo != receiptPayTo {
		t.Errorf("accepts %+v", a)
	}

	from = time.Now().Unix()
	resp, raw, m = mcpPost(t, tester, u, toolCall(2, "weather", `{"city":"Oslo"}`, `{"x402/payment":`+mcpPay(t, pr.PaymentRequiredV2, buyer)+`}`), nil)
	to = time.Now().Unix()
	r = resultOf(t, m, raw)
	if resp.StatusCode != http.StatusOK || r.IsError {
		t.Fatalf("paid call: %d %s", resp.StatusCode, raw)
	}
	var rs x402.ReferenceSettleResponse
	if err := json.Unmarshal(r.Meta[mcp.MetaPaymentResponse], &rs); err != nil || !rs.Success || rs.Transaction == "" {
		t.Fatalf("_meta[x402/payment-response] %s", r.Meta[mcp.MetaPaymentResponse])
	}
	info, ok := receiptIn(t, string(r.Meta[mcp.MetaPaymentResponse]))
	if !ok {
		t.Fatalf("no receipt in %s", r.Meta[mcp.MetaPaymentResponse])
	}
	checkReceipt(t, info, keys, offerreceipt.JWS, offerreceipt.Receipt{Network: "eip155:338", ResourceURL: "mcp://tool/weather", Payer: payer, Transaction: rs.Transaction,
		Charge: &offerreceipt.Charge{Scheme: "exact", Asset: a.Asset, PayTo: receiptPayTo, Amount: "10000"}}, from, to)
	rc, _ := offerreceipt.VerifyReceipt(info, keys)
	if why := rc.MatchesOffer(offer, payer); why != "" {
		t.Errorf("the receipt does not match the offer: %s", why)
	}
}
