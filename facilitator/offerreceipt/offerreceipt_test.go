package offerreceipt

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/crypto"
)

func testKey(t *testing.T, hexKey, did string) *Key {
	t.Helper()
	priv, err := crypto.HexToECDSA(hexKey)
	if err != nil {
		t.Fatal(err)
	}
	return NewKey(priv, KIDFor(did, crypto.PubkeyToAddress(priv.PublicKey)))
}

const (
	did1  = "did:web:127.0.0.1%3A8443"
	hexK1 = "4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318"
	hexK2 = "8da4ef21b864d2cc526dbdb2a120bd2874c36c9d0a1fb7f8c63d7f7a8b41de8f"
)

var offer = Offer{
	ResourceURL: "https://api.example.com/weather?city=a&b=<c>",
	Scheme:      "exact", Network: "eip155:338",
	Asset: "0xc01efAaF7C5C61bEbFAeb358E1161b537b8bC0e0", PayTo: "0x209693Bc6afc0C5328bA36FaF03C514EF312287C",
	Amount: "10000", ValidUntil: 1_900_000_000,
}

func TestOfferSignVerify(t *testing.T) {
	k1, k2 := testKey(t, hexK1, did1), testKey(t, hexK2, did1)
	for _, f := range []Format{JWS, EIP712} {
		t.Run(string(f), func(t *testing.T) {
			so, err := k1.SignOffer(f, 2, offer)
			if err != nil {
				t.Fatal(err)
			}
			if so.Format != f || so.AcceptIndex == nil || *so.AcceptIndex != 2 {
				t.Fatalf("signed offer envelope %+v", so)
			}
			got, err := VerifyOffer(so, KeysFor(k1))
			if err != nil {
				t.Fatalf("VerifyOffer: %v", err)
			}
			want := offer
			want.Version = 1
			if got != want {
				t.Fatalf("payload %+v, want %+v", got, want)
			}
			if d := got.Matches(Requirement{"exact", "eip155:338", offer.Asset, offer.PayTo, "10000"}); d != "" {
				t.Fatalf("Matches differs in %s", d)
			}
			if d := got.Matches(Requirement{"exact", "eip155:338", strings.ToLower(offer.Asset), offer.PayTo, "10000"}); d != "asset" {
				t.Fatalf("Matches of a lower-cased asset = %q, want asset (strings compare exactly)", d)
			}
			// Another key of the seller does not verify it.
			_, err = VerifyOffer(so, KeysFor(k2))
			wantErr := map[Format]string{
				JWS:    "offer: kid " + k1.KID() + " is not a key of the seller's DID document",
				EIP712: "offer: signed by " + k1.Address().Hex() + ", which is not a key of the seller's DID document",
			}[f]
			if err == nil || err.Error() != wantErr {
				t.Fatalf("verify with another key: %v, want %s", err, wantErr)
			}
		})
	}
}

func TestOfferTampered(t *testing.T) {
	k := testKey(t, hexK1, did1)
	// EIP-712: the payload beside the signature is changed.
	so, _ := k.SignOffer(EIP712, 0, offer)
	p := *so.Payload
	p.Amount = "1"
	so.Payload = &p
	if _, err := VerifyOffer(so, KeysFor(k)); err == nil || !strings.Contains(err.Error(), "which is not a key of the seller's DID document") {
		t.Fatalf("tampered eip712 offer: %v", err)
	}
	// JWS: the payload part is replaced by another offer's.
	a, _ := k.SignOffer(JWS, 0, offer)
	cheap := offer
	cheap.Amount = "1"
	b, _ := k.SignOffer(JWS, 0, cheap)
	pa, pb := strings.Split(a.Signature, "."), strings.Split(b.Signature, ".")
	a.Signature = pa[0] + "." + pb[1] + "." + pa[2]
	if _, err := VerifyOffer(a, KeysFor(k)); err == nil || err.Error() != "offer: JWS signature does not verify with the key its kid names" {
		t.Fatalf("tampered jws offer: %v", err)
	}
}

