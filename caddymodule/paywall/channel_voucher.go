package paywall

import (
	"encoding/hex"
	"errors"
	"math/big"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"github.com/ethereum/go-ethereum/common"

	"github.com/caddy-x402/caddy-x402/caddymodule/internal/httpx"
	"github.com/caddy-x402/caddy-x402/facilitator/batchsettlement/batch"
	"github.com/caddy-x402/caddy-x402/facilitator/store"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// serveVoucher serves a voucher of a channel the store knows on the hot
// path: the signature recovered locally, then one conditional write
// (Charge from maxClaimableAmount - price), with no read of the store
// before it. A conflict answers the corrective 402 from the record the
// write returns. The refusals keep the published server's order
// (closed, cumulative mismatch, signature, balance): a voucher whose
// signature does not recover to its signer reads the record to tell a
// cumulative mismatch from a bad signature. served is false, with
// nothing written, when the store holds no such channel: the caller then
// takes the unknown-channel path (the facilitator's Verify). A charged
// request goes through the meter (channel_meter.go), as serveChannel's.
func (rt *chanRoute) serveVoucher(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler, pl *channelPayload, co *chanOption, max, price *big.Int, id string) (served bool, err error) {
	ctx := r.Context()
	payer := pl.ChannelConfig.Payer.Hex() // checksummed (a Keccak hash): once a voucher
	vsp := traceVoucher(r, payer)         // trace.go
	defer vsp.End()                       // ended before the upstream, below
	sigOK := co.voucherSigned(pl, max)
	prev := new(big.Int).Sub(max, price)
	if !sigOK || prev.Sign() < 0 {
		rec, err := rt.store.Channel(ctx, id)
		switch {
		case err != nil:
			return true, rt.reply.storeUnavailable(w, r, err)
		case rec == nil:
			return false, nil
		case rec.State != store.ChannelOpen:
			return true, rt.channelRefused(w, r, reasonChannelClosed)
		case new(big.Int).Add(rec.Charged, price).Cmp(max) != 0:
			proof := proofUnsigned
			if sigOK {
				proof = proofSigned
			}
			return true, rt.correctiveChannel(w, r, rec, co.discloses(pl, max, rec, proof))
		}
		return true, rt.channelRefused(w, r, reasonVoucherSignature)
	}
	held := heldCharges.hold(id, price) // until the charge is final (channel_held.go)
	after, err := rt.store.Charge(ctx, id, prev, max, store.ChannelVoucher{Max: max, Signature: pl.Voucher.Signature})
	if err != nil {
		held()
	}
	switch {
	case errors.Is(err, store.ErrChannelNotFound):
		return false, nil
	case errors.Is(err, store.ErrChannelConflict):
		return true, rt.correctiveChannel(w, r, after, co.discloses(pl, max, after, proofSigned))
	case errors.Is(err, store.ErrChannelBalance):
		return true, rt.channelRefused(w, r, reasonExceedsBalance)
	case errors.Is(err, store.ErrChannelNotOpen):
		return true, rt.channelRefused(w, r, reasonChannelClosed)
	case err != nil:
		return true, rt.channelStoreFailed(w, r, err, nil)
	}
	co.ids.remember(pl.ChannelConfig, pl.Voucher.ChannelID)
	if withdrawClosing(after, time.Now()) {
		// The payer's withdrawal could complete before this charge is
		// claimed (channel_watch.go), which a read before the charge would
		// have refused: the charge is given back and the request refused.
		// A charge that cannot be given back stands, and is served.
		if _, lowered := (&chanCharge{rt: rt, r: r, reserved: after, price: price}).lower(price); lowered {
			held()
			return true, rt.channelRefused(w, r, reasonChannelClosed)
		}
	}
	sl := rt.pricing.saleOf(r)
	rt.metrics.payment(sl, OutcomeSettled, "")
	r.Header.Set(httpx.HeaderFrom, payer)
	r.Header.Set(httpx.HeaderValue, price.String())
	r.Header.Set(httpx.HeaderNetwork, sl.network())
	traceVoucherCharged(r, vsp, price)
	vsp.End()
	return true, rt.serveChannelMetered(w, r, next, after, price, nil, rt.setChannelResponse, held) // channel_meter.go
}

// maxChannelIDs bounds the memo of channel ids (about 200 bytes an
// entry); a full memo starts afresh.
const maxChannelIDs = 1 << 16

// channelIDs memoises a channel config's id (its EIP-712 hash) for the
// configs of channels charged on the route: only a config whose voucher
// was charged is remembered, so requests without a paid channel do not
// fill it.
type channelIDs struct {
	m sync.Map // batch.ChannelConfig -> common.Hash
	n atomic.Int64
}

// id is cfg's channel id on chainID.
func (c *channelIDs) id(cfg batch.ChannelConfig, chainID *big.Int) (common.Hash, error) {
	if v, ok := c.m.Load(cfg); ok {
		return v.(common.Hash), nil
	}
	return cfg.ID(chainID)
}

// remember keeps cfg's id.
func (c *channelIDs) remember(cfg batch.ChannelConfig, id common.Hash) {
	if _, ok := c.m.Load(cfg); ok {
		return
	}
	if c.n.Add(1) > maxChannelIDs {
		c.m.Clear()
		c.n.Store(1)
	}
	c.m.Store(cfg, id)
}

// decodeVoucherHeader decodes, in one pass and without reflection
// (scanVoucherJSON), a payment header that is an x402 version 2
// batch-settlement voucher (the hot path); false for anything else, which
// the general decoder then reads and judges. Hex fields are taken only in
// the canonical form (0x and hex digits of the exact length), which
// go-ethereum's decoders read the same way.
func decodeVoucherHeader(header string, pl *channelPayload) (*x402.Payment, bool) {
	raw, err := x402.DecodeBase64Text(header)
	if err != nil {
		return nil, false
	}
	v, ok := scanVoucherJSON(raw)
	if !ok || v.typ != "voucher" {
		return nil, false
	}
	cfg := &pl.ChannelConfig
	ok = hexInto(cfg.Payer[:], v.payer) && hexInto(cfg.PayerAuthorizer[:], v.payerAuth) &&
		hexInto(cfg.Receiver[:], v.receiver) && hexInto(cfg.ReceiverAuthorizer[:], v.receiverAuth) &&
		hexInto(cfg.Token[:], v.token) && hexInto(cfg.Salt[:], v.salt) && hexInto(pl.Voucher.ChannelID[:], v.channelID)
	if !ok || len(v.signature) < 2 || len(v.signature)%2 != 0 {
		return nil, false
	}
	pl.Voucher.Signature = make([]byte, len(v.signature)/2-1)
	if !hexInto(pl.Voucher.Signature, v.signature) {
		return nil, false
	}
	pl.Type, cfg.WithdrawDelay, pl.Voucher.MaxClaimableAmount = v.typ, v.withdrawDelay, v.max
	return &x402.Payment{X402Version: x402.Version2, Scheme: v.scheme, Network: v.network,
		Accepted: &x402.RequirementsV2{Scheme: v.scheme, Network: v.network, Asset: v.asset}}, true
}

// hexInto decodes s, 0x and exactly 2 x len(dst) hex digits, into dst.
func hexInto(dst []byte, s string) bool {
	if len(s) != 2+2*len(dst) || s[0] != '0' || (s[1] != 'x' && s[1] != 'X') {
		return false
	}
	_, err := hex.Decode(dst, []byte(s[2:]))
	return err == nil
}
