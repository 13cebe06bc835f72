package x402cmd

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/caddy-x402/caddy-x402/facilitator/evm"
	"github.com/caddy-x402/caddy-x402/facilitator/offerreceipt"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// A fake seller signing offers and receipts with the offerreceipt library,
// to test what "caddy x402 pay" makes of each way they can be wrong (the
// real seller is tested in the paywall package, TestPayOfferReceipt*: it
// signs only right ones). It serves its did:web document at
// /.well-known/did.json.
type offerSeller struct {
	srv     *httptest.Server
	key     *offerreceipt.Key
	format  offerreceipt.Format
	accepts []x402.RequirementsV2
	offer   func(o *offerreceipt.Offer)      // edits the offer before it is signed
	edit402 func(pr *x402.PaymentRequiredV2) // edits the 402 after the offers are signed
	receipt func(r *offerreceipt.Receipt)    // edits the receipt before it is signed
	// doc is the did.json the seller serves; nil: its key's DID document.
	doc      func() offerreceipt.Document
	payments int
}

const offerSellerKey = "8da4ef21b864d2cc526dbdb2a120bd2874c36c9d0a1fb7f8c63d7f7a8b41de8f" // TEST-ONLY

func newOfferSeller(t *testing.T, f offerreceipt.Format) *offerSeller {
	t.Helper()
	s := &offerSeller{format: f}
	base := testReqs
	base.Extra = &x402.DomainInfo{Name: "Bridged USDC (Stargate)", Version: "1"}
	s.accepts = []x402.RequirementsV2{base.V2("eip155:338")}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.srv.Close)
	priv, _ := crypto.HexToECDSA(offerSellerKey)
	did := offerreceipt.DIDWeb(strings.TrimPrefix(s.srv.URL, "http://"))
	s.key = offerreceipt.NewKey(priv, offerreceipt.KIDFor(did, crypto.PubkeyToAddress(priv.PublicKey)))
	return s
}

func (s *offerSeller) serve(w http.ResponseWriter, r *http.Request) {
	did, _, _ := strings.Cut(s.key.KID(), "#")
	if r.URL.Path == "/.well-known/did.json" {
		if s.doc != nil {
			json.NewEncoder(w).Encode(s.doc())
			return
		}
		json.NewEncoder(w).Encode(offerreceipt.DIDDocument(did, []*offerreceipt.Key{s.key}))
		return
	}
	resource := s.srv.URL + r.URL.Path
	if r.Header.Get(x402.HeaderPaymentSignature) == "" {
		pr := x402.PaymentRequiredV2{X402Version: 2, Resource: &x402.ResourceInfo{URL: resource}, Accepts: s.accepts}
		var offers []offerreceipt.SignedOffer
		for i, a := range s.accepts {
			o := offerreceipt.Offer{ResourceURL: resource, Scheme: a.Scheme, Network: a.Network, Asset: a.Asset, PayTo: a.PayTo,
				Amount: a.Amount, ValidUntil: time.Now().Add(time.Minute).Unix()}
			if s.offer != nil {
				s.offer(&o)
			}
			so, err := s.key.SignOffer(s.format, i, o)
			if err != nil {
				panic(err)
			}
			offers = append(offers, so)
		}
		pr.Extensions = map[string]any{offerreceipt.Name: map[string]any{"info": offerreceipt.OffersInfo{Offers: offers}}}
		if s.edit402 != nil {
			s.edit402(&pr)
		}
		h, _ := x402.EncodeBase64JSON(pr)
		w.Header().Set(x402.HeaderPaymentRequired, h)
		w.WriteHeader(http.StatusPaymentRequired)
		w.Write([]byte("{}"))
		return
	}
	s.payments++
	var p x402.PaymentPayloadV2
	_ = x402.DecodeBase64JSON(r.Header.Get(x402.HeaderPaymentSignature), &p)
	payer, _ := evm.ParseKey(testBuyerKey)
	rc := offerreceipt.Receipt{Network: "eip155:338", ResourceURL: resource, Payer: crypto.PubkeyToAddress(payer.PublicKey).Hex(),
		IssuedAt: time.Now().Unix(), Transaction: "0xabc",
		Charge: &offerreceipt.Charge{Scheme: "exact", Asset: testReqs.Asset, PayTo: testReqs.PayTo, Amount: "10000"}}
	if s.receipt != nil {
		s.receipt(&rc)
	}
	info, err := s.key.SignReceipt(s.format, rc)
	if err != nil {
		panic(err)
	}
	sr := map[string]any{"success": true, "transaction": "0xabc", "network": "eip155:338",
		"extensions": map[string]any{offerreceipt.Name: map[string]any{"info": info}}}
	h, _ := x402.EncodeBase64JSON(sr)
	w.Header().Set(x402.HeaderPaymentResponseV2, h)
	w.Write([]byte("paid content"))
}

