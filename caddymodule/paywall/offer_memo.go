package paywall

import (
	"sync"

	"github.com/ethereum/go-ethereum/common"

	"github.com/caddy-x402/caddy-x402/facilitator/offerreceipt"
)

// maxOfferMemoBytes bounds what a route's offer memo keeps in one second:
// unpaid requests choose the resource URL an offer names, so past it
// offers are signed as before and not kept.
const maxOfferMemoBytes = 1 << 20

// offerMemo keeps the offers a route signed in the current second, so that
// a flood of unpaid requests for one resource costs a signature per offer
// per second, not per 402 (two per offer and 402 with both dialects). An
// offer's signature is deterministic (RFC 6979) and its validUntil counts
// whole seconds, so a kept offer is, byte for byte, the one signing it
// again would give (TestOfferMemo checks both). The zero value is ready.
type offerMemo struct {
	mu    sync.Mutex
	sec   int64 // the Unix second of the kept offers
	bytes int   // about what they hold
	m     map[offerMemoKey]offerreceipt.SignedOffer
}

// offerMemoKey is everything a signed offer depends on.
type offerMemoKey struct {
	kid    string
	addr   common.Address
	format offerreceipt.Format
	index  int
	offer  offerreceipt.Offer
}

// sign is k's offer o for accepts entry i in format f, signed in the Unix
// second now or kept from an earlier call in the same second.
func (om *offerMemo) sign(k *offerreceipt.Key, f offerreceipt.Format, i int, o offerreceipt.Offer, now int64) (offerreceipt.SignedOffer, error) {
	key := offerMemoKey{kid: k.KID(), addr: k.Address(), format: f, index: i, offer: o}
	om.mu.Lock()
	so, ok := om.m[key]
	ok = ok && om.sec == now
	om.mu.Unlock()
	if ok {
		return so, nil
	}
	so, err := k.SignOffer(f, i, o)
	if err != nil {
		return so, err
	}
	size := offerSize(key, so)
	om.mu.Lock()
	defer om.mu.Unlock()
	if om.sec != now || om.m == nil {
		om.sec, om.bytes, om.m = now, 0, map[offerMemoKey]offerreceipt.SignedOffer{}
	}
	if om.bytes+size <= maxOfferMemoBytes {
		om.m[key] = so
		om.bytes += size
	}
	return so, nil
}

// offerSize is about the bytes an entry holds: its strings, twice for
// the payload's copy, and the structs around them.
func offerSize(k offerMemoKey, so offerreceipt.SignedOffer) int {
	o := k.offer
	strs := len(o.ResourceURL) + len(o.Scheme) + len(o.Network) + len(o.Asset) + len(o.PayTo) + len(o.Amount)
	return len(k.kid) + 2*strs + len(so.Signature) + 256
}
