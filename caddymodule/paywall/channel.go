package paywall

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"go.uber.org/zap"

	"github.com/caddy-x402/caddy-x402/caddymodule/app"
	"github.com/caddy-x402/caddy-x402/caddymodule/internal/httpx"
	"github.com/caddy-x402/caddy-x402/caddymodule/paywall/mcp"
	"github.com/caddy-x402/caddy-x402/facilitator"
	"github.com/caddy-x402/caddy-x402/facilitator/batchsettlement/batch"
	"github.com/caddy-x402/caddy-x402/facilitator/store"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// SchemeChannel sells by payment channel (x402 `batch-settlement`): the
// buyer deposits once, then pays each request with a cumulative voucher
// that the paywall checks and charges in its store, without a chain round
// trip; the vouchers are claimed in batches (claim_every) and the claimed
// funds settled to pay_to.
const SchemeChannel = x402.SchemeBatchSettlement

// Reasons of the channel paywall, as the published server names them.
const (
	reasonCumulativeMismatch = "invalid_batch_settlement_evm_cumulative_amount_mismatch"
	reasonChannelBusy        = "invalid_batch_settlement_evm_channel_busy"
	reasonChannelClosed      = "invalid_batch_settlement_evm_channel_closed"
	reasonExceedsBalance     = "invalid_batch_settlement_evm_cumulative_exceeds_balance"
	reasonVoucherSignature   = "invalid_batch_settlement_evm_voucher_signature"
	reasonChannelIDMismatch  = "invalid_batch_settlement_evm_channel_id_mismatch"
	reasonReceiverMismatch   = "invalid_batch_settlement_evm_receiver_mismatch"
	reasonAuthorizerMismatch = "invalid_batch_settlement_evm_receiver_authorizer_mismatch"
	reasonTokenMismatch      = "invalid_batch_settlement_evm_token_mismatch"
	reasonDelayMismatch      = "invalid_batch_settlement_evm_withdraw_delay_mismatch"
	reasonPayloadType        = "invalid_batch_settlement_evm_payload_type"
)

// DefaultWithdrawDelay is the withdraw delay a channel route asks for
// (the contract's minimum, 15 minutes): the longest a buyer's unspent
// deposit stays locked after it asks to withdraw.
const DefaultWithdrawDelay = 900

// DefaultClaimEvery is how often a channel route claims what it charged.
const DefaultClaimEvery = time.Minute

// chanRoute is a channel route's seller side: its state (the store and,
// per option, what a channel must name) and the methods that serve its
// requests (deposits, vouchers, refunds) and run its claim loop (claims,
// refunds, the withdraw watch). It is the route's Seller: the core hands
// it every request carrying a payment (ServePayment, channel_seller.go);
// Cleanup stops its claim loop (stop).
//
// What it reads of the route is set by newChanRoute, at Provision: the
// route's logger; its pricing (the options, which newChanRoute makes
// batch-settlement ones, and each request's sale) and metrics, by pointer,
// since Provision finishes both after the route is made (the offers, the
// metrics label); the facilitator client (on a channel route, the x402
// app's embedded facilitator), which verifies deposits and unknown
// channels, settles deposits and sends the claims, refunds and settles of
// the claim rounds (channel_op.go); the attempt limit, which bounds the
// requests that cost RPC calls; the deliveries (redeem), whose leases
// decide which instance claims (channel_lease.go); the embedded
// facilitator itself, whose chain reads the withdraw watch uses; the
// description and MIME type of the corrective 402; claim_every,
// refund_idle and refund_window. What it shares with the other schemes
// it reaches through the types that own it: the answers and the
// facilitator request of a payment through the route's replies (reply),
// the meter through the route's meterer (meter), settle and the hang-up
// check through the core (core, chanCore).
type chanRoute struct {
	core chanCore
	// reply is the route's replies (Handler.reply), which Provision makes
	// after the route's seller: read at requests only.
	reply *replies
	// meter reads the charge of a request from its answer (meterer.go,
	// shared with upto).
	meter    *meterer
	logger   *zap.Logger
	pricing  *pricing
	metrics  *routeMetrics
	client   facilitator.Client
	attempts *attempts
	redeem   *app.Deliveries
	// fac is the x402 app's embedded facilitator: the withdraw watch's
	// chain when chain is nil (channel_watch.go).
	fac *facilitator.Facilitator
	// description and mimeType are the route's, for the corrective 402's
	// resource (channel_reply.go).
	description, mimeType string
	// claimEvery is claim_every (or its default); refundIdle refund_idle
	// (0: off); refundWindow refund_window (or its default).
	claimEvery, refundIdle, refundWindow time.Duration

	store store.Channels
	opts  []chanOption
	quit  chan struct{}
	done  chan struct{}
	// tracer is the tracer provider of the route's last traced request
	// (keptProvider), for the rounds' traces (trace.go).
	tracer atomic.Value
	// release lets go of the x402 app's facilitator and store, held for
	// the last claim round at Cleanup (Caddy may clean the app up first).
	release func() error
	// led notes the claiming roles this route took (channel_lease.go);
	// scanned, per option, the next block the withdraw watch reads
	// (channel_watch.go). The claim loop alone uses them.
	led     map[string]bool
	scanned map[int]uint64
	// chain is what the withdraw watch reads of the chain; nil: the
	// embedded facilitator (tests only set it).
	chain withdrawChain
	// pruned is when the refund round last pruned closed channels.
	pruned time.Time
}

