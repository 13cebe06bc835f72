package x402cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	neturl "net/url"
	"os"
	"reflect"
	"strings"
	"time"

	"github.com/caddy-x402/caddy-x402/facilitator/offerreceipt"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// What "caddy x402 pay" checks of a seller that signs its offers and
// receipts (the x402 offer-receipt extension): before paying, the signed
// offer of the accepts entry it pays (its signature by a key of the
// seller's did:web document, its fields, its validity); after, the receipt
// (its signature, that it is for that offer, this payer and the
// settlement's transaction, and that what it says was charged is no more
// than was paid). It prints the receipt and writes it to --receipt FILE.

// offerCheck checks one payment's offer and receipt.
type offerCheck struct {
	ctx      context.Context
	client   *http.Client
	url      string // the URL paid: its did.json has the keys of EIP-712 signatures
	insecure bool   // --insecure-offers
	file     string // --receipt
	payer    string // the address that pays (the key's, or --smart-wallet's)
	stderr   io.Writer
	keys     map[string]*offerreceipt.Keys // resolved documents, by DID
	// sitePub and siteDID are the keys of the site's did.json and its
	// DID, once read (siteKeys).
	sitePub *offerreceipt.Keys
	siteDID string

	offer *offerreceipt.Offer // the verified offer paid; nil when none
	max   *big.Int            // the most this request may be charged
	// maxCumulative is a channel voucher's cumulative: the most the
	// channel's charged total may be after this request; nil otherwise.
	maxCumulative *big.Int
}

// newOfferCheck is the check of a payment from payer to url.
func newOfferCheck(ctx context.Context, client *http.Client, url string, o PayOptions, payer string, stderr io.Writer) *offerCheck {
	return &offerCheck{ctx: ctx, client: client, url: url, insecure: o.InsecureOffers, file: o.Receipt,
		payer: payer, stderr: stderr, keys: map[string]*offerreceipt.Keys{}}
}

// offersIn are the signed offers of a 402's extensions; nil when it
// carries none.
func offersIn(ext map[string]any) ([]offerreceipt.SignedOffer, error) {
	raw, ok := ext[offerreceipt.Name]
	if !ok || raw == nil {
		return nil, nil
	}
	b, err := json.Marshal(raw)
	if err != nil {
		return nil, err
	}
	var e struct {
		Info offerreceipt.OffersInfo `json:"info"`
	}
	if err := json.Unmarshal(b, &e); err != nil {
		return nil, fmt.Errorf("extensions[%q] is not an offers object: %w", offerreceipt.Name, err)
	}
	return e.Info.Offers, nil
}

// acceptIndex is the index of the entry chosen among accepts.
func acceptIndex(accepts []x402.RequirementsV2, chosen x402.RequirementsV2) int {
	for i, a := range accepts {
		if reflect.DeepEqual(a, chosen) {
			return i
		}
	}
	return -1
}

// requirementV2 is what an offer for a version 2 accepts entry must say.
func requirementV2(a x402.RequirementsV2) offerreceipt.Requirement {
	return offerreceipt.Requirement{Scheme: a.Scheme, Network: a.Network, Asset: a.Asset, PayTo: a.PayTo, Amount: a.Amount}
}

// checkV2 checks the offer of the entry chosen from a version 2 402
// before it is paid, and notes max, the most the request may be charged.
func (c *offerCheck) checkV2(pr *x402.PaymentRequiredV2, chosen x402.RequirementsV2, max *big.Int) error {
	c.max = max
	return c.check(pr.Extensions, acceptIndex(pr.Accepts, chosen), requirementV2(chosen))
}