// TestPayOfferReceipt: "caddy x402 pay" pays a signed offer that verifies
// and prints its receipt; it refuses an offer that does not verify (no
// payment sent) with the reason, unless --insecure-offers; a receipt that
// does not verify is an error after the content is printed.
func TestPayOfferReceipt(t *testing.T) {
	buyer, _ := evm.ParseKey(testBuyerKey)
	payer := crypto.PubkeyToAddress(buyer.PublicKey).Hex()
	attacker := "0x00000000000000000000000000000000000BAD00"
	for _, f := range []offerreceipt.Format{offerreceipt.JWS, offerreceipt.EIP712} {
		for _, tc := range []struct {
			name     string
			setup    func(s *offerSeller)
			insecure bool
			wantErr  string // "{key}", "{url}" replaced
			paid     bool
			stderr   []string
		}{
			{name: "good", paid: true, stderr: []string{"x402: offer verified (signed by {did}): exact 10000 of " + testReqs.Asset + " on eip155:338 to " + testReqs.PayTo + " for {url}/r, valid until ",
				"x402: receipt verified (" + string(f) + ", signed by {did}):\n  payer        " + payer + "\n  resource     {url}/r\n  network      eip155:338\n  transaction  0xabc\n",
				"  charged      10000 smallest units\n"}},
			{name: "payTo of the 402 changed", setup: func(s *offerSeller) {
				s.edit402 = func(pr *x402.PaymentRequiredV2) { pr.Accepts[0].PayTo = attacker }
			}, wantErr: `refusing to pay: the seller's signed offer for accepts entry 0 does not verify: its payTo "` + testReqs.PayTo + `" is not the 402's "` + attacker + `" (--insecure-offers pays it anyway)`},
			{name: "payTo changed in 402 and offer", setup: func(s *offerSeller) {
				s.edit402 = func(pr *x402.PaymentRequiredV2) {
					pr.Accepts[0].PayTo = attacker
					info := pr.Extensions[offerreceipt.Name].(map[string]any)["info"].(offerreceipt.OffersInfo)
					so := info.Offers[0]
					if so.Format == offerreceipt.EIP712 {
						p := *so.Payload
						p.PayTo = attacker
						so.Payload = &p
					} else {
						parts := strings.Split(so.Signature, ".")
						body, _ := b64url(parts[1])
						parts[1] = b64urlEnc(strings.Replace(string(body), testReqs.PayTo, attacker, 1))
						so.Signature = strings.Join(parts, ".")
					}
					info.Offers[0] = so
				}
			}, wantErr: map[offerreceipt.Format]string{
				offerreceipt.JWS:    "refusing to pay: the seller's signed offer for accepts entry 0 does not verify: offer: JWS signature does not verify with the key its kid names (--insecure-offers pays it anyway)",
				offerreceipt.EIP712: "refusing to pay: the seller's signed offer for accepts entry 0 does not verify: offer: signed by 0x", // the address recovered from a changed message is any
			}[f]},
			{name: "expired", setup: func(s *offerSeller) {
				s.offer = func(o *offerreceipt.Offer) { o.ValidUntil = 1_000_000_000 }
			}, wantErr: "refusing to pay: the seller's signed offer for accepts entry 0 does not verify: it expired at 2001-09-09T01:46:40Z (--insecure-offers pays it anyway)"},
			{name: "insecure", setup: func(s *offerSeller) {
				s.edit402 = func(pr *x402.PaymentRequiredV2) { pr.Accepts[0].Amount = "9999" }
				s.receipt = func(r *offerreceipt.Receipt) { r.Charge.Amount = "9999" }
			}, insecure: true, paid: true, stderr: []string{`x402: WARNING: the seller's signed offer for accepts entry 0 does not verify: its amount "10000" is not the 402's "9999"; paying anyway (--insecure-offers)`}},
			{name: "receipt of another payer", setup: func(s *offerSeller) {
				s.receipt = func(r *offerreceipt.Receipt) { r.Payer = attacker }
			}, paid: true, wantErr: "the seller's receipt does not verify: its payer is not the offer's or the payer's (receipt " + attacker + ", payer " + payer + ")"},
			{name: "receipt charging more than paid", setup: func(s *offerSeller) {
				s.receipt = func(r *offerreceipt.Receipt) { r.Charge.Amount = "10001" }
			}, paid: true, wantErr: "the seller's receipt does not verify: it charges 10001, more than the 10000 paid"},
			{name: "receipt of another transaction", setup: func(s *offerSeller) {
				s.receipt = func(r *offerreceipt.Receipt) { r.Transaction = "0xdef" }
			}, paid: true, wantErr: "the seller's receipt does not verify: its transaction 0xdef is not the settlement's 0xabc"},
			{name: "receipt of another resource", setup: func(s *offerSeller) {
				s.receipt = func(r *offerreceipt.Receipt) { r.ResourceURL += "x" }
			}, paid: true, wantErr: "the seller's receipt does not verify: its resourceUrl is not the offer's or the payer's (receipt {url}/rx, payer " + payer + ")"},
		} {
			t.Run(string(f)+"/"+tc.name, func(t *testing.T) {
				s := newOfferSeller(t, f)
				if tc.setup != nil {
					tc.setup(s)
				}
				did, _, _ := strings.Cut(s.key.KID(), "#")
				expand := func(x string) string {
					return strings.NewReplacer("{url}", s.srv.URL, "{did}", did).Replace(x)
				}
				file := filepath.Join(t.TempDir(), "receipt.json")
				var stdout, stderr bytes.Buffer
				o := PayOptions{Key: testBuyerKey, Method: "GET", Timeout: 10 * time.Second, InsecureOffers: tc.insecure, Receipt: file}
				err := RunPay(context.Background(), s.srv.URL+"/r", o, &stdout, &stderr)
				if tc.wantErr == "" && err != nil {
					t.Fatalf("pay: %v\n%s", err, stderr.String())
				}
				if tc.wantErr != "" && (err == nil || !strings.HasPrefix(err.Error(), expand(tc.wantErr))) {
					t.Fatalf("err = %v\nwant %s", err, expand(tc.wantErr))
				}
				if (s.payments == 1) != tc.paid || s.payments > 1 {
					t.Fatalf("%d payments sent, want paid %v", s.payments, tc.paid)
				}
				if tc.paid != (stdout.String() == "paid content") {
					t.Errorf("stdout %q", stdout.String())
				}
				for _, want := range tc.stderr {
					if !strings.Contains(stderr.String(), expand(want)) {
						t.Errorf("stderr lacks %q:\n%s", expand(want), stderr.String())
					}
				}
				saved, rerr := os.ReadFile(file)
				if !tc.paid {
					if rerr == nil {
						t.Errorf("--receipt written without a payment")
					}
					return
				}
				var info offerreceipt.ReceiptInfo
				if rerr != nil || json.Unmarshal(saved, &info) != nil || info.Receipt.Format != f {
					t.Fatalf("--receipt file: %v %s", rerr, saved)
				}
				// The file verifies on its own, against the seller's keys.
				if _, err := offerreceipt.VerifyReceipt(info, offerreceipt.KeysFor(s.key)); err != nil {
					t.Errorf("the saved receipt does not verify: %v", err)
				}
			})
		}
	}
}