// chanOption is what a channel on one of the route's options must name.
type chanOption struct {
	chainID    *big.Int
	authorizer common.Address // the facilitator's receiver authorizer
	token      common.Address
	payTo      common.Address
	ids        *channelIDs // memoised config -> channel id
	// refundMin is refund_min in the token's smallest units (nil: none).
	refundMin *big.Int
}

// channel reports whether the route sells by payment channel.
func (m *Metering) channel() bool { return m.Scheme == SchemeChannel }

// newChanRoute makes a batch-settlement route's seller side: it makes the
// route's options (h.pricing) batch-settlement ones, with the extra the
// published client needs, and starts the claim rounds (not under caddy
// validate). It needs the x402 app's embedded facilitator, which signs the
// claims, and a store that keeps channels.
func newChanRoute(h *Handler) (*chanRoute, error) {
	if h.Facilitator != "" || h.app == nil || h.app.Facilitator() == nil {
		return nil, errors.New("x402: scheme batch-settlement needs the x402 app's embedded facilitator (not a remote one): it signs the claims")
	}
	chans, ok := h.core.redeem.Store().(store.Channels)
	if !ok {
		return nil, errors.New("x402: scheme batch-settlement needs a store that keeps payment channels (memory, bbolt or postgres)")
	}
	fac := h.app.Facilitator()
	cr := chanRouteOf(h, chans)
	cr.fac = fac
	transfer := h.Metering.channelTransfer()
	for i := range h.pricing.options {
		opt := &h.pricing.options[i]
		if opt.caip2 == "" {
			return nil, fmt.Errorf("x402: scheme batch-settlement on network %q needs its chain id (x402 version 2 only): name the network eip155:<chainId>", opt.reqs.Network)
		}
		var e struct {
			ReceiverAuthorizer string `json:"receiverAuthorizer"`
			Name               string `json:"name"`
			Version            string `json:"version"`
		}
		extra, ok := fac.SchemeExtra(opt.reqs.Network, SchemeChannel)
		if ok {
			b, _ := json.Marshal(extra)
			_ = json.Unmarshal(b, &e)
		}
		if !ok || !common.IsHexAddress(e.ReceiverAuthorizer) {
			if why := fac.Declined(opt.reqs.Network, SchemeChannel); why != "" {
				return nil, fmt.Errorf("x402: scheme batch-settlement on network %q: the facilitator does not offer it there: %s", opt.reqs.Network, why)
			}
			return nil, fmt.Errorf("x402: scheme batch-settlement on network %q: the facilitator does not offer it there (the chain needs the x402 batch settlement contract %s and its ERC-3009 deposit collector, and the network a signer key)",
				opt.reqs.Network, batch.SettlementAddress.Hex())
		}
		if err := checkChannelTransfer(fac, transfer, opt.reqs.Network); err != nil { // channel_permit2.go
			return nil, err
		}
		opt.extraV2 = map[string]any{"receiverAuthorizer": common.HexToAddress(e.ReceiverAuthorizer).Hex(),
			"withdrawDelay": DefaultWithdrawDelay, "name": e.Name, "version": e.Version, "assetTransferMethod": transfer}
		refundMin, err := h.Metering.refundMinOf(opt) // channel_refund_limit.go
		if err != nil {
			return nil, err
		}
		cr.opts = append(cr.opts, chanOption{chainID: big.NewInt(opt.chainID),
			authorizer: common.HexToAddress(e.ReceiverAuthorizer), token: common.HexToAddress(opt.reqs.Asset), payTo: common.HexToAddress(h.PayTo), ids: new(channelIDs),
			refundMin: refundMin})
	}
	if app.Validating() {
		return cr, nil // caddy validate: no claim rounds
	}
	cr.release = h.app.Hold()
	cr.quit, cr.done = make(chan struct{}), make(chan struct{})
	go cr.claimLoop()
	return cr, nil
}