// check verifies the signed offer of accepts entry idx (whose fields are
// req) among the offers of ext: a 402 without offers passes. An offer that
// does not verify refuses the payment, or with --insecure-offers is
// reported and paid.
func (c *offerCheck) check(ext map[string]any, idx int, req offerreceipt.Requirement) error {
	offers, err := offersIn(ext)
	if err == nil && len(offers) == 0 {
		return nil
	}
	var o offerreceipt.Offer
	var signer string
	if err == nil {
		o, signer, err = c.verifyOffer(offers, idx, req)
	}
	if err != nil {
		if c.insecure {
			fmt.Fprintf(c.stderr, "x402: WARNING: the seller's signed offer for accepts entry %d does not verify: %v; paying anyway (--insecure-offers)\n", idx, err)
			return nil
		}
		return fmt.Errorf("refusing to pay: the seller's signed offer for accepts entry %d does not verify: %w (--insecure-offers pays it anyway)", idx, err)
	}
	c.offer = &o
	until := "no end"
	if o.ValidUntil != 0 {
		until = "until " + time.Unix(o.ValidUntil, 0).UTC().Format(time.RFC3339)
	}
	fmt.Fprintf(c.stderr, "x402: offer verified (signed by %s): %s %s of %s on %s to %s for %s, valid %s\n",
		signer, o.Scheme, o.Amount, o.Asset, o.Network, o.PayTo, o.ResourceURL, until)
	return nil
}

// verifyOffer finds the offer of entry idx (by its acceptIndex, or among
// offers that give none, the one that matches req) and verifies it. It
// returns the offer and the DID whose key signed it.
func (c *offerCheck) verifyOffer(offers []offerreceipt.SignedOffer, idx int, req offerreceipt.Requirement) (offerreceipt.Offer, string, error) {
	var firstErr error
	found := false
	for _, so := range offers {
		if so.AcceptIndex != nil && *so.AcceptIndex != idx {
			continue
		}
		found = true
		o, signer, err := c.verifyOne(so, req)
		if err == nil || so.AcceptIndex != nil {
			return o, signer, err
		}
		if firstErr == nil {
			firstErr = err
		}
	}
	if !found {
		return offerreceipt.Offer{}, "", fmt.Errorf("the 402 carries %d signed offers, none for this entry", len(offers))
	}
	return offerreceipt.Offer{}, "", firstErr
}

// verifyOne verifies one signed offer against the seller's keys and the
// entry's fields, and that it has not expired.
func (c *offerCheck) verifyOne(so offerreceipt.SignedOffer, req offerreceipt.Requirement) (offerreceipt.Offer, string, error) {
	keys, did, err := c.keysOf(so.Format, so.Signature)
	if err != nil {
		return offerreceipt.Offer{}, "", err
	}
	o, err := offerreceipt.VerifyOffer(so, keys)
	if err != nil {
		return offerreceipt.Offer{}, "", err
	}
	if f := o.Matches(req); f != "" {
		return offerreceipt.Offer{}, "", fmt.Errorf("its %s %q is not the 402's %q", f, offerField(o, f), requirementField(req, f))
	}
	if now := time.Now().Unix(); o.Expired(now) {
		return offerreceipt.Offer{}, "", fmt.Errorf("it expired at %s", time.Unix(o.ValidUntil, 0).UTC().Format(time.RFC3339))
	}
	return o, did, nil
}

// offerField is an offer's field by the name Offer.Matches gives.
func offerField(o offerreceipt.Offer, f string) string {
	return requirementField(offerreceipt.Requirement{Scheme: o.Scheme, Network: o.Network, Asset: o.Asset, PayTo: o.PayTo, Amount: o.Amount}, f)
}

// requirementField is a requirement's field by the name Offer.Matches
// gives.
func requirementField(r offerreceipt.Requirement, f string) string {
	return map[string]string{"scheme": r.Scheme, "network": r.Network, "asset": r.Asset, "payTo": r.PayTo, "amount": r.Amount}[f]
}

