package paywall

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"github.com/ethereum/go-ethereum/common"

	"github.com/caddy-x402/caddy-x402/caddymodule/internal/httpx"
	"github.com/caddy-x402/caddy-x402/facilitator/permit2"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// Payment schemes a route can take.
const (
	// SchemeExact charges the price, whatever the upstream answers.
	SchemeExact = "exact"
	// SchemeUpto lets the buyer sign for a maximum (a Permit2 permit to
	// the x402 upto proxy) and charges what the upstream's answer says
	// was used (meter.go).
	SchemeUpto = x402.SchemeUpto
)

// validateMetering checks the scheme's settings.
func (h *Handler) validateMetering() error {
	switch h.Scheme {
	case "", SchemeExact, SchemeUpto:
	case SchemeChannel:
		return h.validateChannel()
	default:
		if err := knownScheme(h.Scheme); err != nil {
			return err
		}
	}
	if h.ClaimEvery != 0 {
		return errors.New("x402: claim_every is for scheme batch-settlement")
	}
	if h.RefundIdle != 0 {
		return errors.New("x402: refund_idle is for scheme batch-settlement")
	}
	if h.RefundWindow != 0 || h.RefundMin != "" {
		return errors.New("x402: refund_window and refund_min are for scheme batch-settlement")
	}
	if err := h.validateSponsoring(); err != nil {
		return err
	}
	switch h.AssetTransfer {
	case "", AssetTransferEIP3009:
	case AssetTransferPermit2:
		if h.upto() {
			return errors.New("x402: asset_transfer is for scheme exact: upto always moves the token through Permit2")
		}
	default:
		return fmt.Errorf("x402: asset_transfer must be %q or %q, got %q", AssetTransferEIP3009, AssetTransferPermit2, h.AssetTransfer)
	}
	if h.MeterMaxBytes < 0 {
		return fmt.Errorf("x402: meter_max_bytes must not be negative, got %d", h.MeterMaxBytes)
	}
	if !h.upto() {
		if h.Meter != nil || h.MeterMaxBytes != 0 {
			return errors.New("x402: meter and meter_max_bytes are for scheme upto or batch-settlement: an exact route charges its price whatever the answer")
		}
		return nil
	}
	if h.Meter != nil {
		if err := h.Meter.validate(); err != nil {
			return err
		}
	}
	if h.Window.Access != 0 {
		return errors.New("x402: access does not go with scheme upto: an upto payment pays for one metered answer, not for a time")
	}
	return nil
}

// unmarshalMeterOption reads scheme, meter and meter_max_bytes.
func (h *Handler) unmarshalMeterOption(d *caddyfile.Dispenser, opt string) (bool, error) {
	switch opt {
	case "scheme":
		v, err := httpx.OneArg(d)
		if err != nil {
			return true, err
		}
		h.Scheme = v
	case "meter":
		args := d.RemainingArgs()
		if len(args) != 3 || args[0] != "json" {
			return true, d.Errf("x402: meter takes json <dotted path> <unit price>, such as meter json usage.total_tokens 0.000002")
		}
		h.Meter = &Meter{Kind: args[0], Path: args[1], UnitPrice: args[2]}
	case "asset_transfer":
		v, err := httpx.OneArg(d)
		if err != nil {
			return true, err
		}
		h.AssetTransfer = v
	case "gas_sponsoring":
		v, err := httpx.OneArg(d)
		if err != nil {
			return true, err
		}
		h.GasSponsoring = v
	case "claim_every":
		v, err := httpx.OneArg(d)
		if err != nil {
			return true, err
		}
		dur, err := caddy.ParseDuration(v)
		if err != nil || dur <= 0 {
			return true, d.Errf("x402: claim_every %q: want a positive duration, such as 1m", v)
		}
		h.ClaimEvery = caddy.Duration(dur)
	case "refund_idle":
		return true, h.parseRefundIdle(d)
	case "refund_window", "refund_min":
		return true, h.parseRefundLimit(d, opt) // channel_refund_limit.go
	case "meter_max_bytes":
		v, err := httpx.OneArg(d)
		if err != nil {
			return true, err
		}
		n, err := parseByteSize(v)
		if err != nil {
			return true, d.Errf("x402: meter_max_bytes %q: %v", v, err)
		}
		h.MeterMaxBytes = n
	default:
		return false, nil
	}
	return true, nil
}