// chanRouteOf is a channel route over the store chans, set to read what
// it reads of the route (chanRoute's doc) from h, with no options yet and
// no claim loop: newChanRoute's first step (and tests').
func chanRouteOf(h *Handler, chans store.Channels) *chanRoute {
	return &chanRoute{core: h.core, reply: &h.reply, meter: newMeterer(h), logger: h.logger, pricing: &h.pricing, metrics: &h.metrics,
		client: h.core.client, attempts: h.core.attempts, redeem: h.core.redeem,
		description: h.Description, mimeType: h.MimeType,
		claimEvery: h.Metering.claimEvery(), refundIdle: time.Duration(h.RefundIdle), refundWindow: h.Metering.refundWindow(),
		store: chans, led: map[string]bool{}, scanned: map[int]uint64{}}
}

// channelPayload is a batch-settlement payload as the published client
// sends it (deposit or voucher).
type channelPayload struct {
	Type          string              `json:"type"`
	ChannelConfig batch.ChannelConfig `json:"channelConfig"`
	Voucher       struct {
		ChannelID          common.Hash   `json:"channelId"`
		MaxClaimableAmount string        `json:"maxClaimableAmount"`
		Signature          hexutil.Bytes `json:"signature"`
	} `json:"voucher"`
	Deposit json.RawMessage `json:"deposit"`
	// Amount is a refund's amount (optional: all that is not charged).
	Amount *string `json:"amount"`
}