func TestReceiptSignVerify(t *testing.T) {
	k := testKey(t, hexK1, did1)
	charge := &Charge{Scheme: "upto", Asset: offer.Asset, PayTo: offer.PayTo, Amount: "420", MaxAmount: "1000", Usage: "tokens=42"}
	base := Receipt{Network: "eip155:338", ResourceURL: offer.ResourceURL, Payer: "0x8C3c5c8d6F9bC7a1e0A6a2E1d4F0b9c8A7e6D5c4",
		IssuedAt: 1_800_000_000, Transaction: "0x" + strings.Repeat("ab", 32)}
	cases := []struct {
		name   string
		f      Format
		charge *Charge
		tx     string
	}{
		{"jws", JWS, nil, base.Transaction},
		{"jws charge", JWS, charge, base.Transaction},
		{"jws no transaction", JWS, charge, ""},
		{"eip712", EIP712, nil, base.Transaction},
		{"eip712 charge", EIP712, charge, base.Transaction},
		{"eip712 no transaction", EIP712, charge, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := base
			r.Charge, r.Transaction = c.charge, c.tx
			info, err := k.SignReceipt(c.f, r)
			if err != nil {
				t.Fatal(err)
			}
			if (info.Charge != nil) != (c.f == EIP712 && c.charge != nil) {
				t.Fatalf("charge beside the receipt: %+v", info.Charge)
			}
			got, err := VerifyReceipt(info, KeysFor(k))
			if err != nil {
				t.Fatalf("VerifyReceipt: %v", err)
			}
			want := r
			want.Version = 1
			if got.Charge == nil != (want.Charge == nil) || (got.Charge != nil && *got.Charge != *want.Charge) {
				t.Fatalf("charge %+v, want %+v", got.Charge, want.Charge)
			}
			got.Charge, want.Charge = nil, nil
			if got != want {
				t.Fatalf("receipt %+v, want %+v", got, want)
			}
			if d := got.MatchesOffer(Offer{ResourceURL: offer.ResourceURL, Network: "eip155:338"}, strings.ToLower(base.Payer)); d != "" {
				t.Fatalf("MatchesOffer differs in %s", d)
			}
			if d := got.MatchesOffer(Offer{ResourceURL: offer.ResourceURL + "x", Network: "eip155:338"}, base.Payer); d != "resourceUrl" {
				t.Fatalf("MatchesOffer of another resource = %q", d)
			}
		})
	}
}

func TestReceiptChargeTampered(t *testing.T) {
	k, other := testKey(t, hexK1, did1), testKey(t, hexK2, did1)
	r := Receipt{Network: "eip155:338", ResourceURL: "https://a/b", Payer: "0x1", IssuedAt: 5, Transaction: "0x2",
		Charge: &Charge{Scheme: "upto", Amount: "420", MaxAmount: "1000"}}
	info, _ := k.SignReceipt(EIP712, r)

	raised := *info.Charge
	raised.Payload.Amount = "1000"
	if _, err := VerifyReceipt(ReceiptInfo{Receipt: info.Receipt, Charge: &raised}, KeysFor(k)); err == nil ||
		err.Error() != "receipt charge: signed by "+recovered(t, raised)+", which is not a key of the seller's DID document" {
		t.Fatalf("raised charge: %v", err)
	}
	// A charge of another receipt (another payer), signed by the key.
	r2 := r
	r2.Payer = "0x3"
	info2, _ := k.SignReceipt(EIP712, r2)
	if _, err := VerifyReceipt(ReceiptInfo{Receipt: info.Receipt, Charge: info2.Charge}, KeysFor(k)); err == nil ||
		err.Error() != "receipt: the charge names another receipt (its receipt fields differ)" {
		t.Fatalf("charge of another receipt: %v", err)
	}
	// Signed by a key the seller does not publish.
	forged, _ := other.SignReceipt(EIP712, r)
	if _, err := VerifyReceipt(forged, KeysFor(k)); err == nil ||
		err.Error() != "receipt: signed by "+other.Address().Hex()+", which is not a key of the seller's DID document" {
		t.Fatalf("forged receipt: %v", err)
	}
	// A JWS receipt with a charge beside it.
	j, _ := k.SignReceipt(JWS, r)
	j.Charge = info.Charge
	if _, err := VerifyReceipt(j, KeysFor(k)); err == nil || err.Error() != "receipt: a jws receipt carries its charge inside, not beside it" {
		t.Fatalf("jws with a charge beside: %v", err)
	}
}

