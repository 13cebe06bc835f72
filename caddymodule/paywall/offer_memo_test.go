package paywall

import (
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/caddy-x402/caddy-x402/facilitator/offerreceipt"
)

// TestOfferMemo: an offer signed again in the same second comes from the
// memo and is, byte for byte, the offer signing it gives; another second,
// key, site (kid), format or entry is signed anew; what a second keeps is
// bounded in bytes, and offers past the bound are still signed.
func TestOfferMemo(t *testing.T) {
	priv, err := crypto.HexToECDSA(strings.TrimPrefix(receiptKeyA, "0x"))
	if err != nil {
		t.Fatal(err)
	}
	k := offerreceipt.NewKey(priv, "did:web:a.example#receipt-1")
	other, _ := crypto.GenerateKey()
	offer := offerreceipt.Offer{ResourceURL: "https://a.example/paid", Scheme: "exact", Network: "eip155:338",
		Asset: "0xc01efAaF7C5C61bEbFAeb358E1161b537b8bC0e0", PayTo: "0x209693Bc6afc0C5328bA36FaF03C514EF312287C",
		Amount: "10000", ValidUntil: 1000 + 60}
	const now = 1000

	for _, f := range []offerreceipt.Format{offerreceipt.JWS, offerreceipt.EIP712} {
		t.Run(string(f), func(t *testing.T) {
			var om offerMemo
			first, err := om.sign(k, f, 0, offer, now)
			if err != nil {
				t.Fatal(err)
			}
			fresh, err := k.SignOffer(f, 0, offer)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(first, fresh) {
				t.Fatalf("the memo's offer %+v differs from signing it again %+v: signing is not deterministic, so a kept offer is not what the 402 would carry", first, fresh)
			}
			// Mark the kept offer: a call served from the memo returns the mark.
			key := offerMemoKey{kid: k.KID(), addr: k.Address(), format: f, index: 0, offer: offer}
			if _, ok := om.m[key]; !ok || len(om.m) != 1 {
				t.Fatalf("the memo holds %d offers and not this one", len(om.m))
			}
			marked := first
			marked.Signature = "kept"
			om.m[key] = marked
			if got, _ := om.sign(k, f, 0, offer, now); got.Signature != "kept" {
				t.Fatalf("the same offer in the same second was signed again (%q), not taken from the memo", got.Signature)
			}

			for _, c := range []struct {
				name  string
				k     *offerreceipt.Key
				f     offerreceipt.Format
				index int
				o     offerreceipt.Offer
				now   int64
			}{
				{"next second", k, f, 0, offer, now + 1},
				{"another site's kid", k.WithKID("did:web:b.example#receipt-1"), f, 0, offer, now},
				{"another key", offerreceipt.NewKey(other, k.KID()), f, 0, offer, now},
				{"another entry", k, f, 1, offer, now},
				{"another resource", k, f, 0, func() offerreceipt.Offer { o := offer; o.ResourceURL += "?x=1"; return o }(), now},
			} {
				om.m[key] = marked
				om.sec = now
				got, err := om.sign(c.k, c.f, c.index, c.o, c.now)
				if err != nil {
					t.Fatal(err)
				}
				want, _ := c.k.SignOffer(c.f, c.index, c.o)
				if got.Signature == "kept" || !reflect.DeepEqual(got, want) {
					t.Errorf("%s: got %q, want a signature of its own %q", c.name, got.Signature, want.Signature)
				}
				if c.now != now && (len(om.m) != 1 || om.sec != c.now) {
					t.Errorf("%s: the memo holds %d offers of second %d, want only the new one, of second %d", c.name, len(om.m), om.sec, c.now)
				}
			}
		})
	}

	t.Run("bounded in bytes", func(t *testing.T) {
		var om offerMemo
		long := offer
		long.ResourceURL = "https://a.example/" + strings.Repeat("x", 8_000)
		var kept int
		for i := range 200 { // 200 x ~16 KB or more: past the bound after about 60
			o := long
			o.Amount = strconv.Itoa(i)
			so, err := om.sign(k, offerreceipt.JWS, 0, o, now)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := offerreceipt.VerifyOffer(so, offerreceipt.KeysFor(k)); err != nil {
				t.Fatalf("offer %d past the bound: %v", i, err)
			}
			kept = len(om.m)
		}
		if om.bytes > maxOfferMemoBytes || kept == 0 || kept >= 200 {
			t.Fatalf("the memo keeps %d offers in %d bytes, want some and at most %d bytes", kept, om.bytes, maxOfferMemoBytes)
		}
	})
}