// serveChannel serves a request paid by a channel payload: a deposit is
// settled on chain, its channel recorded, and the request charged; a
// voucher is checked and charged with one conditional write of the store.
// Either way the charge is written before the upstream is called.
func (rt *chanRoute) serveChannel(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler, header string) error {
	rt.keepProvider(r) // for the rounds' traces (trace.go)
	sl := rt.pricing.saleOf(r)
	var pl channelPayload
	payment, fast := decodeVoucherHeader(header, &pl)
	if !fast {
		var err error
		if payment, err = x402.DecodePaymentHeader(header); err != nil {
			return rt.channelRefused(w, r, invalidReason(err))
		}
	}
	if payment.Scheme != "" && payment.Scheme != SchemeChannel {
		return rt.channelRefused(w, r, x402.ReasonUnsupportedScheme(payment.Scheme))
	}
	opt, reason := rt.pricing.choose(payment)
	sl.opt = opt
	if reason != "" {
		return rt.channelRefused(w, r, reason)
	}
	if !fast {
		raw, err := payment.PayloadJSON()
		if err != nil || json.Unmarshal(raw, &pl) != nil || (pl.Type != "deposit" && pl.Type != "voucher" && pl.Type != "refund") {
			return rt.channelRefused(w, r, reasonPayloadType)
		}
	}
	max, ok := new(big.Int).SetString(pl.Voucher.MaxClaimableAmount, 10)
	if !ok || max.Sign() < 0 || max.BitLen() > 128 || len(pl.Voucher.Signature) == 0 {
		return rt.channelRefused(w, r, reasonPayloadType)
	}
	co := &rt.opts[opt]
	if reason := co.checkConfig(&pl); reason != "" {
		return rt.channelRefused(w, r, reason)
	}
	if pl.Type == "refund" {
		return rt.serveRefund(w, r, &pl, co, max, header) // channel_refund.go
	}
	price, _ := new(big.Int).SetString(sl.part().reqs.MaxAmountRequired, 10)
	id := pl.Voucher.ChannelID.Hex() // lower case
	if pl.Type == "voucher" {
		if served, err := rt.serveVoucher(w, r, next, &pl, co, max, price, id); served {
			return err
		}
	}
	ctx := r.Context()
	rec, err := rt.store.Channel(ctx, id)
	if err != nil {
		return rt.reply.storeUnavailable(w, r, err)
	}
	req := rt.reply.v2Request(r, header, resourceURL(r))
	req.PaymentRequirements.Resource = resourceURL(r)
	if rec != nil && (rec.State == store.ChannelRefunding || (rec.State == store.ChannelClosed && pl.Type != "deposit") ||
		withdrawClosing(rec, time.Now())) {
		// Refused before a deposit moves anything into a channel that is
		// being refunded, or whose payer's withdrawal could complete
		// before a charge now is claimed (channel_watch.go). A deposit
		// into a closed (refunded) channel opens it again, as the
		// published server does.
		return rt.channelRefused(w, r, reasonChannelClosed)
	}
	var sr *x402.SettleResponse
	if pl.Type == "deposit" || rec == nil {
		// A deposit, or a voucher of a channel this store does not know
		// (a buyer whose record was pruned or lost): the facilitator checks
		// it against the chain, which costs RPC calls, so it counts
		// against the client's attempt limit (a voucher of a known channel
		// costs none and does not).
		if ok, wait := rt.attempts.allow(httpx.ClientIP(r)); !ok {
			rt.metrics.payment(sl, OutcomeRateLimited, "")
			return tooManyAttempts(w, wait)
		}
		vr, err := rt.client.Verify(ctx, req)
		if err != nil {
			return rt.reply.facilitatorFailed(w, "verified", err)
		}
		if !vr.IsValid {
			return rt.channelRefused(w, r, vr.Reason())
		}
		onChain := chainStateOf(vr.Extra)
		base := onChain.Claimed
		if rec != nil {
			base = rec.Charged
		}
		if want := new(big.Int).Add(base, price); max.Cmp(want) != 0 {
			if rec == nil {
				rec = &store.Channel{ID: id, Balance: onChain.Balance, Charged: base, Claimed: onChain.Claimed,
					WithdrawRequestedAt: onChain.WithdrawRequestedAt, RefundNonce: onChain.RefundNonce}
			}
			return rt.correctiveChannel(w, r, rec, co.discloses(&pl, max, rec, proofUnchecked))
		}
		if pl.Type == "deposit" {
			sr, err = rt.core.settleBy(r, req, func(ctx context.Context) (*x402.SettleResponse, error) { return rt.client.Settle(ctx, req) })
			if err != nil {
				return rt.reply.facilitatorFailed(w, "settled", err)
			}
			if !sr.Settled() {
				return rt.reply.settleRefused(w, r, sr)
			}
			onChain = chainStateOf(channelStateOf(sr.Extra))
			if sr.BlockNumber != nil {
				onChain.Block = *sr.BlockNumber
			}
			if rec != nil && rec.State == store.ChannelClosed {
				if _, err := rt.store.SetChannelState(ctx, id, store.ChannelClosed, store.ChannelOpen); err != nil {
					return rt.channelStoreFailed(w, r, err, sr)
				}
			}
		}
		if rec, err = rt.store.Sync(ctx, id, sl.network(), storeConfig(pl.ChannelConfig), onChain); err != nil {
			return rt.channelStoreFailed(w, r, err, sr)
		}
	} else {
		if want := new(big.Int).Add(rec.Charged, price); max.Cmp(want) != 0 {
			return rt.correctiveChannel(w, r, rec, co.discloses(&pl, max, rec, proofUnchecked))
		}
		if !co.voucherSigned(&pl, max) {
			return rt.channelRefused(w, r, reasonVoucherSignature)
		}
	}
	charged := new(big.Int).Add(rec.Charged, price)
	if max.Cmp(charged) != 0 {
		return rt.correctiveChannel(w, r, rec, co.discloses(&pl, max, rec, proofUnchecked))
	}
	held := heldCharges.hold(id, price) // until the charge is final (channel_held.go)
	after, err := rt.store.Charge(ctx, id, rec.Charged, charged, store.ChannelVoucher{Max: max, Signature: pl.Voucher.Signature})
	if err != nil {
		held()
	}
	switch {
	case errors.Is(err, store.ErrChannelConflict):
		return rt.correctiveChannel(w, r, after, co.discloses(&pl, max, after, proofUnchecked))
	case errors.Is(err, store.ErrChannelBalance):
		return rt.channelRefused(w, r, reasonExceedsBalance)
	case errors.Is(err, store.ErrChannelNotOpen):
		return rt.channelRefused(w, r, reasonChannelClosed)
	case err != nil:
		return rt.channelStoreFailed(w, r, err, sr)
	}
	rt.metrics.payment(sl, OutcomeSettled, "")
	r.Header.Set(httpx.HeaderFrom, pl.ChannelConfig.Payer.Hex())
	r.Header.Set(httpx.HeaderValue, price.String())
	r.Header.Set(httpx.HeaderNetwork, sl.network())
	return rt.serveChannelMetered(w, r, next, after, price, sr, rt.setChannelResponse, held) // channel_meter.go
}