// parseByteSize reads a size: bytes, or with KiB, MiB (or KB, MB).
func parseByteSize(s string) (int, error) {
	mult := 1
	for _, u := range []struct {
		suffix string
		mult   int
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"KB", 1000}, {"MB", 1000 * 1000}, {"B", 1}} {
		if strings.HasSuffix(s, u.suffix) {
			s, mult = strings.TrimSpace(strings.TrimSuffix(s, u.suffix)), u.mult
			break
		}
	}
	var n int
	if _, err := fmt.Sscan(s, &n); err != nil || n <= 0 || n > (1<<30)/mult {
		return 0, errors.New("want a positive size up to 1 GiB, such as 1MiB or 65536")
	}
	return n * mult, nil
}

// provisionUpto makes the route's options upto ones: scheme upto, and the
// extra the published clients need (assetTransferMethod permit2 and the
// facilitator's address, which the buyer's permit names as the one that
// may settle it), read from the facilitator's supported kinds.
func (h *Handler) provisionUpto() error {
	h.warnUnmetered()
	if err := h.provisionSponsoring(); err != nil {
		return err
	}
	if h.Facilitator != "" {
		// A remote facilitator is asked for its address at the first
		// request (upto_remote.go).
		for i := range h.pricing.options {
			opt := &h.pricing.options[i]
			if opt.caip2 == "" {
				return fmt.Errorf("x402: scheme upto on network %q needs its chain id (x402 version 2 only): name the network eip155:<chainId>", opt.reqs.Network)
			}
			opt.reqs.Scheme = SchemeUpto
		}
		h.uptoRemote = &uptoRemote{}
		return nil
	}
	if h.app == nil || h.app.Facilitator() == nil {
		return errors.New("x402: scheme upto needs the x402 app's facilitator, or a remote facilitator")
	}
	fac := h.app.Facilitator()
	for i := range h.pricing.options {
		opt := &h.pricing.options[i]
		addr := ""
		if extra, ok := fac.SchemeExtra(opt.reqs.Network, SchemeUpto); ok {
			var e struct {
				FacilitatorAddress string `json:"facilitatorAddress"`
			}
			if b, err := json.Marshal(extra); err == nil && json.Unmarshal(b, &e) == nil && common.IsHexAddress(e.FacilitatorAddress) {
				addr = common.HexToAddress(e.FacilitatorAddress).Hex()
			}
		}
		if addr == "" {
			return fmt.Errorf("x402: scheme upto on network %q: the facilitator does not offer upto there (the chain needs Permit2 %s and the x402 upto proxy %s, and the network a signer key)",
				opt.reqs.Network, permit2.Address.Hex(), permit2.UptoProxyAddress.Hex())
		}
		if opt.caip2 == "" {
			return fmt.Errorf("x402: scheme upto on network %q needs its chain id (x402 version 2 only): name the network eip155:<chainId>", opt.reqs.Network)
		}
		opt.reqs.Scheme = SchemeUpto
		opt.extraV2 = map[string]any{"assetTransferMethod": "permit2", "facilitatorAddress": addr}
	}
	return nil
}

// parse reads upto's payload, a Permit2 witness transfer, whose fields
// the paywall keeps as an authorization (payer, witness.to, the permitted
// maximum, validAfter, the deadline as validBefore, the nonce as 32
// bytes) so that its records, claims and refusals key it by payer and
// nonce as any other (in Permit2's nonce space: noncespace.go).
func (u uptoCheckout) parse(payment *x402.Payment) (string, error) {
	if payment.Scheme != SchemeUpto {
		return "", &x402.InvalidPaymentError{Reason: x402.ReasonUnsupportedScheme(payment.Scheme)}
	}
	return authScheme(true, false), parsePermit2Payment(payment, true)
}