func recovered(t *testing.T, c SignedCharge) string {
	t.Helper()
	h, err := chargeHash(c.Payload)
	if err != nil {
		t.Fatal(err)
	}
	a, err := recoverTyped(h, c.Signature)
	if err != nil {
		t.Fatal(err)
	}
	return a.Hex()
}

func TestCanonicalJSON(t *testing.T) {
	cases := []struct {
		in   any
		want string
	}{
		{map[string]any{"b": 1, "a": "x"}, `{"a":"x","b":1}`},
		{Offer{ResourceURL: "https://a/?x=1&y=<2>", ValidUntil: 7}, `{"amount":"","asset":"","network":"","payTo":"","resourceUrl":"https://a/?x=1&y=<2>","scheme":"","validUntil":7,"version":0}`},
		{map[string]any{"s": "q\"\\\n\u0001\u2028é"}, `{"s":"q\"\\\n\u0001` + "\u2028é" + `"}`},
		{Receipt{Payer: "p", Charge: &Charge{Amount: "1"}}, `{"charge":{"amount":"1","asset":"","payTo":"","scheme":""},"issuedAt":0,"network":"","payer":"p","resourceUrl":"","version":0}`},
	}
	for _, c := range cases {
		got, err := canonicalJSON(c.in)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != c.want {
			t.Errorf("canonicalJSON(%#v)\n got %s\nwant %s", c.in, got, c.want)
		}
	}
}

func TestDIDWeb(t *testing.T) {
	cases := []struct{ host, did, url string }{
		{"api.example.com", "did:web:api.example.com", "https://api.example.com/.well-known/did.json"},
		{"127.0.0.1:8443", "did:web:127.0.0.1%3A8443", "http://127.0.0.1:8443/.well-known/did.json"},
		{"Localhost:80", "did:web:localhost%3A80", "http://localhost:80/.well-known/did.json"},
	}
	for _, c := range cases {
		if got := DIDWeb(c.host); got != c.did {
			t.Errorf("DIDWeb(%q) = %q, want %q", c.host, got, c.did)
		}
		if got, err := didWebURL(c.did); err != nil || got != c.url {
			t.Errorf("didWebURL(%q) = %q, %v; want %q", c.did, got, err, c.url)
		}
	}
	if got, _ := didWebURL("did:web:example.com:users:alice"); got != "https://example.com/users/alice/did.json" {
		t.Errorf("did:web with a path: %q", got)
	}
	for _, bad := range []string{"did:key:z6Mk", "did:web:", "did:web:a%2Fb", "did:web:a:..%2F"} {
		if _, err := didWebURL(bad); err == nil {
			t.Errorf("didWebURL(%q) accepted", bad)
		}
	}
}