// keysOf resolves the keys that must have made a signature in format f:
// for a JWS, those of its kid's DID, which must be the site's (the did:web
// of the URL's host, or the DID its did.json names); for EIP-712 (which
// names no key), those the site publishes (siteKeys). It returns them and
// the DID.
func (c *offerCheck) keysOf(f offerreceipt.Format, sig string) (*offerreceipt.Keys, string, error) {
	switch f {
	case offerreceipt.JWS:
		did, err := offerreceipt.SignerDID(sig)
		if err != nil {
			return nil, "", err
		}
		if err := c.siteSigner(did); err != nil {
			return nil, "", err
		}
		k, err := c.resolve(did)
		return k, did, err
	case offerreceipt.EIP712:
		return c.siteKeys()
	}
	return nil, "", fmt.Errorf("format %q is neither %q nor %q", f, offerreceipt.EIP712, offerreceipt.JWS)
}

// siteSigner refuses a JWS signer's DID that is not the site's: a key of
// any other DID proves nothing about the seller at the URL paid.
func (c *offerCheck) siteSigner(did string) error {
	u, err := neturl.Parse(c.url)
	if err != nil || u.Host == "" {
		return fmt.Errorf("%q has no host whose did:web could name the seller's keys", c.url)
	}
	own := offerreceipt.DIDWeb(u.Host)
	if did == own {
		return nil
	}
	if _, site, err := c.siteKeys(); err != nil || site != did {
		if err != nil {
			return fmt.Errorf("it is signed by %s, not by the site's %s, and the site's did.json does not name it (%v)", did, own, err)
		}
		return fmt.Errorf("it is signed by %s, not by the site's DID %s", did, site)
	}
	return nil
}

// resolve is the keys of a did:web DID, resolved once.
func (c *offerCheck) resolve(did string) (*offerreceipt.Keys, error) {
	if k, ok := c.keys[did]; ok {
		return k, nil
	}
	k, err := offerreceipt.ResolveDIDWeb(c.ctx, c.client, did)
	if err != nil {
		return nil, err
	}
	c.keys[did] = k
	return k, nil
}

// siteKeys are the receipt keys of the site paid: the DID document at
// /.well-known/did.json of the URL's origin (its did:web). A document
// there of another did:web (a seller's receipt_did) names the DID whose
// keys count: that DID is resolved at its own address.
func (c *offerCheck) siteKeys() (*offerreceipt.Keys, string, error) {
	u, err := neturl.Parse(c.url)
	if err != nil || u.Host == "" {
		return nil, "", fmt.Errorf("%q has no host whose did:web could name the seller's keys", c.url)
	}
	own := offerreceipt.DIDWeb(u.Host)
	if c.sitePub != nil {
		return c.sitePub, c.siteDID, nil
	}
	where := u.Scheme + "://" + u.Host + "/.well-known/did.json"
	doc, err := offerreceipt.FetchDocument(c.ctx, c.client, where)
	if err != nil {
		return nil, "", fmt.Errorf("reading the seller's keys: %w", err)
	}
	var keys *offerreceipt.Keys
	switch {
	case doc.ID == own:
		keys, err = offerreceipt.KeysOf(doc)
	case strings.HasPrefix(doc.ID, "did:web:"):
		keys, err = c.resolve(doc.ID)
	default:
		err = fmt.Errorf("%s is the document of %q, not a did:web", where, doc.ID)
	}
	if err != nil {
		return nil, "", err
	}
	c.sitePub, c.siteDID = keys, doc.ID
	return keys, doc.ID, nil
}

// receiptIn is the offer-receipt info of a settlement response (JSON),
// and its raw JSON; nil when it carries none.
func receiptIn(settlement []byte) (*offerreceipt.ReceiptInfo, json.RawMessage, error) {
	var sr struct {
		Extensions map[string]json.RawMessage `json:"extensions"`
	}
	if len(settlement) == 0 || json.Unmarshal(settlement, &sr) != nil || sr.Extensions[offerreceipt.Name] == nil {
		return nil, nil, nil
	}
	var e struct {
		Info json.RawMessage `json:"info"`
	}
	if err := json.Unmarshal(sr.Extensions[offerreceipt.Name], &e); err != nil || len(e.Info) == 0 || string(e.Info) == "null" {
		return nil, nil, errors.New("its extensions[\"offer-receipt\"] has no info object")
	}
	var info offerreceipt.ReceiptInfo
	if err := json.Unmarshal(e.Info, &info); err != nil {
		return nil, e.Info, fmt.Errorf("its receipt is not a receipt object: %w", err)
	}
	return &info, e.Info, nil
}