func b64url(s string) ([]byte, error) { return base64.RawURLEncoding.DecodeString(s) }
func b64urlEnc(s string) string       { return base64.RawURLEncoding.EncodeToString([]byte(s)) }

// TestPayWithoutOffers: a 402 without offers pays as before, and says
// nothing of offers or receipts.
func TestPayWithoutOffers(t *testing.T) {
	s := newOfferSeller(t, offerreceipt.JWS)
	s.edit402 = func(pr *x402.PaymentRequiredV2) { pr.Extensions = map[string]any{} }
	var stdout, stderr bytes.Buffer
	if err := RunPay(context.Background(), s.srv.URL+"/r", PayOptions{Key: testBuyerKey, Method: "GET", Timeout: 10 * time.Second}, &stdout, &stderr); err != nil {
		t.Fatalf("pay: %v\n%s", err, stderr.String())
	}
	if s.payments != 1 || strings.Contains(stderr.String(), "offer verified") {
		t.Fatalf("payments %d\n%s", s.payments, stderr.String())
	}
}

// TestPayOfferOtherDID: a seller whose keys are published under another
// did:web (receipt_did): a JWS names it in its kid; for EIP-712, the
// site's did.json (the document of that DID) names it, and it is resolved
// at its own address, whose document must list the key.
func TestPayOfferOtherDID(t *testing.T) {
	for _, tc := range []struct {
		format  offerreceipt.Format
		listed  bool // whether the other DID's own document lists the seller's key
		wantErr string
	}{
		{offerreceipt.JWS, true, ""},
		{offerreceipt.EIP712, true, ""},
		{offerreceipt.JWS, false, "refusing to pay: the seller's signed offer for accepts entry 0 does not verify: offer: kid {kid} is not a key of the seller's DID document (--insecure-offers pays it anyway)"},
		{offerreceipt.EIP712, false, "refusing to pay: the seller's signed offer for accepts entry 0 does not verify: offer: signed by {addr}, which is not a key of the seller's DID document (--insecure-offers pays it anyway)"},
	} {
		t.Run(fmt.Sprintf("%s/listed=%v", tc.format, tc.listed), func(t *testing.T) {
			s := newOfferSeller(t, tc.format)
			var other *httptest.Server
			var otherKey *offerreceipt.Key
			other = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				did, _, _ := strings.Cut(s.key.KID(), "#")
				k := s.key
				if !tc.listed {
					k = otherKey
				}
				json.NewEncoder(w).Encode(offerreceipt.DIDDocument(did, []*offerreceipt.Key{k}))
			}))
			t.Cleanup(other.Close)
			otherDID := offerreceipt.DIDWeb(strings.TrimPrefix(other.URL, "http://"))
			s.key = s.key.WithKID(offerreceipt.KIDFor(otherDID, s.key.Address()))
			priv, _ := crypto.HexToECDSA(strings.TrimPrefix(testBuyerKey, "0x"))
			otherKey = offerreceipt.NewKey(priv, offerreceipt.KIDFor(otherDID, crypto.PubkeyToAddress(priv.PublicKey)))
			var stdout, stderr bytes.Buffer
			err := RunPay(context.Background(), s.srv.URL+"/r", PayOptions{Key: testBuyerKey, Method: "GET", Timeout: 10 * time.Second}, &stdout, &stderr)
			want := strings.NewReplacer("{kid}", s.key.KID(), "{addr}", s.key.Address().Hex()).Replace(tc.wantErr)
			if want == "" {
				if err != nil || s.payments != 1 || !strings.Contains(stderr.String(), "x402: offer verified (signed by "+otherDID+")") ||
					!strings.Contains(stderr.String(), "x402: receipt verified ("+string(tc.format)+", signed by "+otherDID+")") {
					t.Fatalf("pay: %v (payments %d)\n%s", err, s.payments, stderr.String())
				}
				return
			}
			if err == nil || err.Error() != want || s.payments != 0 {
				t.Fatalf("err = %v (payments %d)\nwant %s", err, s.payments, want)
			}
		})
	}
}