// checkConfig checks a channel's config against the route's option, as
// the published server does before anything else.
func (co *chanOption) checkConfig(pl *channelPayload) string {
	c := &pl.ChannelConfig
	switch {
	case c.Receiver != co.payTo:
		return reasonReceiverMismatch
	case c.ReceiverAuthorizer != co.authorizer:
		return reasonAuthorizerMismatch
	case c.Token != co.token:
		return reasonTokenMismatch
	case c.WithdrawDelay != DefaultWithdrawDelay:
		return reasonDelayMismatch
	}
	if id, err := co.ids.id(*c, co.chainID); err != nil || id != pl.Voucher.ChannelID {
		return reasonChannelIDMismatch
	}
	return ""
}

// validateChannel checks a batch-settlement route's settings: its own
// (asset_transfer, gas_sponsoring, refund_idle, claim_every, refund_window,
// refund_min, meter) and, given by the route, those of its other parts
// that do not go with channels (settle, access, mcp_tool).
func (m *Metering) validateChannel(settle string, access caddy.Duration, mcpTools []mcp.Tool) error {
	switch {
	case m.AssetTransfer != "" && m.AssetTransfer != AssetTransferEIP3009 && m.AssetTransfer != AssetTransferPermit2:
		return fmt.Errorf("x402: asset_transfer must be %q or %q, got %q", AssetTransferEIP3009, AssetTransferPermit2, m.AssetTransfer)
	case m.GasSponsoring != "":
		return errors.New("x402: gas_sponsoring is for scheme upto")
	case access != 0:
		return errors.New("x402: access does not go with scheme batch-settlement: a voucher pays for one request")
	case settle == SettleAfter:
		return errors.New("x402: settle after does not go with scheme batch-settlement: a channel's receipt must be a header, which the buyer signs its next voucher from (the published client reads no trailer); a metered answer is held up to meter_max_bytes, or streams at once when the upstream states its charge in Settlement-Overrides")
	case len(mcpTools) > 0:
		return errors.New("x402: mcp_tool does not go with scheme batch-settlement yet")
	case m.RefundIdle < 0:
		return errors.New("x402: refund_idle must be a positive duration, or off")
	case m.ClaimEvery < 0:
		return errors.New("x402: claim_every must be positive")
	}
	if err := m.validateRefundLimit(); err != nil { // channel_refund_limit.go
		return err
	}
	return m.validateChannelMeter() // channel_meter.go
}