// TestResolveDIDWeb serves a seller's DID document over HTTP and checks
// offers and receipts of both keys (a signing one and a retired one)
// against what a buyer resolves.
func TestResolveDIDWeb(t *testing.T) {
	var doc Document
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/.well-known/did.json" {
			http.NotFound(w, r)
			return
		}
		json.NewEncoder(w).Encode(doc)
	}))
	defer srv.Close()
	did := DIDWeb(strings.TrimPrefix(srv.URL, "http://"))
	cur, retired := testKey(t, hexK1, did), testKey(t, hexK2, did)
	doc = DIDDocument(did, []*Key{cur, retired})
	if doc.AssertionMethod[0] != cur.KID() || doc.VerificationMethod[1].BlockchainAccountID != "eip155:1:"+retired.Address().Hex() {
		t.Fatalf("document %+v", doc)
	}

	keys, err := ResolveDIDWeb(context.Background(), srv.Client(), cur.KID())
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []*Key{cur, retired} {
		for _, f := range []Format{JWS, EIP712} {
			so, _ := k.SignOffer(f, 0, offer)
			if _, err := VerifyOffer(so, keys); err != nil {
				t.Errorf("%s offer of %s: %v", f, k.KID(), err)
			}
		}
	}
	stranger := testKey(t, "0123456789012345678901234567890123456789012345678901234567890123", did)
	so, _ := stranger.SignOffer(JWS, 0, offer)
	if _, err := VerifyOffer(so, keys); err == nil || err.Error() != "offer: kid "+stranger.KID()+" is not a key of the seller's DID document" {
		t.Errorf("a key not in the document: %v", err)
	}

	if _, err := ResolveDIDWeb(context.Background(), srv.Client(), "did:web:127.0.0.1%3A1"); err == nil {
		t.Error("resolving a DID nobody serves succeeded")
	}
	doc.ID = "did:web:elsewhere"
	if _, err := ResolveDIDWeb(context.Background(), srv.Client(), did); err == nil || !strings.Contains(err.Error(), `is of "did:web:elsewhere"`) {
		t.Errorf("a document of another DID: %v", err)
	}
}

func TestMalformed(t *testing.T) {
	k := testKey(t, hexK1, did1)
	keys := KeysFor(k)
	cases := []struct {
		so   SignedOffer
		want string
	}{
		{SignedOffer{Format: "pgp"}, `offer: format "pgp" is neither "eip712" nor "jws"`},
		{SignedOffer{Format: JWS, Signature: "a.b"}, "offer: JWS is not header.payload.signature"},
		{SignedOffer{Format: JWS, Signature: "!!.b.c"}, "offer: JWS header is not base64url: illegal base64 data at input byte 0"},
		{SignedOffer{Format: JWS, Signature: strings.Repeat("a", maxJWS+1)}, "offer: JWS of 16385 bytes is over the 16384 this reads"},
		{SignedOffer{Format: EIP712}, "offer: an eip712 offer without its payload"},
		{SignedOffer{Format: EIP712, Payload: &offer, Signature: "0x12"}, "offer: signature is 1 bytes, EIP-712 signs 65"},
		{SignedOffer{Format: EIP712, Payload: &offer, Signature: "zz"}, "offer: signature is not 0x-hex: hex string without 0x prefix"},
	}
	for _, c := range cases {
		if _, err := VerifyOffer(c.so, keys); err == nil || err.Error() != c.want {
			t.Errorf("VerifyOffer(%+v) = %v, want %s", c.so, err, c.want)
		}
	}
	if _, err := k.SignOffer("pgp", 0, offer); err == nil {
		t.Error("SignOffer in an unknown format succeeded")
	}
	if f, ok := ParseFormat("jws"); !ok || f != JWS {
		t.Error("ParseFormat(jws)")
	}
	if _, ok := ParseFormat("JWS"); ok {
		t.Error("ParseFormat is case-sensitive, as the config's values are")
	}
}

func TestSignerDID(t *testing.T) {
	k := testKey(t, hexK1, did1)
	so, err := k.SignOffer(JWS, 0, offer)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ in, want, err string }{
		{so.Signature, did1, ""},
		{"a.b", "", "JWS is not header.payload.signature"},
		{b64.EncodeToString([]byte(`{"alg":"ES256K"}`)) + ".e30.AA", "", "JWS header has no kid"},
	} {
		got, err := SignerDID(tc.in)
		if got != tc.want || (err == nil) != (tc.err == "") || (err != nil && err.Error() != tc.err) {
			t.Errorf("SignerDID(%.20q) = %q, %v; want %q, %q", tc.in, got, err, tc.want, tc.err)
		}
	}
}