// TestPayOfferForeignSigner: a JWS offer signed by a key of another DID
// than the site's (the did:web of its host, which its did.json is) is
// refused, however well that DID's own document lists the key; and the
// receipt the same, with --insecure-offers.
func TestPayOfferForeignSigner(t *testing.T) {
	s := newOfferSeller(t, offerreceipt.JWS)
	own := s.key
	ownDID, _, _ := strings.Cut(own.KID(), "#")
	var foreign *offerreceipt.Key
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		did, _, _ := strings.Cut(foreign.KID(), "#")
		json.NewEncoder(w).Encode(offerreceipt.DIDDocument(did, []*offerreceipt.Key{foreign}))
	}))
	t.Cleanup(other.Close)
	otherDID := offerreceipt.DIDWeb(strings.TrimPrefix(other.URL, "http://"))
	foreign = s.key.WithKID(offerreceipt.KIDFor(otherDID, s.key.Address()))
	s.key = foreign // signs offers and receipts under the other DID
	s.doc = func() offerreceipt.Document { return offerreceipt.DIDDocument(ownDID, []*offerreceipt.Key{own}) }
	for _, insecure := range []bool{false, true} {
		var stdout, stderr bytes.Buffer
		err := RunPay(context.Background(), s.srv.URL+"/r", PayOptions{Key: testBuyerKey, Method: "GET", Timeout: 10 * time.Second, InsecureOffers: insecure}, &stdout, &stderr)
		why := "it is signed by " + otherDID + ", not by the site's DID " + ownDID
		want := "refusing to pay: the seller's signed offer for accepts entry 0 does not verify: " + why + " (--insecure-offers pays it anyway)"
		if insecure {
			want = "the seller's receipt does not verify: " + why
		}
		if err == nil || err.Error() != want || s.payments != map[bool]int{false: 0, true: 1}[insecure] {
			t.Fatalf("insecure %v: err = %v (payments %d)\nwant %s\n%s", insecure, err, s.payments, want, stderr.String())
		}
	}
}