// parsePermit2Payment reads a Permit2 payload (upto's, or exact's through
// the exact proxy) into the payment's authorization fields.
func parsePermit2Payment(payment *x402.Payment, upto bool) error {
	raw, err := payment.PayloadJSON()
	if err != nil {
		return err
	}
	p, sig, err := permit2.ParsePayload(raw, upto)
	if err != nil {
		return err
	}
	a := &payment.Authorization
	a.From, a.To, a.Value, a.ValidAfter, a.ValidBefore, a.Nonce = p.From, p.To, p.Amount, p.ValidAfter, p.Deadline, permit2.NonceBytes(p.Nonce)
	payment.Signature, payment.Asset, payment.Value = sig, p.Token.Hex(), p.Amount.String()
	return nil
}

// serveUpto serves a verified-to-be upto payment: verify at the maximum,
// run the upstream with the answer metered (meter_writer.go), settle the
// charge: before the answer goes out (settle before), or when it has
// ended (settle after, the receipt in a trailer).
func (h *Handler) serveUpto(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler,
	req *x402.Request, payment *x402.Payment, refusal [32]byte, id string, pid *paymentID, lost *lostPayment) (err error) {
	res, ok, err := h.core.reservePayment(w, r, req, payment, refusal, lost)
	if !ok {
		return err
	}
	if res != nil {
		defer res.Release() // nothing settled (an upstream error): nothing moved
	}
	if h.core.goneBeforeUpstream(r) {
		return nil // nothing went upstream, nothing is charged (hangup.go)
	}
	sl := h.pricing.saleOf(r)
	r.Header.Set(httpx.HeaderFrom, payment.Authorization.From.Hex())
	r.Header.Set(httpx.HeaderValue, sl.part().reqs.MaxAmountRequired)
	r.Header.Set(httpx.HeaderNetwork, sl.network())
	h.forMeter(r) // the whole answer, whatever the buyer asked for (meter_request.go)
	mw := h.newMeterWriter(w, r, req, res, id, pid.bindTo(&redemption{Route: h.core.routeKey(r), Authorization: authFingerprint(payment),
		ValidBefore: payment.Authorization.ValidBefore.String()}))
	// Settle after only in the payer's turn (upto_after.go); given back
	// once the settle is done, after the deferred finish below.
	turn := h.uptoAfterTurn(r, payment, id)
	mw.after = turn != nil
	defer func() { turn.end(mw.settledAfter()) }()
	defer func() {
		// reverse_proxy aborts an answer it cannot complete (the upstream
		// broke off, or the buyer hung up) by panicking with
		// http.ErrAbortHandler: what was streamed is charged by the rules
		// of an answer that broke off, then the panic goes on.
		// Held (settle before), nothing went out yet: the buyer gets a
		// 502 instead, and nothing is charged; a buyer who hung up is
		// charged (hangup.go) and gets nothing.
		if p := recover(); p != nil {
			held := mw.holding()
			_ = mw.finish(errAnswerAborted)
			if held && p == http.ErrAbortHandler && hungUp(r, 0) {
				err = nil
				return
			}
			if held && p == http.ErrAbortHandler {
				err = caddyhttp.Error(http.StatusBadGateway, errors.New("x402: the upstream's answer broke off before it was complete; nothing was charged"))
				return
			}
			panic(p)
		}
	}()
	return mw.finish(next.ServeHTTP(mw, r))
}

// errAnswerAborted is an answer aborted by a panic of the next handler.
var errAnswerAborted = errors.New("x402: the answer was aborted")

// warnUnmetered says at start that an upto route without a meter charges
// every payment the maximum unless its upstream states the charge.
func (h *Handler) warnUnmetered() {
	if h.Meter != nil {
		return
	}
	h.logger.Warn("scheme upto without meter: every payment is charged the maximum (the route's price) unless the upstream answers with a Settlement-Overrides header; add meter json <dotted path> <unit price> to charge what the answer used, or use scheme exact for a fixed price")
}