// receipt checks the receipt of a paid answer's settlement response (its
// JSON), prints it, and writes it to --receipt. A receipt that does not
// verify, is not for the offer paid or this payer, names another
// transaction than the settlement, or says more was charged than paid, is
// an error; a settlement without one is reported.
func (c *offerCheck) receipt(settlement []byte) error {
	info, raw, err := receiptIn(settlement)
	if raw != nil && c.file != "" {
		var out bytes.Buffer
		if json.Indent(&out, raw, "", "  ") != nil {
			out.Reset()
			out.Write(raw)
		}
		out.WriteByte('\n')
		if werr := os.WriteFile(c.file, out.Bytes(), 0o644); werr != nil {
			return fmt.Errorf("--receipt %s: %w", c.file, werr)
		}
		fmt.Fprintf(c.stderr, "x402: receipt written to %s\n", c.file)
	}
	if err != nil {
		return fmt.Errorf("the seller's receipt does not verify: %w", err)
	}
	if info == nil {
		if c.offer != nil || c.file != "" {
			fmt.Fprintf(c.stderr, "x402: the settlement response carries no signed receipt%s\n", map[bool]string{true: " (--receipt " + c.file + " not written)", false: ""}[c.file != ""])
		}
		return nil
	}
	r, signer, err := c.verifyReceipt(*info)
	if err == nil {
		var sr struct {
			Transaction string `json:"transaction"`
		}
		_ = json.Unmarshal(settlement, &sr)
		if r.Transaction != "" && sr.Transaction != "" && !strings.EqualFold(r.Transaction, sr.Transaction) {
			err = fmt.Errorf("its transaction %s is not the settlement's %s", r.Transaction, sr.Transaction)
		}
	}
	if err != nil {
		return fmt.Errorf("the seller's receipt does not verify: %w", err)
	}
	printReceipt(c.stderr, info.Receipt.Format, signer, r)
	return nil
}

// verifyReceipt verifies a receipt and what it says: for the offer paid
// (or, without one, the payer), charged no more than paid. It returns the
// receipt and the DID whose key signed it.
func (c *offerCheck) verifyReceipt(info offerreceipt.ReceiptInfo) (offerreceipt.Receipt, string, error) {
	r, did, err := c.signedBySite(info)
	if err != nil {
		return offerreceipt.Receipt{}, "", err
	}
	if c.offer != nil {
		if f := r.MatchesOffer(*c.offer, c.payer); f != "" {
			return r, did, fmt.Errorf("its %s is not the offer's or the payer's (receipt %s, payer %s)", f, receiptField(r, f), c.payer)
		}
	} else if !strings.EqualFold(r.Payer, c.payer) {
		return r, did, fmt.Errorf("its payer %s is not %s", r.Payer, c.payer)
	}
	if ch := r.Charge; ch != nil {
		amount, err := x402.ParseAmount(ch.Amount)
		if err != nil {
			return r, did, fmt.Errorf("its charged amount %q is not an amount", ch.Amount)
		}
		if c.max != nil && amount.Cmp(c.max) > 0 {
			return r, did, fmt.Errorf("it charges %s, more than the %s paid", amount, c.max)
		}
		if ch.ChargedCumulative != "" && c.maxCumulative != nil {
			cum, err := x402.ParseAmount(ch.ChargedCumulative)
			if err != nil || cum.Cmp(c.maxCumulative) > 0 {
				return r, did, fmt.Errorf("its channel total %q is more than the voucher's %s", ch.ChargedCumulative, c.maxCumulative)
			}
		}
	}
	return r, did, nil
}

// signedBySite verifies a receipt's signature by a key of the site's
// did:web document (keysOf) and returns the receipt and the DID whose key
// signed it.
func (c *offerCheck) signedBySite(info offerreceipt.ReceiptInfo) (offerreceipt.Receipt, string, error) {
	keys, did, err := c.keysOf(info.Receipt.Format, info.Receipt.Signature)
	if err != nil {
		return offerreceipt.Receipt{}, "", err
	}
	r, err := offerreceipt.VerifyReceipt(info, keys)
	if err != nil {
		return offerreceipt.Receipt{}, "", err
	}
	return r, did, nil
}

// receiptField is a receipt's field by the name Receipt.MatchesOffer gives.
func receiptField(r offerreceipt.Receipt, f string) string {
	return map[string]string{"resourceUrl": r.ResourceURL, "network": r.Network, "payer": r.Payer}[f]
}

// printReceipt writes a verified receipt as a short block.
func printReceipt(w io.Writer, f offerreceipt.Format, signer string, r offerreceipt.Receipt) {
	fmt.Fprintf(w, "x402: receipt verified (%s, signed by %s):\n", f, signer)
	fmt.Fprintf(w, "  payer        %s\n  resource     %s\n  network      %s\n", r.Payer, r.ResourceURL, r.Network)
	tx := r.Transaction
	if tx == "" {
		tx = "(none named)"
	}
	fmt.Fprintf(w, "  transaction  %s\n  issued at    %s\n", tx, time.Unix(r.IssuedAt, 0).UTC().Format(time.RFC3339))
	if ch := r.Charge; ch != nil {
		charged := ch.Amount + " smallest units"
		if ch.MaxAmount != "" {
			charged += " (of at most " + ch.MaxAmount + ")"
		}
		fmt.Fprintf(w, "  charged      %s\n", charged)
		if ch.Usage != "" {
			fmt.Fprintf(w, "  usage        %s\n", ch.Usage)
		}
		if ch.Channel != "" {
			fmt.Fprintf(w, "  channel      %s, charged cumulative %s\n", ch.Channel, ch.ChargedCumulative)
		}
	}
}

// checkV1 checks the offer of the version 1 entry chosen (paid value)
// before it is paid: the offers of the 402 body's extensions, matched
// against that entry; else those of its PAYMENT-REQUIRED header, matched
// against the version 2 entry of the same payment (same chain, asset,
// payTo and amount).
func (c *offerCheck) checkV1(body []byte, required string, chosen x402.PaymentRequirements, value *big.Int) error {
	c.max = value
	var v1 struct {
		Accepts    []x402.PaymentRequirements `json:"accepts"`
		Extensions map[string]any             `json:"extensions"`
	}
	_ = json.Unmarshal(body, &v1)
	if offers, _ := offersIn(v1.Extensions); len(offers) > 0 {
		idx := 0
		for i, a := range v1.Accepts {
			if reflect.DeepEqual(a, chosen) {
				idx = i
				break
			}
		}
		return c.check(v1.Extensions, idx, offerreceipt.Requirement{Scheme: chosen.Scheme, Network: chosen.Network,
			Asset: chosen.Asset, PayTo: chosen.PayTo, Amount: chosen.MaxAmountRequired})
	}
	var pr x402.PaymentRequiredV2
	if required == "" || x402.DecodeBase64JSON(required, &pr) != nil {
		return nil
	}
	if offers, _ := offersIn(pr.Extensions); len(offers) == 0 {
		return nil
	}
	for i, a := range pr.Accepts {
		if a.Scheme == chosen.Scheme && sameNetwork(a.Network, chosen.Network) && strings.EqualFold(a.Asset, chosen.Asset) &&
			strings.EqualFold(a.PayTo, chosen.PayTo) && a.Amount == chosen.MaxAmountRequired {
			return c.check(pr.Extensions, i, requirementV2(a))
		}
	}
	return c.check(pr.Extensions, -1, offerreceipt.Requirement{Scheme: chosen.Scheme, Network: chosen.Network,
		Asset: chosen.Asset, PayTo: chosen.PayTo, Amount: chosen.MaxAmountRequired})
}
